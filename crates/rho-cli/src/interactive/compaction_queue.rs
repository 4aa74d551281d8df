//! Input while a compaction runs, as pi's interactive mode: a prompt is held by the screen
//! ("Queued message for after compaction") and sent when the compaction is over, so it neither
//! starts a second run beside the compaction nor reaches the model before the summary.
//! Extension commands still run at once.

use rho_ai::ImageContent;
use rho_core::agent_session::{PromptOptions, StreamingBehavior};
use tokio::sync::oneshot;

use super::app::{App, AppMsg};

/// A message typed during a compaction.
pub struct HeldInput {
    text: String,
    images: Vec<ImageContent>,
    behavior: StreamingBehavior,
}

impl App {
    /// Holds `text` when a compaction runs (returns `None`); otherwise hands it back.
    pub(super) fn hold_during_compaction(
        &mut self,
        text: String,
        images: Vec<ImageContent>,
        behavior: StreamingBehavior,
    ) -> Option<(String, Vec<ImageContent>)> {
        if !self.session.is_compacting() || self.is_extension_command(&text) {
            return Some((text, images));
        }
        self.held.push(HeldInput {
            text,
            images,
            behavior,
        });
        self.notice("Queued message for after compaction".into(), false);
        None
    }

    fn is_extension_command(&self, text: &str) -> bool {
        rho_core::extensions::commands::parse_command(text.trim())
            .is_some_and(|(name, _)| self.session.extensions().get_command(name).is_some())
    }

    /// Sends the held messages once no compaction runs, in order: each is accepted (started,
    /// or queued behind the run the one before started) before the next is sent.
    pub(super) fn release_held(&mut self) {
        if self.held.is_empty() || self.session.is_compacting() {
            return;
        }
        let held = std::mem::take(&mut self.held);
        let session = self.session.clone();
        let tx = self.tx.clone();
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
                        let _ = tx.send(AppMsg::Notice { text, error: true });
                    }
                });
                let _ = on_accept.await;
            }
        });
    }
}
