//! The terminal a pi 1.6 user knows, with the real binary in tmux (`extended-keys on`, as pi's
//! tmux.md asks): Shift+Enter is a new line and Ctrl+Enter neither sends nor breaks the line,
//! Ctrl+G edits the prompt in `$VISUAL`, Ctrl+Z suspends to the shell and `fg` brings rho
//! back, and SIGTERM leaves the terminal as it was (cooked mode, paste mode and the keyboard
//! protocols off). Skipped (with a notice) where tmux is not installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::tui;

use std::path::Path;

use common::Sandbox;
use tui::{editor, footer, skip_without_tmux, streamed, until, user_texts, Tmux};

/// rho on the mock model in a tmux with extended keys, once its footer is drawn.
async fn start_extended(sb: &Sandbox, env: &[(&str, &str)]) -> Tmux {
    let tmux = Tmux::start_extended(sb, env, &["--model", "mock-model"]);
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    tmux
}

fn write_script(path: &Path, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}")).expect("script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("chmod");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shift_enter_breaks_the_line_and_ctrl_enter_is_a_key_of_its_own() {
    if skip_without_tmux("shift+enter") {
        return;
    }
    let sb = Sandbox::new().await;
    sb.server.push(streamed(&["Two lines read."]));
    let tmux = start_extended(&sb, &[]).await;
    tmux.type_text("first");
    // Once rho echoes the typing it has read tmux's answer to its keyboard query (which came
    // before the typing) and turned the protocol on; before that, tmux cannot encode
    // Shift+Enter and types its name instead (seen under load).
    tmux.wait_for("the first line typed", |s| editor(s) == ["first"])
        .await;
    tmux.send_keys(&["S-Enter"]);
    tmux.type_text("second");
    tmux.wait_for("two editor lines", |s| editor(s) == ["first", "second"])
        .await;
    // Ctrl+Enter is bound to nothing: neither a new line nor a submission.
    tmux.send_keys(&["C-Enter"]);
    tmux.type_text("!");
    tmux.wait_for("the mark typed after ctrl+enter", |s| {
        editor(s) == ["first", "second!"]
    })
    .await;
    assert!(sb.server.requests().is_empty());
    // Ctrl+J is a new line too, then Enter sends all of it.
    tmux.send_keys(&["C-j"]);
    tmux.type_text("third");
    tmux.wait_for("three editor lines", |s| editor(s).len() == 3)
        .await;
    tmux.send_keys(&["Enter"]);
    tmux.wait_for_text("Two lines read.").await;
    assert_eq!(user_texts(&sb, 0), ["first\nsecond!\nthird"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_g_edits_the_prompt_in_the_external_editor() {
    if skip_without_tmux("ctrl+g") {
        return;
    }
    let sb = Sandbox::new().await;
    let seen = sb.cwd.join("seen.txt");
    let script = sb.cwd.join("ed.sh");
    write_script(
        &script,
        &format!(
            "cat \"$1\" > '{}'\nprintf 'rewritten by the editor\\nand a second line\\n' > \"$1\"\n",
            seen.display()
        ),
    );
    let visual = script.display().to_string();
    let tmux = start_extended(&sb, &[("VISUAL", &visual)]).await;
    tmux.type_text("draft to edit");
    tmux.wait_for("the draft", |s| editor(s) == ["draft to edit"])
        .await;
    tmux.send_keys(&["C-g"]);
    let screen = tmux
        .wait_for("the edited prompt", |s| {
            editor(s) == ["rewritten by the editor", "and a second line"]
        })
        .await;
    assert!(
        screen.contains("mock-model"),
        "rho drew itself again:\n{screen}"
    );
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), "draft to edit");
    // A failing editor leaves the prompt as it was, with pi's notice.
    write_script(&script, "exit 4\n");
    tmux.send_keys(&["C-g"]);
    let screen = tmux
        .wait_for_text("External editor exited with code 4; prompt unchanged")
        .await;
    assert_eq!(
        editor(&screen),
        ["rewritten by the editor", "and a second line"]
    );
}

/// Types `command` at the shell prompt and runs it.
fn run_in_shell(tmux: &Tmux, command: &str) {
    tmux.type_text(command);
    tmux.send_keys(&["Enter"]);
}

/// The terminal's line discipline as the shell in `tmux` sees it: `icanon,echo` when cooked,
/// `-icanon,-echo` when left raw. `marker` tells this answer from earlier ones.
async fn line_modes(tmux: &Tmux, marker: &str) -> String {
    run_in_shell(
        tmux,
        &format!(
            "echo \"{marker}:$(stty -a | tr ' ;' '\\n\\n' | grep -x -e icanon -e -icanon -e echo -e -echo | paste -sd, -)\""
        ),
    );
    let prefix = format!("{marker}:");
    let screen = tmux
        .wait_for(&format!("{marker} from stty"), |s| {
            s.lines().any(|l| l.starts_with(&prefix))
        })
        .await;
    let line = screen
        .lines()
        .find(|l| l.starts_with(&prefix))
        .unwrap_or_default();
    line[prefix.len()..].trim().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_z_suspends_to_the_shell_and_fg_brings_rho_back() {
    if skip_without_tmux("ctrl+z") {
        return;
    }
    let sb = Sandbox::new().await;
    let tmux = Tmux::shell(&sb, &[]);
    tmux.wait_for_text("$").await;
    run_in_shell(
        &tmux,
        &format!("{} --model mock-model", env!("CARGO_BIN_EXE_rho")),
    );
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    tmux.type_text("kept while away");
    tmux.wait_for("the draft", |s| editor(s) == ["kept while away"])
        .await;
    tmux.send_keys(&["C-z"]);
    tmux.wait_for_text("Stopped").await;
    // The shell got a cooked terminal back.
    assert_eq!(line_modes(&tmux, "SUSPENDED").await, "icanon,echo");
    run_in_shell(&tmux, "fg");
    tmux.wait_for("rho drawn again with the draft", |s| {
        editor(s) == ["kept while away"] && footer(s).contains("mock-model")
    })
    .await;
    // The keyboard protocol is asked for again: Shift+Enter still breaks the line.
    tmux.send_keys(&["S-Enter"]);
    tmux.type_text("more");
    tmux.wait_for("a second line after fg", |s| {
        editor(s) == ["kept while away", "more"]
    })
    .await;
}

/// The pid of the (only) child of the pane's shell.
fn child_of_shell(tmux_pid: u32) -> Option<u32> {
    let children =
        std::fs::read_to_string(format!("/proc/{tmux_pid}/task/{tmux_pid}/children")).ok()?;
    children.split_whitespace().next()?.parse().ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_gives_the_terminal_back_as_it_was() {
    if skip_without_tmux("sigterm") || !Path::new("/proc/self/task").exists() {
        return;
    }
    let sb = Sandbox::new().await;
    let tmux = Tmux::shell(&sb, &[]);
    tmux.wait_for_text("$").await;
    let log = sb.agent.path().join("terminal.log");
    tmux.record(&log);
    run_in_shell(
        &tmux,
        &format!(
            "{} --model mock-model; echo exit=$?",
            env!("CARGO_BIN_EXE_rho")
        ),
    );
    tmux.wait_for("the footer", |s| footer(s).contains("mock-model"))
        .await;
    let shell: u32 = tmux.pane_pid();
    let mut rho = None;
    until("rho's pid", || {
        rho = child_of_shell(shell);
        rho.is_some()
    })
    .await;
    let rho = rho.unwrap();
    // Wait for the keyboard protocol to be settled (tmux answers with modifyOtherKeys).
    until("modifyOtherKeys asked for", || {
        std::fs::read(&log).is_ok_and(|b| contains(&b, b"\x1b[>4;2m"))
    })
    .await;
    let killed = std::process::Command::new("kill")
        .args(["-TERM", &rho.to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    tmux.wait_for_text("exit=143").await;
    assert_eq!(line_modes(&tmux, "AFTERTERM").await, "icanon,echo");
    let bytes = std::fs::read(&log).unwrap();
    let last_frame = bytes
        .windows(b"\x1b[?2026l".len())
        .rposition(|w| w == b"\x1b[?2026l")
        .expect("a frame was drawn");
    let after = &bytes[last_frame..];
    for (what, seq) in [
        ("bracketed paste off", b"\x1b[?2004l".as_slice()),
        ("kitty flags popped", b"\x1b[<u"),
        ("modifyOtherKeys off", b"\x1b[>4;0m"),
        ("cursor shown", b"\x1b[?25h"),
    ] {
        assert!(contains(after, seq), "{what} missing after the last frame");
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctrl_v_pastes_a_clipboard_image_as_a_file_and_text_as_text() {
    if skip_without_tmux("ctrl+v") {
        return;
    }
    let sb = Sandbox::new().await;
    // A stand-in for xclip (X11), answering as the real one does.
    let bin = sb.cwd.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let text_only = sb.cwd.join("text-only");
    write_script(
        &bin.join("xclip"),
        &format!(
            "case \"$*\" in\n\
             *TARGETS*) if [ -f '{flag}' ]; then printf 'TARGETS\\nUTF8_STRING\\n'; \
             else printf 'TARGETS\\nimage/png\\nUTF8_STRING\\n'; fi ;;\n\
             *image/png*) printf 'PNGBYTES' ;;\n\
             *-out*) printf 'from the clipboard' ;;\n\
             *) exit 1 ;;\n\
             esac\n",
            flag = text_only.display()
        ),
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let tmux = start_extended(&sb, &[("PATH", &path), ("DISPLAY", ":99")]).await;
    tmux.send_keys(&["C-v"]);
    let screen = tmux
        .wait_for("the image's path", |s| s.contains("rho-clipboard-"))
        .await;
    let pasted = editor(&screen).join("");
    assert!(pasted.ends_with(".png"), "{screen}");
    assert_eq!(std::fs::read(&pasted).unwrap(), b"PNGBYTES");
    let _ = std::fs::remove_file(&pasted);
    tmux.send_keys(&["C-c"]);
    tmux.wait_for("an empty editor", |s| editor(s).is_empty())
        .await;
    std::fs::write(&text_only, "").unwrap();
    tmux.send_keys(&["C-v"]);
    tmux.wait_for("the clipboard's text", |s| {
        editor(s) == ["from the clipboard"]
    })
    .await;
}
