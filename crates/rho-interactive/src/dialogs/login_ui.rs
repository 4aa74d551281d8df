//! A sign-in's questions and notices in the interactive mode: notices land in the transcript,
//! questions open the dialogs extensions ask with (select, input). A question the flow no longer needs
//! (the browser's redirect came first) is dropped, and the screen closes its dialog. While a
//! device code waits for approval a small dialog offers to cancel.

use std::sync::Mutex;

use futures_util::future::BoxFuture;
use rho_ai::oauth::{LoginNotice, LoginPrompt, LoginUi};
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;

use super::active::ActiveDialog;
use crate::outbox::Outbox;
use crate::screen::ScreenMsg;

/// The interactive mode's [`LoginUi`].
pub struct TuiLoginUi {
    notices: Outbox<ScreenMsg>,
    /// Where the questions open.
    opener: Outbox<ActiveDialog>,
    /// Cancels the whole sign-in (Esc on the waiting dialog).
    cancel: CancellationToken,
    /// Fires when the sign-in ended, closing the waiting dialog.
    ended: CancellationToken,
    waiting: Mutex<bool>,
}

impl TuiLoginUi {
    /// A UI saying things through `notices` and asking through `opener`; `cancel` is the
    /// sign-in's.
    pub fn new(
        notices: Outbox<ScreenMsg>,
        opener: Outbox<ActiveDialog>,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            notices,
            opener,
            cancel,
            ended: CancellationToken::new(),
            waiting: Mutex::new(false),
        }
    }

    /// The sign-in is over: the waiting dialog, if any, goes away.
    pub fn finished(&self) {
        self.ended.cancel();
    }

    fn say(&self, text: String) {
        self.notices.notice(text, false);
    }

    /// Opens "waiting" with one way out; answering it (or Esc) cancels the sign-in.
    fn wait_dialog(&self, title: String) {
        let mut waiting = self.waiting.lock().unwrap_or_else(|p| p.into_inner());
        if std::mem::replace(&mut *waiting, true) {
            return;
        }
        let (reply, answer) = oneshot::channel();
        let dialog = ActiveDialog::ext_select(title, vec!["Cancel login".into()], reply);
        if !self.opener.send(dialog) {
            return;
        }
        let (cancel, ended) = (self.cancel.clone(), self.ended.clone());
        tokio::spawn(async move {
            tokio::select! {
                _ = answer => cancel.cancel(),
                _ = ended.cancelled() => {}
            }
        });
    }
}

impl LoginUi for TuiLoginUi {
    fn notify(&self, notice: LoginNotice) {
        match notice {
            LoginNotice::AuthUrl { url, instructions } => {
                let opened = rho_ai::oauth::browser::open(&url);
                let how = if opened {
                    "The browser opened the sign-in page"
                } else {
                    "Open this URL to sign in"
                };
                self.say(format!("{how}:\n{url}\n{instructions}"));
            }
            LoginNotice::DeviceCode {
                user_code,
                verification_uri,
            } => {
                rho_ai::oauth::browser::open(&verification_uri);
                self.say(format!(
                    "Open {verification_uri} and enter code: {user_code}"
                ));
                self.wait_dialog(format!(
                    "Enter {user_code} at {verification_uri}; waiting for authentication…"
                ));
            }
            LoginNotice::Progress(text) => self.say(text),
        }
    }

    fn ask(
        &self,
        prompt: LoginPrompt,
        done: CancellationToken,
    ) -> BoxFuture<'static, Option<String>> {
        let (reply, answer) = oneshot::channel();
        let (dialog, ids) = match (prompt.typed(), &prompt) {
            (Some((message, placeholder)), _) => {
                let title = message.to_string();
                let dialog = ActiveDialog::ext_input(title, Some(placeholder.to_string()), reply);
                (dialog, None)
            }
            (None, LoginPrompt::Select { message, options }) => {
                let ids: Vec<(String, String)> = options
                    .iter()
                    .map(|o| (o.label.to_string(), o.id.to_string()))
                    .collect();
                let labels = ids.iter().map(|(label, _)| label.clone()).collect();
                let dialog = ActiveDialog::ext_select(message.clone(), labels, reply);
                (dialog, Some(ids))
            }
            (None, _) => return Box::pin(async { None }),
        };
        let sent = self.opener.send(dialog);
        Box::pin(async move {
            if !sent {
                return None;
            }
            // Dropping `answer` when `done` fires is what closes the dialog.
            let chosen = tokio::select! {
                a = answer => a.ok().flatten(),
                _ = done.cancelled() => None,
            }?;
            match ids {
                Some(ids) => ids
                    .into_iter()
                    .find(|(l, _)| *l == chosen)
                    .map(|(_, id)| id),
                None => Some(chosen),
            }
        })
    }
}
