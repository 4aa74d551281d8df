//! Input the session cannot take yet, and the note for input it will take later. Before
//! extensions have seen `session_start` (it runs beside the screen, as it may open a dialog),
//! everything typed is held, so no handler sees a prompt or a tool call before its
//! `session_start`. While a compaction runs, a prompt goes to the session, which runs it once
//! the compaction is over (never beside it, never before the summary); the screen only says so,
//! as pi's interactive mode does ("Queued message for after compaction").

use rho_ai::ImageContent;
use rho_core::agent_session::{AgentSession, PromptOptions, StreamingBehavior};
use tokio::sync::oneshot;

use super::{Control, Cx, HeldInput, InitialPrompt};
use crate::shared::Shared;

impl Control {
    /// Holds `text` before the session started (returns `None`); otherwise hands it back,
    /// with a note when the session will run it after a compaction.
    pub(super) fn hold_until_ready(
        &mut self,
        text: String,
        images: Vec<ImageContent>,
        behavior: StreamingBehavior,
        cx: &mut Cx,
    ) -> Option<(String, Vec<ImageContent>)> {
        if self.started {
            let session = &cx.shared.session;
            if session.is_compacting() && !is_extension_command(session, &text) {
                cx.screen
                    .notice("Queued message for after compaction".into(), false);
            }
            return Some((text, images));
        }
        self.held.push(HeldInput {
            text,
            images,
            behavior,
        });
        None
    }

    /// Extensions have seen `session_start`: the command line's prompt goes first, then what
    /// was typed meanwhile.
    pub fn session_started(&mut self, first: Option<InitialPrompt>, cx: &mut Cx) {
        self.started = true;
        match first {
            Some(first) if self.held.is_empty() => self.submit_prompt(first.text, first.images, cx),
            Some(first) => {
                let input = HeldInput {
                    text: first.text,
                    images: first.images,
                    behavior: StreamingBehavior::Steer,
                };
                self.held.insert(0, input);
                self.release_held(cx.shared);
            }
            None => self.release_held(cx.shared),
        }
    }

    /// Sends the held messages once the session started, in order: each is accepted
    /// (started, or queued behind the run the one before started) before the next is sent.
    fn release_held(&mut self, shared: &Shared) {
        if self.held.is_empty() || !self.started {
            return;
        }
        let held = std::mem::take(&mut self.held);
        let session = shared.session.clone();
        let tx = self.notices.clone();
        tokio::spawn(async move {
            for input in held {
                let (accepted, on_accept) = oneshot::channel();
                let options = PromptOptions {
                    images: input.images,
                    streaming_behavior: Some(input.behavior),
                    preflight: Some(Box::new(move |_| {
                        let _ = accepted.send(());
                    })),
                    ..PromptOptions::default()
                };
                let (session, tx) = (session.clone(), tx.clone());
                tokio::spawn(async move {
                    if let Err(e) = session.prompt(&input.text, options).await {
                        let text = format!("Failed to send queued message: {e}");
                        tx.notice(text, true);
                    }
                });
                let _ = on_accept.await;
            }
        });
    }
}

fn is_extension_command(session: &AgentSession, text: &str) -> bool {
    rho_extension_host::commands::parse_command(text.trim())
        .is_some_and(|(name, _)| session.extensions().get_command(name).is_some())
}
