//! The extension UI sub-protocol (interfaces spec §1.6): dialogs become
//! `extension_ui_request` lines with a UUID v4 and wait for the client's
//! `extension_ui_response`; notices are fire-and-forget. Unknown or late answers are ignored.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use rho_core::extensions::ExtensionUi;
use serde_json::{json, Map, Value};
use tokio::sync::oneshot;

use super::command::UiAnswer;
use super::writer::Output;

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
    fn request(&self, method: &str, fields: Value) {
        self.write(&rho_core::session::ids::uuid_v4(), method, fields);
    }

    /// Writes a dialog request and waits for its answer (cancelled if the mode shuts down).
    fn dialog(&self, method: &str, fields: Value) -> Fut<UiAnswer> {
        let (tx, rx) = oneshot::channel();
        let id = rho_core::session::ids::uuid_v4();
        lock(&self.pending).insert(id.clone(), tx);
        self.write(&id, method, fields);
        Box::pin(async move { rx.await.unwrap_or(UiAnswer::Cancelled) })
    }

    fn write(&self, id: &str, method: &str, fields: Value) {
        let mut m = Map::new();
        m.insert("type".into(), "extension_ui_request".into());
        m.insert("id".into(), id.into());
        m.insert("method".into(), method.into());
        if let Value::Object(extra) = fields {
            m.extend(extra);
        }
        self.out.send(Value::Object(m).to_string());
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
        let answer = self.dialog("select", json!({"title": title, "options": options}));
        Box::pin(async move {
            match answer.await {
                UiAnswer::Value(v) => Some(v),
                _ => None,
            }
        })
    }

    fn confirm(&self, title: String, message: String) -> Fut<bool> {
        let answer = self.dialog("confirm", json!({"title": title, "message": message}));
        Box::pin(async move { answer.await == UiAnswer::Confirmed(true) })
    }

    fn input(&self, title: String, placeholder: Option<String>) -> Fut<Option<String>> {
        let mut fields = json!({"title": title});
        if let Some(p) = placeholder {
            fields["placeholder"] = p.into();
        }
        let answer = self.dialog("input", fields);
        Box::pin(async move {
            match answer.await {
                UiAnswer::Value(v) => Some(v),
                _ => None,
            }
        })
    }

    fn notify(&self, message: String, kind: String) {
        let mut fields = json!({"message": message});
        if kind != "info" && !kind.is_empty() {
            fields["notifyType"] = kind.into();
        }
        self.request("notify", fields);
    }

    fn set_status(&self, key: String, text: Option<String>) {
        let mut fields = json!({"statusKey": key});
        if let Some(t) = text {
            fields["statusText"] = t.into();
        }
        self.request("setStatus", fields);
    }

    fn set_widget(&self, key: String, lines: Option<Vec<String>>) {
        let mut fields = json!({"widgetKey": key});
        if let Some(l) = lines {
            fields["widgetLines"] = l.into();
        }
        self.request("setWidget", fields);
    }

    fn set_title(&self, title: String) {
        self.request("setTitle", json!({"title": title}));
    }

    fn editor(&self, title: String, prefill: Option<String>) -> Fut<Option<String>> {
        let mut fields = json!({"title": title});
        if let Some(p) = prefill {
            fields["prefill"] = p.into();
        }
        let answer = self.dialog("editor", fields);
        Box::pin(async move {
            match answer.await {
                UiAnswer::Value(v) => Some(v),
                _ => None,
            }
        })
    }

    fn set_editor_text(&self, text: String) {
        self.request("set_editor_text", json!({"text": text}));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dialog_round_trip_and_stray_answers() {
        let (client, server) = tokio::io::duplex(4096);
        let (_events_tx, events) = tokio::sync::mpsc::unbounded_channel();
        let (out, _writer) = super::super::writer::spawn(server, events);
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
