//! Extension UI in the terminal: each request becomes a message to the interactive loop, whose
//! extension UI part opens the matching dialog (select, confirm, input, editor) or updates the
//! chrome (notify, status, widget, title). A dialog's answer comes back on a oneshot channel;
//! if the screen goes away first the extension gets the "no answer" value, never a hang.

use std::future::Future;
use std::pin::Pin;

use rho_extension_host::render::{ComponentSlot, WorkingUpdate};
use rho_extension_host::ExtensionUi;
use tokio::sync::oneshot;

use crate::outbox::Outbox;

type Fut<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// One request from an extension.
pub enum UiRequest {
    /// Pick one of `options`.
    Select {
        /// Dialog title.
        title: String,
        /// The choices.
        options: Vec<String>,
        /// The choice, or `None` when cancelled.
        reply: oneshot::Sender<Option<String>>,
    },
    /// Yes or no.
    Confirm {
        /// Dialog title.
        title: String,
        /// The question.
        message: String,
        /// The answer (`false` when cancelled).
        reply: oneshot::Sender<bool>,
    },
    /// One line of text.
    Input {
        /// Dialog title.
        title: String,
        /// Shown while empty.
        placeholder: Option<String>,
        /// The text, or `None` when cancelled.
        reply: oneshot::Sender<Option<String>>,
    },
    /// Multi-line text.
    Editor {
        /// Dialog title.
        title: String,
        /// The starting text.
        prefill: Option<String>,
        /// The text, or `None` when cancelled.
        reply: oneshot::Sender<Option<String>>,
    },
    /// New text for the user's editor.
    SetEditorText(String),
    /// A transient notice.
    Notify {
        /// The text.
        message: String,
        /// `info`, `warning` or `error`.
        kind: String,
    },
    /// A status entry under the footer (`None` clears it).
    Status {
        /// The extension's key.
        key: String,
        /// The text.
        text: Option<String>,
    },
    /// Lines above (or below) the editor (`None` removes them).
    Widget {
        /// The extension's key.
        key: String,
        /// The lines.
        lines: Option<Vec<String>>,
        /// Under the editor (pi's `placement: "belowEditor"`).
        below: bool,
    },
    /// An extension's component took a place (`None`: it went away).
    Component {
        /// The extension's key for it.
        key: String,
        /// Where.
        slot: Option<ComponentSlot>,
    },
    /// An extension's component wants drawing again.
    Redraw(String),
    /// The terminal window's title.
    Title(String),
    /// The working line or the hidden-thinking label changed.
    Working(WorkingUpdate),
    /// An extension asked rho to quit (`ctx.shutdown()`).
    Shutdown,
}

/// The [`ExtensionUi`] of the interactive mode.
pub struct TuiUi {
    tx: Outbox<UiRequest>,
}

impl TuiUi {
    /// Requests go to the loop behind `tx` (the loop's channel).
    pub fn new(tx: impl Into<Outbox<UiRequest>>) -> Self {
        Self { tx: tx.into() }
    }

    fn ask<T: Send + 'static>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> UiRequest,
        unanswered: T,
    ) -> Fut<T> {
        let (reply, answer) = oneshot::channel();
        let sent = self.tx.send(make(reply));
        Box::pin(async move {
            if !sent {
                return unanswered;
            }
            answer.await.unwrap_or(unanswered)
        })
    }

    fn tell(&self, request: UiRequest) {
        self.tx.send(request);
    }
}

impl ExtensionUi for TuiUi {
    fn has_ui(&self) -> bool {
        true
    }

    fn select(&self, title: String, options: Vec<String>) -> Fut<Option<String>> {
        self.ask(
            |reply| UiRequest::Select {
                title,
                options,
                reply,
            },
            None,
        )
    }

    fn confirm(&self, title: String, message: String) -> Fut<bool> {
        self.ask(
            |reply| UiRequest::Confirm {
                title,
                message,
                reply,
            },
            false,
        )
    }

    fn input(&self, title: String, placeholder: Option<String>) -> Fut<Option<String>> {
        self.ask(
            |reply| UiRequest::Input {
                title,
                placeholder,
                reply,
            },
            None,
        )
    }

    fn editor(&self, title: String, prefill: Option<String>) -> Fut<Option<String>> {
        self.ask(
            |reply| UiRequest::Editor {
                title,
                prefill,
                reply,
            },
            None,
        )
    }

    fn set_editor_text(&self, text: String) {
        self.tell(UiRequest::SetEditorText(text));
    }

    fn notify(&self, message: String, kind: String) {
        self.tell(UiRequest::Notify { message, kind });
    }

    fn set_status(&self, key: String, text: Option<String>) {
        self.tell(UiRequest::Status { key, text });
    }

    fn set_widget(&self, key: String, lines: Option<Vec<String>>) {
        self.set_widget_at(key, lines, false);
    }

    fn set_widget_at(&self, key: String, lines: Option<Vec<String>>, below: bool) {
        self.tell(UiRequest::Widget { key, lines, below });
    }

    fn set_component(&self, key: String, slot: Option<ComponentSlot>) -> bool {
        self.tell(UiRequest::Component { key, slot });
        true
    }

    fn request_render(&self, key: String) {
        self.tell(UiRequest::Redraw(key));
    }

    fn set_title(&self, title: String) {
        self.tell(UiRequest::Title(title));
    }

    fn set_working(&self, update: WorkingUpdate) {
        self.tell(UiRequest::Working(update));
    }

    /// As pi's interactive mode: rho quits once the agent is idle.
    fn request_shutdown(&self) -> bool {
        self.tell(UiRequest::Shutdown);
        true
    }
}
