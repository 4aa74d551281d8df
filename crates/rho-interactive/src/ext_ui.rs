//! Extension UI in the terminal: each request becomes a message to the interactive loop, which
//! opens the matching dialog (select, confirm, input, editor) or updates the chrome (notify,
//! status, widget, title). A dialog's answer comes back on a oneshot channel; if the screen
//! goes away first the extension gets the "no answer" value, never a hang.

use std::future::Future;
use std::pin::Pin;

use rho_extension_host::render::ComponentSlot;
use rho_extension_host::ExtensionUi;
use tokio::sync::{mpsc, oneshot};

use super::app::{App, AppMsg};
use super::dialogs::ActiveDialog;

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
    /// An extension asked rho to quit (`ctx.shutdown()`).
    Shutdown,
}

/// The [`ExtensionUi`] of the interactive mode.
pub struct TuiUi {
    tx: mpsc::UnboundedSender<AppMsg>,
}

impl TuiUi {
    /// Requests go to the loop behind `tx`.
    pub fn new(tx: mpsc::UnboundedSender<AppMsg>) -> Self {
        Self { tx }
    }

    fn ask<T: Send + 'static>(
        &self,
        make: impl FnOnce(oneshot::Sender<T>) -> UiRequest,
        unanswered: T,
    ) -> Fut<T> {
        let (reply, answer) = oneshot::channel();
        let sent = self.tx.send(AppMsg::Ui(make(reply))).is_ok();
        Box::pin(async move {
            if !sent {
                return unanswered;
            }
            answer.await.unwrap_or(unanswered)
        })
    }

    fn tell(&self, request: UiRequest) {
        let _ = self.tx.send(AppMsg::Ui(request));
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

    /// As pi's interactive mode: rho quits once the agent is idle.
    fn request_shutdown(&self) -> bool {
        self.tell(UiRequest::Shutdown);
        true
    }
}

impl App {
    /// Shows an extension's request.
    pub(super) fn handle_ui(&mut self, request: UiRequest) {
        match request {
            UiRequest::Select {
                title,
                options,
                reply,
            } => self.open(ActiveDialog::ext_select(title, options, reply)),
            UiRequest::Confirm {
                title,
                message,
                reply,
            } => self.open(ActiveDialog::ext_confirm(title, message, reply)),
            UiRequest::Input {
                title,
                placeholder,
                reply,
            } => self.open(ActiveDialog::ext_input(title, placeholder, reply)),
            UiRequest::Editor {
                title,
                prefill,
                reply,
            } => self.open(ActiveDialog::ext_editor(title, prefill, reply)),
            UiRequest::SetEditorText(text) => self.editor.set_text(&text),
            UiRequest::Notify { message, kind } => self.notice(message, kind == "error"),
            UiRequest::Status { key, text } => self.statuses.set(key, text),
            UiRequest::Widget {
                key,
                lines,
                below: false,
            } => self.widgets.set(key, lines),
            UiRequest::Widget { key, lines, .. } => self.widgets_below.set(key, lines),
            UiRequest::Component { key, slot } => self.ext_render.place(key, slot),
            UiRequest::Redraw(key) => self.ext_render.invalidate(Some(&key)),
            UiRequest::Shutdown => self.shutdown_requested = true,
            UiRequest::Title(title) => {
                use std::io::Write;
                let clean: String = title.chars().filter(|c| !c.is_control()).collect();
                let mut out = std::io::stdout();
                let _ = write!(out, "\x1b]0;{clean}\x07");
                let _ = out.flush();
            }
        }
    }
}
