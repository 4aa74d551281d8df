//! The interactive mode end to end: the real binary in a tmux pane against the mock provider.
//! Each test drives keys, reads the screen, and checks what reached the provider or the
//! session file. Skipped (with a notice) where tmux is not installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::tui;

use common::{chat_messages, Sandbox};
use rho_testkit::openai_chat::ChatStream;
use rho_testkit::{Chunk, Gate, MockResponse};
use serde_json::Value;
use tui::{
    editor, footer, skip_without_tmux, start, streamed, tool_call, until, user_texts, within, Tmux,
};

/// A reply that streams `first`, waits for `gate`, then ends with `rest`.
fn gated(first: &str, gate: &Gate, rest: &str) -> MockResponse {
    let mut response = ChatStream::new("chatcmpl-g", "mock-model")
        .role()
        .text(first)
        .response_then_hang();
    response.chunks.pop();
    response.chunks.push(Chunk::Wait(gate.clone()));
    let tail = ChatStream::new("chatcmpl-g", "mock-model")
        .text(rest)
        .finish("stop")
        .usage(30, 6, None)
        .done()
        .response();
    response.chunks.extend(tail.chunks);
    response
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_code_block_shows_as_code_not_as_markdown() {
    if skip_without_tmux("code block") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server.push(streamed(&[
        "Here is the *function*:\n\n```rust\nfn ans",
        "wer() -> u32 {\n    42\n}\n```\n",
        "\nThat is all.",
    ]));
    let tmux = start(&sb).await;
    tmux.submit("show me code");
    let screen = tmux.wait_for_text("That is all.").await;
    let row = |text: &str| {
        screen
            .lines()
            .find(|l| l.contains(text))
            .unwrap_or_else(|| panic!("{text:?} not on screen:\n{screen}"))
            .to_string()
    };
    let indent = |l: &str| l.len() - l.trim_start().len();
    assert_eq!(row("Here is the").trim(), "Here is the function:");
    let (prose, code) = (row("Here is the"), row("fn answer() -> u32 {"));
    assert_eq!(
        indent(&code),
        indent(&prose) + 2,
        "code is indented:\n{screen}"
    );
    assert_eq!(indent(&row("42")), indent(&code) + 4);
    // The fences are pi's code-block borders: drawn in their own colour, not raw text.
    let styled = tmux.styled_screen();
    let fence = styled
        .lines()
        .find(|l| l.contains("```rust"))
        .expect("the opening fence row");
    assert!(
        fence.find('\u{1b}') < fence.find("```"),
        "the fence is coloured: {fence:?}"
    );
    within("the request", sb.server.wait_for_requests(1)).await;
    assert_eq!(user_texts(&sb, 0), ["show me code"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_output_is_collapsed_until_ctrl_o_expands_it() {
    if skip_without_tmux("tool output") {
        return;
    }
    let sb = Sandbox::new().await;
    let notes: String = (1..=14).map(|i| format!("note line {i:02}\n")).collect();
    std::fs::write(sb.cwd.join("notes.txt"), &notes).expect("write notes");
    sb.server.push(tool_call("read", r#"{"path":"notes.txt"}"#));
    sb.server
        .push(streamed(&["The notes have fourteen lines."]));
    let tmux = start(&sb).await;
    tmux.submit("read the notes");
    let screen = tmux.wait_for_text("fourteen lines.").await;
    assert!(screen.contains("note line 01"), "{screen}");
    assert!(screen.contains("note line 10"), "{screen}");
    assert!(!screen.contains("note line 11"), "collapsed:\n{screen}");
    assert!(screen.contains("more lines"), "{screen}");
    tmux.send_keys(&["C-o"]);
    let screen = tmux.wait_for_text("note line 14").await;
    assert!(screen.contains("note line 11"), "{screen}");
    assert!(!screen.contains("more lines"), "{screen}");
    let results: Vec<String> = chat_messages(&sb.server.requests()[1].json())
        .into_iter()
        .filter(|(role, _)| role == "tool")
        .map(|(_, text)| text)
        .collect();
    assert_eq!(results.len(), 1);
    assert!(results[0].contains("note line 14"), "{results:?}");
}

/// A bash command that runs until the file `name` appears in the cwd: a tool the test ends.
fn wait_for_file(name: &str) -> String {
    format!("until [ -e {name} ]; do sleep 0.02; done; echo released")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_sent_while_a_tool_runs_waits_as_steering_then_reaches_the_model() {
    if skip_without_tmux("steering") {
        return;
    }
    let sb = Sandbox::new().await;
    let args = serde_json::json!({ "command": wait_for_file("go") }).to_string();
    sb.server.push(tool_call("bash", &args));
    sb.server.push(streamed(&["Only the unit tests then."]));
    let tmux = start(&sb).await;
    tmux.submit("run the tests");
    tmux.wait_for_text("until [ -e go ]").await;
    tmux.submit("only unit tests");
    let screen = tmux.wait_for_text("Steering: only unit tests").await;
    assert!(editor(&screen).is_empty(), "the editor is free:\n{screen}");
    assert_eq!(sb.server.requests().len(), 1, "held while the tool runs");
    std::fs::write(sb.cwd.join("go"), "").expect("release the tool");
    tmux.wait_for_text("Only the unit tests then.").await;
    let screen = tmux.wait_for_gone("Steering:").await;
    assert!(screen.contains("released"), "{screen}");
    assert_eq!(user_texts(&sb, 1), ["run the tests", "only unit tests"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_sent_while_text_streams_interrupts_the_stream() {
    if skip_without_tmux("steering a stream") {
        return;
    }
    let sb = Sandbox::new().await;
    let never = Gate::new();
    sb.server.push(gated("Working on it", &never, " first."));
    sb.server.push(streamed(&["Only the unit tests then."]));
    let tmux = start(&sb).await;
    tmux.submit("run the tests");
    tmux.wait_for_text("Working on it").await;
    tmux.submit("only unit tests");
    let screen = tmux.wait_for_text("Only the unit tests then.").await;
    // The cut-off reply stays readable, marked as left out of the context.
    let cut = screen
        .find("Working on it")
        .expect("the cut-off reply stays");
    let note = screen
        .find("this partial reply was discarded")
        .expect("marked as discarded");
    let steer = screen.rfind("only unit tests").expect("the steer shows");
    assert!(cut < note && note < steer, "{screen}");
    // The working line leaves by itself once the run ends.
    tmux.wait_for_gone("Working...").await;
    within(
        "the first stream to be dropped",
        sb.server.wait_for_closed(1),
    )
    .await;
    // D4: the partial reply is dropped from the context; the steer follows the prompt.
    let sent = chat_messages(&sb.server.requests()[1].json());
    let roles: Vec<&str> = sent.iter().map(|(r, _)| r.as_str()).collect();
    assert!(!roles.contains(&"assistant"), "{sent:?}");
    assert_eq!(user_texts(&sb, 1), ["run the tests", "only unit tests"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn alt_enter_queues_a_follow_up_until_the_reply_ends() {
    if skip_without_tmux("follow-up") {
        return;
    }
    let sb = Sandbox::new().await;
    let gate = Gate::new();
    sb.server.push(gated("All tests", &gate, " pass."));
    sb.server.push(streamed(&["Lint is clean."]));
    let tmux = start(&sb).await;
    tmux.submit("run the tests");
    tmux.wait_for_text("All tests").await;
    tmux.type_text("then lint");
    tmux.send_keys(&["M-Enter"]);
    let screen = tmux.wait_for_text("Follow-up: then lint").await;
    assert!(editor(&screen).is_empty(), "the editor is free:\n{screen}");
    assert_eq!(sb.server.requests().len(), 1);
    gate.open();
    tmux.wait_for_text("Lint is clean.").await;
    let screen = tmux.wait_for_gone("Follow-up:").await;
    assert!(screen.contains("All tests pass."), "{screen}");
    let sent = chat_messages(&sb.server.requests()[1].json());
    let texts: Vec<(&str, &str)> = sent.iter().map(|(r, t)| (r.as_str(), t.as_str())).collect();
    assert_eq!(
        texts[texts.len() - 3..],
        [
            ("user", "run the tests"),
            ("assistant", "All tests pass."),
            ("user", "then lint")
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn esc_aborts_the_reply_and_the_editor_works_again() {
    if skip_without_tmux("esc abort") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server.push(
        ChatStream::new("chatcmpl-h", "mock-model")
            .role()
            .text("Partial answer")
            .response_then_hang(),
    );
    let tmux = start(&sb).await;
    tmux.submit("a long task");
    tmux.wait_for_text("Partial answer").await;
    tmux.send_keys(&["Escape"]);
    tmux.wait_for_text("Operation aborted").await;
    tmux.wait_for_gone("Working...").await;
    within(
        "the aborted connection to close",
        sb.server.wait_for_closed(1),
    )
    .await;
    sb.server.push(streamed(&["Fresh start."]));
    tmux.submit("try again");
    tmux.wait_for_text("Fresh start.").await;
    let users = user_texts(&sb, 1);
    assert_eq!(users.last().map(String::as_str), Some("try again"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn model_selector_switches_the_footer_and_the_next_request() {
    if skip_without_tmux("/model") {
        return;
    }
    let sb = Sandbox::new().await;
    let tmux = start(&sb).await;
    tmux.submit("/model");
    tmux.wait_for_text("Select model").await;
    tmux.type_text("vision");
    tmux.send_keys(&["Enter"]);
    tmux.wait_for("mock-vision in the footer", |s| {
        footer(s).contains("mock-vision")
    })
    .await;
    sb.server.push(streamed(&["Seen."]));
    tmux.submit("describe it");
    tmux.wait_for_text("Seen.").await;
    assert_eq!(sb.server.requests()[0].json()["model"], "mock-vision");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn resume_picks_an_earlier_session_and_continues_it() {
    if skip_without_tmux("/resume") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server.push(streamed(&["The capital is Paris."]));
    let out = sb
        .rho(&["--model", "mock-model", "-p", "capital of France?"], None)
        .await;
    assert!(out.status.success(), "{}", common::stderr(&out));
    let files = sb.session_files();
    assert_eq!(files.len(), 1);
    let tmux = start(&sb).await;
    tmux.submit("/resume");
    tmux.wait_for_text("Resume Session").await;
    tmux.send_keys(&["Enter"]);
    tmux.wait_for_text("The capital is Paris.").await;
    let screen = tmux.wait_for_gone("Resume Session").await;
    assert!(screen.contains("capital of France?"), "{screen}");
    sb.server.push(streamed(&["Lyon is second."]));
    tmux.submit("and the second city?");
    tmux.wait_for_text("Lyon is second.").await;
    assert_eq!(
        user_texts(&sb, 1),
        ["capital of France?", "and the second city?"]
    );
    until("the resumed file to get the new message", || {
        entry_texts(&files[0]).contains(&"and the second city?".to_string())
    })
    .await;
}

/// `(id, parentId, text)` of each message entry of a session file.
fn message_entries(path: &std::path::Path) -> Vec<(String, String, String)> {
    let text_of = |m: &Value| match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect(),
        _ => String::new(),
    };
    common::read_jsonl(path)
        .iter()
        // The system prompt's entry (pi 1.x, D18) carries no conversation text.
        .filter(|e| e["type"] == "message" && e["message"]["role"] != "system")
        .map(|e| {
            let field = |k: &str| e[k].as_str().unwrap_or_default().to_string();
            (field("id"), field("parentId"), text_of(&e["message"]))
        })
        .collect()
}

/// The texts of a session file's message entries.
fn entry_texts(path: &std::path::Path) -> Vec<String> {
    message_entries(path)
        .into_iter()
        .map(|(_, _, t)| t)
        .collect()
}

/// The rows the open tree selector lists (between its filter line and its key hints).
/// The `/tree` rows on screen: between the search line's rule and the position line.
fn tree_rows(screen: &str) -> Vec<String> {
    screen
        .lines()
        .map(str::trim)
        .skip_while(|l| !l.starts_with("Type to search:"))
        .skip(1)
        .skip_while(|l| l.starts_with("───") || l.is_empty())
        .take_while(|l| !(l.starts_with('(') && l.contains('/')))
        .map(str::to_string)
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tree_navigation_to_an_earlier_message_branches_the_session() {
    if skip_without_tmux("/tree") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server.push(streamed(&["Quokkas are marsupials."]));
    sb.server.push(streamed(&["Wombats dig."]));
    sb.server.push(streamed(&["Koalas sleep."]));
    let tmux = start(&sb).await;
    tmux.submit("tell me about quokkas");
    tmux.wait_for_text("Quokkas are marsupials.").await;
    tmux.submit("and wombats");
    tmux.wait_for_text("Wombats dig.").await;
    tmux.submit("/tree");
    tmux.wait_for_text("Session Tree").await;
    tmux.type_text("about quokkas");
    tmux.wait_for("only the first question listed", |s| {
        tree_rows(s) == ["› • user: tell me about quokkas"]
    })
    .await;
    tmux.send_keys(&["Enter"]);
    tmux.wait_for_text("No summary").await;
    tmux.send_keys(&["Enter"]);
    let screen = tmux
        .wait_for("the chosen message in the editor", |s| {
            editor(s) == ["tell me about quokkas"]
        })
        .await;
    assert!(
        !screen.contains("Wombats dig."),
        "left the branch:\n{screen}"
    );
    tmux.send_keys(&["C-c"]);
    tmux.wait_for("an empty editor", |s| editor(s).is_empty())
        .await;
    tmux.submit("tell me about koalas");
    tmux.wait_for_text("Koalas sleep.").await;
    assert_eq!(user_texts(&sb, 2), ["tell me about koalas"]);
    let files = sb.session_files();
    assert_eq!(files.len(), 1);
    until("the new branch in the session file", || {
        entry_texts(&files[0]).contains(&"Koalas sleep.".to_string())
    })
    .await;
    let entries = message_entries(&files[0]);
    let parent_of = |text: &str| {
        entries
            .iter()
            .find(|(_, _, t)| t == text)
            .map(|(_, p, _)| p.clone())
            .unwrap_or_else(|| panic!("{text:?} not in the session file"))
    };
    let fork = parent_of("tell me about quokkas");
    assert_eq!(parent_of("tell me about koalas"), fork, "siblings");
    let children = entries.iter().filter(|(_, p, _)| *p == fork).count();
    assert_eq!(children, 2, "{entries:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_c_clears_the_editor_then_twice_quits() {
    if skip_without_tmux("ctrl+c") {
        return;
    }
    let sb = Sandbox::new().await;
    let tmux = start(&sb).await;
    tmux.type_text("draft words");
    tmux.wait_for_text("draft words").await;
    tmux.send_keys(&["C-c"]);
    tmux.wait_for_gone("draft words").await;
    assert!(!tmux.exited());
    tmux.send_keys(&["C-c"]);
    tmux.wait_for_text("Press ctrl+c again to exit").await;
    assert!(!tmux.exited(), "one press on an empty editor does not quit");
    tmux.send_keys(&["C-c"]);
    until("rho to exit", || tmux.exited()).await;
    assert!(sb.server.requests().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fork_from_an_earlier_message_continues_in_a_new_file() {
    if skip_without_tmux("/fork") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server.push(streamed(&["Quokkas are marsupials."]));
    sb.server.push(streamed(&["Wombats dig."]));
    sb.server.push(streamed(&["Koalas sleep."]));
    let tmux = start(&sb).await;
    tmux.submit("tell me about quokkas");
    tmux.wait_for_text("Quokkas are marsupials.").await;
    tmux.submit("and wombats");
    tmux.wait_for_text("Wombats dig.").await;
    let original = sb.session_files();
    assert_eq!(original.len(), 1);
    tmux.submit("/fork");
    tmux.wait_for_text("Fork from which message?").await;
    tmux.send_keys(&["Down", "Enter"]);
    let screen = tmux
        .wait_for("the chosen message in the editor", |s| {
            editor(s) == ["tell me about quokkas"]
        })
        .await;
    assert!(!screen.contains("Wombats dig."), "{screen}");
    tmux.send_keys(&["C-c"]);
    tmux.wait_for("an empty editor", |s| editor(s).is_empty())
        .await;
    tmux.submit("tell me about koalas");
    tmux.wait_for_text("Koalas sleep.").await;
    assert_eq!(user_texts(&sb, 2), ["tell me about koalas"]);
    until("the fork's file", || {
        sb.session_files()
            .iter()
            .any(|f| entry_texts(f).contains(&"Koalas sleep.".to_string()))
    })
    .await;
    let files = sb.session_files();
    assert_eq!(files.len(), 2, "{files:?}");
    let fork = files.iter().find(|f| **f != original[0]).expect("new file");
    assert_eq!(entry_texts(fork), ["tell me about koalas", "Koalas sleep."]);
    let kept = entry_texts(&original[0]);
    assert_eq!(
        kept,
        [
            "tell me about quokkas",
            "Quokkas are marsupials.",
            "and wombats",
            "Wombats dig."
        ]
    );
}

/// A Python extension whose `/pick` command asks through every dialog kind and reports back.
const PICK_EXTENSION: &str = r#"
import os, sys
sys.path.insert(0, os.environ["RHO_EXT_LIB"])
from rho_extension import Extension

ext = Extension("picker")


@ext.command("pick", "pick a colour")
def pick(args):
    colour = ext.select("Pick a colour", ["red", "green", "blue"])
    note = ext.editor("Describe it", prefill=colour)
    ext.set_status("picker", "picked " + str(colour))
    ext.notify("you wrote: " + str(note).replace("\n", " / "))


ext.run()
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_extension_asks_through_the_tui_dialogs() {
    if skip_without_tmux("extension UI") {
        return;
    }
    let sb = Sandbox::new().await;
    let lib = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../extensions/python")
        .canonicalize()
        .expect("python library");
    let source = PICK_EXTENSION.replace(
        "os.environ[\"RHO_EXT_LIB\"]",
        &format!("{:?}", lib.display().to_string()),
    );
    let path = sb.cwd.join("picker.py");
    std::fs::write(&path, source).expect("write extension");
    let tmux = Tmux::start(
        &sb,
        &[
            "--model",
            "mock-model",
            "-e",
            path.to_str().expect("utf-8 path"),
        ],
    );
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    tmux.submit("/pick");
    tmux.wait_for_text("Pick a colour").await;
    tmux.send_keys(&["Down", "Enter"]);
    let screen = tmux.wait_for_text("Describe it").await;
    assert!(screen.contains("green"), "the prefill is shown: {screen}");
    tmux.send_keys(&["Enter"]);
    tmux.type_text("like grass");
    tmux.send_keys(&["C-s"]);
    // The status and the notice are separate fire-and-forget requests: wait for both.
    tmux.wait_for("the notice and the status line", |s| {
        s.contains("you wrote: green / like grass") && s.contains("picked green")
    })
    .await;
    assert!(
        sb.server.requests().is_empty(),
        "a command that only talks to the user calls no model"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_on_the_command_line_is_sent_when_the_screen_opens() {
    if skip_without_tmux("initial prompt") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server.push(streamed(&["Hello ", "back."]));
    let tmux = Tmux::start(&sb, &["--model", "mock-model", "hello from argv"]);
    let screen = tmux.wait_for_text("Hello back.").await;
    assert!(screen.contains("hello from argv"), "{screen}");
    assert_eq!(user_texts(&sb, 0), vec!["hello from argv".to_string()]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ask_rule_is_answered_in_the_confirm_dialog() {
    if skip_without_tmux("permission ask") {
        return;
    }
    let sb = Sandbox::new().await;
    std::fs::write(
        sb.agent.path().join("settings.json"),
        r#"{"permissions": {"ask": ["bash(touch *)"]}}"#,
    )
    .expect("settings");
    sb.server
        .push(tool_call("bash", r#"{"command":"touch refused.txt"}"#));
    sb.server.push(streamed(&["refused"]));
    sb.server
        .push(tool_call("bash", r#"{"command":"touch allowed.txt"}"#));
    sb.server.push(streamed(&["allowed"]));
    let tmux = start(&sb).await;
    tmux.submit("first");
    tmux.wait_for_text("Allow this tool call?").await;
    tmux.send_keys(&["n"]);
    tmux.wait_for_text("Permission denied by the user").await;
    tmux.submit("second");
    tmux.wait_for_text("bash: touch allowed.txt").await;
    tmux.send_keys(&["y"]);
    until("allowed.txt exists", || sb.cwd.join("allowed.txt").exists()).await;
    assert!(!sb.cwd.join("refused.txt").exists());
}
