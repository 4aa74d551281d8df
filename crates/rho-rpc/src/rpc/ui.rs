//! The extension UI sub-protocol (interfaces spec §1.6): dialogs become
//! `extension_ui_request` lines with a UUID v4 and wait for the client's
//! `extension_ui_response`; notices are fire-and-forget. Unknown or late answers are ignored.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use rho_extension_host::ExtensionUi;
use rho_protocol::rpc::{UiRequest, UiRequestKind};
use tokio::sync::oneshot;

use super::writer::Output;
use rho_protocol::rpc::UiAnswer;

type Pending = Arc<Mutex<HashMap<String, oneshot::Sender<UiAnswer>>>>;

/// The RPC mode's extension UI.
#[derive(Clone)]
pub struct RpcUi {
    out: Output,
    pending: Pending,
    /// Set when an extension asks rho to quit (`ctx.shutdown`); the RPC loop watches it.
    quit: Arc<tokio::sync::watch::Sender<bool>>,
}

impl RpcUi {
    /// A UI writing requests to `out`.
    pub fn new(out: Output) -> Self {
        Self {
            out,
            pending: Arc::default(),
            quit: Arc::new(tokio::sync::watch::channel(false).0),
        }
    }

    /// Changes to true when an extension asked rho to quit.
    pub fn quit_requested(&self) -> tokio::sync::watch::Receiver<bool> {
        self.quit.subscribe()
    }

    /// Delivers a client's answer; `false` when no dialog has that id.
    pub fn resolve(&self, id: &str, answer: UiAnswer) -> bool {
        let waiter = lock(&self.pending).remove(id);
        waiter.is_some_and(|w| w.send(answer).is_ok())
    }

    /// Writes a fire-and-forget request.
    fn request(&self, request: UiRequestKind) {
        self.write(rho_session::ids::uuid_v4(), request);
    }

    /// Writes a dialog request and waits for its answer (cancelled if the mode shuts down).
    fn dialog(&self, request: UiRequestKind) -> Fut<UiAnswer> {
        let (tx, rx) = oneshot::channel();
        let id = rho_session::ids::uuid_v4();
        lock(&self.pending).insert(id.clone(), tx);
        self.write(id, request);
        Box::pin(async move { rx.await.unwrap_or(UiAnswer::Cancelled) })
    }

    fn write(&self, id: String, request: UiRequestKind) {
        match serde_json::to_string(&UiRequest::new(id, request)) {
            Ok(line) => self.out.send(line),
            Err(e) => eprintln!("rho: cannot encode an extension UI request: {e}"),
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

type Fut<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

impl ExtensionUi for RpcUi {
    fn has_ui(&self) -> bool {
        true
    }

    /// As pi's RPC mode: rho quits once idle, after running commands have finished.
    fn request_shutdown(&self) -> bool {
        self.quit.send_replace(true);
        true
    }

    fn select(&self, title: String, options: Vec<String>) -> Fut<Option<String>> {
        self.select_within(title, options, None)
    }

    fn confirm(&self, title: String, message: String) -> Fut<bool> {
        self.confirm_within(title, message, None)
    }

    fn input(&self, title: String, placeholder: Option<String>) -> Fut<Option<String>> {
        self.input_within(title, placeholder, None)
    }

    fn select_within(
        &self,
        title: String,
        options: Vec<String>,
        timeout: Option<u64>,
    ) -> Fut<Option<String>> {
        let answer = self.dialog(UiRequestKind::Select {
            title,
            options,
            timeout,
        });
        Box::pin(async move {
            match answer.await {
                UiAnswer::Value(v) => Some(v),
                _ => None,
            }
        })
    }

    fn confirm_within(&self, title: String, message: String, timeout: Option<u64>) -> Fut<bool> {
        let answer = self.dialog(UiRequestKind::Confirm {
            title,
            message,
            timeout,
        });
        Box::pin(async move { answer.await == UiAnswer::Confirmed(true) })
    }

    fn input_within(
        &self,
        title: String,
        placeholder: Option<String>,
        timeout: Option<u64>,
    ) -> Fut<Option<String>> {
        let answer = self.dialog(UiRequestKind::Input {
            title,
            placeholder,
            timeout,
        });
        Box::pin(async move {
            match answer.await {
                UiAnswer::Value(v) => Some(v),
                _ => None,
            }
        })
    }

    fn notify(&self, message: String, kind: String) {
        let notify_type = (!kind.is_empty()).then_some(kind);
        self.request(UiRequestKind::Notify {
            message,
            notify_type,
        });
    }

    fn set_status(&self, key: String, text: Option<String>) {
        self.request(UiRequestKind::SetStatus {
            status_key: key,
            status_text: text,
        });
    }

    fn set_widget(&self, key: String, lines: Option<Vec<String>>) {
        self.set_widget_at(key, lines, false);
    }

    fn set_widget_at(&self, key: String, lines: Option<Vec<String>>, below: bool) {
        self.request(UiRequestKind::SetWidget {
            widget_key: key,
            widget_lines: lines,
            widget_placement: below.then(|| "belowEditor".to_string()),
        });
    }

    fn set_title(&self, title: String) {
        self.request(UiRequestKind::SetTitle { title });
    }

    fn editor(&self, title: String, prefill: Option<String>) -> Fut<Option<String>> {
        let answer = self.dialog(UiRequestKind::Editor { title, prefill });
        Box::pin(async move {
            match answer.await {
                UiAnswer::Value(v) => Some(v),
                _ => None,
            }
        })
    }

    fn set_editor_text(&self, text: String) {
        self.request(UiRequestKind::SetEditorText { text });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;
    use tokio::io::AsyncReadExt;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dialog_round_trip_and_stray_answers() {
        let (client, server) = tokio::io::duplex(4096);
        let (out, _writer) = super::super::writer::spawn(server, Default::default());
        let ui = RpcUi::new(out);
        assert!(!ui.resolve("nobody", UiAnswer::Cancelled));
        let answer = ui.confirm("Proceed?".into(), "Deploy".into());
        let mut client = client;
        let mut buf = vec![0u8; 4096];
        let n = client.read(&mut buf).await.expect("reads");
        let line: Value = serde_json::from_slice(&buf[..n]).expect("one JSON line");
        assert_eq!(line["type"], "extension_ui_request");
        assert_eq!(line["method"], "confirm");
        assert_eq!(line["message"], "Deploy");
        let id = line["id"].as_str().expect("id").to_string();
        assert_eq!(id.len(), 36);
        assert!(ui.resolve(&id, UiAnswer::Confirmed(true)));
        assert!(answer.await);
        assert!(!ui.resolve(&id, UiAnswer::Confirmed(true)), "answered once");
    }
}
