//! Print and JSON modes of the real binary against a loopback OpenAI-compatible server:
//! output streams, exit codes, event order, `@file` arguments, piped stdin.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{chat_messages, read_jsonl, reply, stderr, stdout, Sandbox};
use rho_testkit::openai_chat;
use serde_json::Value;

#[tokio::test]
async fn auth_3_print_mode_with_a_models_json_key_writes_the_reply_and_persists_a_pi_session() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("Hello there"));
    let out = sb.rho(&["-p", "say hi"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Hello there\n");

    let req = &sb.server.requests()[0];
    assert_eq!(req.path, "/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer test-key"));
    let body = req.json();
    assert_eq!(body["model"], "mock-model");
    let msgs = chat_messages(&body);
    assert_eq!(
        msgs.last().expect("user"),
        &("user".into(), "say hi".into())
    );

    // One session file: header, model_change, thinking_level_change, the system prompt and
    // tools (pi 1.x's system message, D18), user, assistant.
    let files = sb.session_files();
    assert_eq!(files.len(), 1, "{files:?}");
    let lines = read_jsonl(&files[0]);
    let types: Vec<&str> = lines
        .iter()
        .map(|l| l["type"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        types,
        [
            "session",
            "model_change",
            "thinking_level_change",
            "message",
            "message",
            "message"
        ]
    );
    let system = &lines[3]["message"];
    assert_eq!(system["role"], "system");
    let sections: Vec<&str> = system["sections"]
        .as_object()
        .map(|s| s.keys().map(String::as_str).collect())
        .unwrap_or_default();
    assert_eq!(sections, ["preamble", "tools", "rules", "docs", "cwd"]);
    let tools: Vec<&str> = system["toolsAdded"]
        .as_array()
        .map(|t| t.iter().filter_map(|t| t["name"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(tools, ["read", "bash", "edit", "write"]);
    assert_eq!(lines[0]["cwd"], sb.cwd.to_string_lossy().as_ref());
    assert_eq!(
        (&lines[1]["provider"], &lines[1]["modelId"]),
        (&Value::from("mock"), &Value::from("mock-model"))
    );
    // Not a reasoning model: the default `medium` is clamped to `off`.
    assert_eq!(lines[2]["thinkingLevel"], "off");
    assert_eq!(lines[5]["message"]["stopReason"], "stop");

    // auth.json was created private.
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(sb.agent.path().join("auth.json")).expect("auth.json");
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
        let text = std::fs::read_to_string(sb.agent.path().join("auth.json")).expect("read");
        assert_eq!(text, "{}");
    }
}

#[tokio::test]
async fn print_mode_without_a_model_names_what_works_there() {
    let sb = Sandbox::new().await;
    sb.write_models(&serde_json::json!({"providers": {}}));
    let out = sb.rho(&["-p", "--no-session", "hello"], None).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    let err = stderr(&out);
    // Issue 18.9: print mode has no `/model`; the text names what works there.
    assert!(!err.contains("Run '/model"), "stderr: {err}");
    for needle in ["--model", "ANTHROPIC_API_KEY", "auth.json", "models.json"] {
        assert!(err.contains(needle), "stderr names {needle}: {err}");
    }
    assert!(sb.server.requests().is_empty());
}

#[tokio::test]
async fn print_mode_without_a_key_names_what_works_outside_the_editor() {
    let sb = Sandbox::new().await;
    let out = sb
        .rho(
            &[
                "-p",
                "--no-session",
                "--model",
                "anthropic/claude-sonnet-4-5",
                "hi",
            ],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("No API key found for anthropic"),
        "stderr: {err}"
    );
    assert!(!err.contains("/set api-key"), "stderr: {err}");
    for needle in ["ANTHROPIC_API_KEY", "--api-key", "auth.json"] {
        assert!(err.contains(needle), "stderr names {needle}: {err}");
    }
}

#[tokio::test]
async fn list_models_without_keys_says_where_keys_and_models_go() {
    let sb = Sandbox::new().await;
    sb.write_models(&serde_json::json!({"providers": {}}));
    let out = sb.rho(&["--list-models"], None).await;
    assert_eq!(out.status.code(), Some(0));
    let text = stdout(&out);
    assert!(text.starts_with("No models available."), "{text}");
    for needle in [
        "auth.json",
        "models.json",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
    ] {
        assert!(text.contains(needle), "names {needle}: {text}");
    }
}

#[tokio::test]
async fn provider_error_fails_print_mode_but_not_json_mode() {
    let sb = Sandbox::new().await;
    let body = r#"{"error":{"message":"Invalid API key provided","type":"invalid_request_error","code":"invalid_api_key"}}"#;
    sb.server.push(openai_chat::error(401, body));
    let out = sb.rho(&["-p", "hi"], None).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout(&out), "");
    assert!(
        stderr(&out).contains("Invalid API key provided"),
        "stderr: {}",
        stderr(&out)
    );

    sb.server.push(openai_chat::error(401, body));
    let out = sb.rho(&["--mode", "json", "hi"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let last: Value =
        serde_json::from_str(stdout(&out).lines().last().expect("lines")).expect("json line");
    assert_eq!(last["type"], "agent_end");
}

#[tokio::test]
async fn json_mode_prints_the_header_then_events_in_order() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("Hi!"));
    let out = sb
        .rho(&["--mode", "json", "--no-session", "hello"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let lines: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is JSON"))
        .collect();
    let header = &lines[0];
    assert_eq!(header["type"], "session");
    assert_eq!(header["version"], 3);
    assert_eq!(header["cwd"], sb.cwd.to_string_lossy().as_ref());
    assert!(header["id"].as_str().is_some_and(|id| id.len() == 36));

    let mut kinds: Vec<String> = Vec::new();
    for l in &lines[1..] {
        let mut kind = l["type"].as_str().expect("type").to_string();
        if let Some(role) = l["message"]["role"].as_str() {
            kind = format!("{kind}:{role}");
        }
        if kinds.last() != Some(&kind) || kind != "message_update:assistant" {
            kinds.push(kind);
        }
    }
    assert_eq!(
        kinds,
        [
            "agent_start",
            "turn_start",
            "message_start:user",
            "message_end:user",
            "message_start:assistant",
            "message_update:assistant",
            "message_end:assistant",
            "turn_end:assistant",
            "agent_end",
        ]
    );
    let end = lines
        .iter()
        .find(|l| l["type"] == "message_end" && l["message"]["role"] == "assistant")
        .expect("assistant end");
    assert_eq!(end["message"]["content"][0]["text"], "Hi!");
    let deltas: String = lines
        .iter()
        .filter(|l| l["assistantMessageEvent"]["type"] == "text_delta")
        .map(|l| l["assistantMessageEvent"]["delta"].as_str().expect("delta"))
        .collect();
    assert_eq!(deltas, "Hi!");
}

#[tokio::test]
async fn file_arguments_inline_text_and_attach_images() {
    let sb = Sandbox::new().await;
    std::fs::write(sb.cwd.join("notes.txt"), "line one\nline two").expect("write");
    let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDRfake";
    std::fs::write(sb.cwd.join("pic.png"), png).expect("write");
    sb.server.push(reply("Seen."));
    let out = sb
        .rho(
            &[
                "--model",
                "mock/mock-vision",
                "-p",
                "@notes.txt",
                "@pic.png",
                "describe",
            ],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let body = sb.server.last_body();
    let user = body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .rev()
        .find(|m| m["role"] == "user")
        .expect("user message");
    let parts = user["content"].as_array().expect("text + image parts");
    let cwd = sb.cwd.display();
    assert_eq!(
        parts[0]["text"],
        format!(
            "<file name=\"{cwd}/notes.txt\">\nline one\nline two\n</file>\n<file name=\"{cwd}/pic.png\"></file>\ndescribe"
        )
    );
    assert_eq!(parts[1]["type"], "image_url");
    assert_eq!(
        parts[1]["image_url"]["url"],
        "data:image/png;base64,iVBORw0KGgoAAAANSUhEUmZha2U="
    );
}

#[tokio::test]
async fn missing_file_argument_fails_before_any_request() {
    let sb = Sandbox::new().await;
    let out = sb.rho(&["-p", "@absent.md", "go"], None).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr(&out).trim(),
        format!("Error: File not found: {}/absent.md", sb.cwd.display())
    );
    assert!(sb.server.requests().is_empty());
}

#[tokio::test]
async fn piped_stdin_prefixes_the_first_message_and_later_messages_follow() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("first answer"));
    sb.server.push(reply("second answer"));
    // No -p: a non-TTY stdin selects print mode.
    let out = sb
        .rho(
            &["--no-session", "Summarize: ", "and then?"],
            Some("  piped text\n"),
        )
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "second answer\n");
    let reqs = sb.server.requests();
    assert_eq!(reqs.len(), 2);
    let first = chat_messages(&reqs[0].json());
    assert_eq!(first.last().expect("user").1, "piped textSummarize: ");
    let second = chat_messages(&reqs[1].json());
    let texts: Vec<&str> = second.iter().map(|(_, t)| t.as_str()).collect();
    assert_eq!(
        &texts[texts.len() - 3..],
        ["piped textSummarize: ", "first answer", "and then?"]
    );
}

#[cfg(unix)]
#[tokio::test]
async fn sigterm_and_sighup_exit_with_pi_codes() {
    for (signal, code) in [("-TERM", 143), ("-HUP", 129)] {
        let sb = Sandbox::new().await;
        sb.server.push(
            openai_chat::ChatStream::new("c1", "mock-model")
                .role()
                .text("partial")
                .response_then_hang(),
        );
        let mut child = sb.command(&["-p", "wait"]).spawn().expect("spawn");
        drop(child.stdin.take());
        sb.server.wait_for_requests(1).await;
        let pid = child.id().expect("pid").to_string();
        let status = std::process::Command::new("kill")
            .args([signal, &pid])
            .status()
            .expect("kill runs");
        assert!(status.success());
        let out = child.wait_with_output().await.expect("exits");
        assert_eq!(out.status.code(), Some(code), "{signal}");
    }
}

/// The system message of the last request.
fn system_prompt(sb: &Sandbox) -> String {
    let body = sb.server.last_body();
    common::chat_messages(&body)
        .into_iter()
        .find(|(role, _)| role == "system")
        .map(|(_, text)| text)
        .expect("a system message")
}

#[tokio::test]
async fn system_prompt_carries_tools_context_files_and_appends() {
    let sb = Sandbox::new().await;
    std::fs::write(sb.cwd.join("AGENTS.md"), "Always run cargo fmt.").expect("write");
    std::fs::create_dir_all(sb.cwd.join(".rho")).expect("mkdir");
    std::fs::write(sb.cwd.join(".rho/APPEND_SYSTEM.md"), "Answer in English.").expect("write");
    sb.server.push(reply("ok"));
    let out = sb
        .rho(&["--approve", "--no-session", "-p", "x"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let prompt = system_prompt(&sb);
    let cwd = sb.cwd.display().to_string();
    for needle in [
        "- read:".to_string(),
        "- bash:".into(),
        "<addendum>\nAnswer in English.\n</addendum>".into(),
        "<project_context>\nProject-specific instructions and guidelines:".into(),
        format!("<project_instructions path=\"{cwd}/AGENTS.md\">\nAlways run cargo fmt.\n</project_instructions>"),
        format!("\n\n<cwd>\n{cwd}\n</cwd>"),
    ] {
        assert!(prompt.contains(&needle), "missing {needle:?} in:\n{prompt}");
    }
    assert!(!prompt.contains("- grep:"), "grep is not a default tool");

    sb.server.push(reply("ok"));
    let args = [
        "--approve",
        "--no-session",
        "-nc",
        "-nt",
        "--system-prompt",
        "Custom base.",
        "-p",
        "x",
    ];
    let out = sb.rho(&args, None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let prompt = system_prompt(&sb);
    assert!(
        prompt.starts_with("Custom base.\n\n<addendum>\nAnswer in English."),
        "{prompt}"
    );
    assert!(!prompt.contains("project_context") && !prompt.contains("- read:"));

    sb.server.push(reply("ok"));
    let out = sb
        .rho(&["--no-session", "--tools", "grep,ls", "-p", "x"], None)
        .await;
    assert_eq!(out.status.code(), Some(0));
    let prompt = system_prompt(&sb);
    assert!(prompt.contains("- grep:") && prompt.contains("- ls:") && !prompt.contains("- bash:"));
}

/// Issue 18.6: an overflow whose compaction fails leaves no reply to print; the error must
/// still reach stderr with exit 1 instead of a silent success.
#[tokio::test]
async fn print_mode_reports_an_overflow_it_cannot_recover_from() {
    let sb = Sandbox::new().await;
    let overflow = r#"{"error":{"message":"This model's maximum context length is 32000 tokens. However, your messages resulted in 50000 tokens.","code":"context_length_exceeded"}}"#;
    sb.server
        .push(rho_testkit::server::MockResponse::error(400, overflow));
    let out = sb.rho(&["-p", "summarize everything"], None).await;
    assert_eq!(stdout(&out), "");
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    // Nothing before the first request to summarise: the provider's error is the answer
    // (pi 1.6 drops it and exits 0 without a word).
    assert!(
        stderr(&out).contains("maximum context length is 32000 tokens"),
        "stderr names the failure: {}",
        stderr(&out)
    );
    assert_eq!(sb.server.requests().len(), 1, "no compaction was tried");
}
