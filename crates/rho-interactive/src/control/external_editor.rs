//! Ctrl+G (pi's `app.editor.external`): the editor's text (pastes expanded) goes to
//! `externalEditor`, else `$VISUAL`, else `$EDITOR`, else `nano`, in a temporary
//! `prompt.md`; rho hands the terminal over while it runs and takes what was saved as the new
//! text. A failed launch or a non-zero exit leaves the text as it was, with pi's notice.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use super::editor_error::EditorError;
use super::{Control, ControlMsg, Cx};

/// The command Ctrl+G runs: the setting, then `$VISUAL`, then `$EDITOR`, then `nano` (pi).
pub fn editor_command(setting: Option<&str>) -> String {
    let env = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    setting
        .map(str::to_string)
        .or_else(|| env("VISUAL"))
        .or_else(|| env("EDITOR"))
        .unwrap_or_else(|| "nano".into())
}

impl Control {
    /// Opens the external editor on the editor's text; the screen is not drawn until it exits
    /// ([`ControlMsg::EditorClosed`]).
    pub(super) fn open_external_editor(&mut self, cx: &mut Cx) {
        let setting = cx
            .shared
            .session
            .with_settings(|s| s.external_editor().map(str::to_string));
        let command = editor_command(setting.as_deref());
        let content = cx.screen.editor.expanded_text();
        cx.screen.hand_over();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let handover = rho_tui::terminal::hand_over();
            let result = edit(&command, &content).await;
            drop(handover);
            tx.send(ControlMsg::EditorClosed(result));
        });
    }

    /// The external editor exited: its text replaces the editor's, or pi's notice says why not.
    pub(super) fn editor_closed(&mut self, result: Result<String, EditorError>, cx: &mut Cx) {
        cx.screen.retake();
        match result {
            Ok(text) => cx.screen.editor.set_text(&text),
            Err(why) => cx.screen.notice(why.to_string(), false),
        }
    }
}

/// Runs `command` on a temporary file holding `content`; the file's text afterwards (a BOM
/// and one final newline taken off), or pi's message for why not.
async fn edit(command: &str, content: &str) -> Result<String, EditorError> {
    let dir = temp_dir().map_err(EditorError::TempDir)?;
    let file = dir.join("prompt.md");
    let result = run(command, &file, content).await;
    let _ = std::fs::remove_dir_all(&dir);
    result
}

async fn run(command: &str, file: &Path, content: &str) -> Result<String, EditorError> {
    std::fs::write(file, content).map_err(|source| EditorError::Write {
        path: file.to_path_buf(),
        source,
    })?;
    let launch = || EditorError::Launch(command.to_string());
    let mut words = command.split_whitespace();
    let program = words.next().ok_or_else(launch)?;
    println!("Launching external editor: {command}\nrho will resume when the editor exits.");
    let status = tokio::process::Command::new(program)
        .args(words)
        .arg(file)
        .status()
        .await
        .map_err(|_| launch())?;
    if !status.success() {
        return Err(EditorError::Exit(exit_description(&status)));
    }
    let text = std::fs::read_to_string(file).map_err(|source| EditorError::Read {
        path: file.to_path_buf(),
        source,
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    Ok(text.strip_suffix('\n').unwrap_or(text).to_string())
}

/// `code N`, or the signal that ended the editor (pi names it).
fn exit_description(status: &std::process::ExitStatus) -> String {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("signal {signal}");
        }
    }
    format!("code {}", status.code().unwrap_or(-1))
}

/// A new private folder under the temp dir.
fn temp_dir() -> std::io::Result<PathBuf> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::SeqCst);
    let dir = std::env::temp_dir().join(format!("rho-editor-{}-{n}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    Ok(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_saved_text_comes_back_and_a_failure_leaves_it() {
        let dir = tempfile::tempdir().expect("tempdir");
        let script = dir.path().join("ed.sh");
        std::fs::write(
            &script,
            "#!/bin/sh\nprintf 'edited: %s\\n' \"$(cat \"$1\")\" > \"$1\"\n",
        )
        .expect("script");
        let fail = dir.path().join("fail.sh");
        std::fs::write(&fail, "#!/bin/sh\nexit 3\n").expect("script");
        for s in [&script, &fail] {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(s, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        let edited = edit(&script.display().to_string(), "hello").await;
        assert_eq!(edited.ok().as_deref(), Some("edited: hello"));
        let failed = edit(&fail.display().to_string(), "hello").await;
        assert_eq!(
            failed.map_err(|e| e.to_string()),
            Err("External editor exited with code 3; prompt unchanged".into())
        );
        let missing = edit("/nonexistent/editor --wait", "x").await;
        assert_eq!(
            missing.map_err(|e| e.to_string()),
            Err("Failed to launch external editor: /nonexistent/editor --wait".into())
        );
        assert_eq!(editor_command(Some("code --wait")), "code --wait");
    }
}
