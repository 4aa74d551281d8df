//! What happens to submitted text: `!`/`!!` run bash, built-in slash commands run here, and
//! everything else (extension commands, `/skill:`, templates included) goes to the session's
//! prompt, as a steering message while the agent runs. Image files named in the text are
//! attached.

use std::path::Path;
use std::sync::Arc;

use rho_ai::ImageContent;
use rho_core::agent_session::{BashOptions, OutputFn, PromptOptions, StreamingBehavior};
use rho_tui::components::BashExecutionView;
use rho_tui::View;

use super::{Control, ControlMsg, Cx};
use crate::screen::Screen;
use crate::shared::Shared;
use rho_tools::image::{detect_image_mime, encode_base64};

impl Control {
    /// Enter: a command, bash, a prompt, or (while the agent runs) a steering message.
    pub fn submit(&mut self, text: String, cx: &mut Cx) {
        let trimmed = text.trim();
        if trimmed.is_empty() {
            return;
        }
        // What was sent, and what it brings, shows at the end of the transcript.
        cx.screen.follow_end();
        if let Some(rest) = trimmed.strip_prefix("!!") {
            return self.run_bash(rest.trim().to_string(), true, cx);
        }
        if let Some(rest) = trimmed.strip_prefix('!') {
            return self.run_bash(rest.trim().to_string(), false, cx);
        }
        if trimmed.starts_with('/') && self.run_command(trimmed, cx) {
            return;
        }
        let images = attached_images(trimmed, cx.shared.session.cwd());
        self.submit_prompt(text, images, cx);
    }

    /// Sends `text` as a prompt; while the agent runs, as a steering message.
    pub(super) fn submit_prompt(&mut self, text: String, images: Vec<ImageContent>, cx: &mut Cx) {
        let Some((text, images)) =
            self.hold_until_ready(text, images, StreamingBehavior::Steer, cx)
        else {
            return;
        };
        let behavior = cx.shared.is_busy().then_some(StreamingBehavior::Steer);
        self.prompt_with(text, images, behavior, cx.shared);
    }

    /// Alt+Enter: a follow-up while the agent runs; a plain prompt otherwise.
    pub(super) fn submit_follow_up(&mut self, text: String, cx: &mut Cx) {
        if !cx.shared.is_busy() {
            // Idle, Alt+Enter is Enter: commands and `!` work as usual.
            return self.submit(text, cx);
        }
        if text.trim().is_empty() {
            return;
        }
        let images = attached_images(&text, cx.shared.session.cwd());
        let Some((text, images)) =
            self.hold_until_ready(text, images, StreamingBehavior::FollowUp, cx)
        else {
            return;
        };
        self.prompt_with(text, images, Some(StreamingBehavior::FollowUp), cx.shared);
    }

    fn prompt_with(
        &mut self,
        text: String,
        images: Vec<ImageContent>,
        streaming_behavior: Option<StreamingBehavior>,
        shared: &Shared,
    ) {
        let session = shared.session.clone();
        let tx = self.notices.clone();
        let options = PromptOptions {
            images,
            streaming_behavior,
            ..PromptOptions::default()
        };
        tokio::spawn(async move {
            if let Err(e) = session.prompt(&text, options).await {
                tx.notice(e.to_string(), true);
            }
        });
    }

    /// `!cmd` (recorded for the model) or `!!cmd` (shown only). The result appears in the
    /// transcript when the command ends; a command run while the agent works reaches the
    /// model after the run (the session defers it).
    fn run_bash(&mut self, command: String, exclude_from_context: bool, cx: &mut Cx) {
        if command.is_empty() {
            return;
        }
        if cx.shared.session.is_bash_running() {
            cx.screen.notice(
                "A bash command is already running (esc to stop it)".into(),
                true,
            );
            return;
        }
        let live = cx.screen.transcript.push(View::Bash(BashExecutionView {
            command: command.clone(),
            output: String::new(),
            exit_code: None,
            cancelled: false,
            excluded: exclude_from_context,
        }));
        self.running_bash = Some(live);
        let session = cx.shared.session.clone();
        let tx = self.tx.clone();
        let chunks = tx.clone();
        let on_output: OutputFn = Arc::new(move |chunk: &str| {
            chunks.send(ControlMsg::BashOutput(chunk.to_string()));
        });
        let options = BashOptions {
            exclude_from_context,
            on_output: Some(on_output),
        };
        tokio::spawn(async move {
            let msg = match session.execute_bash(&command, options).await {
                Ok(message) => ControlMsg::Bash(message),
                Err(e) => ControlMsg::BashFailed(e.to_string()),
            };
            tx.send(msg);
        });
    }

    /// More output of the running `!` command, into its live view.
    pub(super) fn bash_output(&mut self, chunk: &str, screen: &mut Screen) {
        if let Some(i) = self.running_bash {
            screen.transcript.update(i, |v| {
                if let View::Bash(b) = v {
                    b.output.push_str(chunk);
                }
            });
        }
    }

    /// Replaces the live view of the `!` command with its result.
    pub(super) fn bash_finished(
        &mut self,
        message: rho_protocol::agent::BashExecutionMessage,
        screen: &mut Screen,
    ) {
        let done = View::Bash(BashExecutionView {
            command: message.command,
            output: message.output,
            exit_code: message.exit_code,
            cancelled: message.cancelled,
            excluded: message.exclude_from_context == Some(true),
        });
        match self.running_bash.take() {
            Some(i) => screen.transcript.update(i, |v| *v = done),
            None => {
                screen.transcript.push(done);
            }
        }
        screen.refresh_branch();
    }

    /// The `!` command could not run: its live view goes.
    pub(super) fn bash_failed(&mut self, error: String, screen: &mut Screen) {
        if let Some(i) = self.running_bash.take() {
            screen.transcript.update(i, |v| *v = View::Empty);
        }
        screen.notice(error, true);
    }
}

/// Image files the text names (`@path`, a quoted path, or a bare path, as a terminal pastes a
/// dragged file), read and encoded. Unreadable or non-image files are left as text.
pub fn attached_images(text: &str, cwd: &Path) -> Vec<ImageContent> {
    let mut images = Vec::new();
    for word in text.split_whitespace() {
        let word = word
            .trim_start_matches('@')
            .trim_matches(|c| c == '"' || c == '\'');
        let lower = word.to_ascii_lowercase();
        let looks_like_image = [".png", ".jpg", ".jpeg", ".gif", ".webp"]
            .iter()
            .any(|ext| lower.ends_with(ext));
        if !looks_like_image {
            continue;
        }
        let path = match word.strip_prefix("~/") {
            Some(rest) => match std::env::var_os("HOME") {
                Some(home) => Path::new(&home).join(rest),
                None => continue,
            },
            None => cwd.join(word),
        };
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        if let Some(mime) = detect_image_mime(&bytes) {
            images.push(ImageContent {
                data: encode_base64(&bytes),
                mime_type: mime.to_string(),
            });
        }
    }
    images
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn image_paths_in_the_text_are_attached_and_other_words_are_not() {
        let dir = tempfile::tempdir().expect("tempdir");
        let png = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0];
        std::fs::write(dir.path().join("shot.png"), png).expect("write");
        std::fs::write(dir.path().join("fake.png"), b"not an image").expect("write");
        let images = attached_images(
            "look at @shot.png and fake.png and missing.jpg please",
            dir.path(),
        );
        assert_eq!(images.len(), 1);
        assert_eq!(images[0].mime_type, "image/png");
    }
}
