//! The UI extensions see while rho ends (`session_shutdown` at quit): what they tell the
//! screen or client still reaches it (pi's RPC mode writes a status, notice or title set in a
//! `session_shutdown` handler), while questions get their "no answer" value at once, since
//! nobody is left to answer them.

use std::sync::Arc;

use crate::render::WorkingUpdate;
use crate::ExtensionUi;

/// Forwards the telling calls to the mode's UI; every dialog answers as without a UI.
pub struct ClosingUi(pub Arc<dyn ExtensionUi>);

impl ExtensionUi for ClosingUi {
    fn has_ui(&self) -> bool {
        self.0.has_ui()
    }
    fn set_editor_text(&self, text: String) {
        self.0.set_editor_text(text);
    }
    fn notify(&self, message: String, kind: String) {
        self.0.notify(message, kind);
    }
    fn set_status(&self, key: String, text: Option<String>) {
        self.0.set_status(key, text);
    }
    fn set_widget(&self, key: String, lines: Option<Vec<String>>) {
        self.0.set_widget(key, lines);
    }
    fn set_widget_at(&self, key: String, lines: Option<Vec<String>>, below: bool) {
        self.0.set_widget_at(key, lines, below);
    }
    fn set_title(&self, title: String) {
        self.0.set_title(title);
    }
    fn set_working(&self, update: WorkingUpdate) {
        self.0.set_working(update);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    #[derive(Default)]
    struct Seen(Mutex<Vec<String>>);

    impl ExtensionUi for Seen {
        fn has_ui(&self) -> bool {
            true
        }
        fn notify(&self, message: String, _kind: String) {
            self.0.lock().expect("lock").push(message);
        }
        fn set_status(&self, key: String, _text: Option<String>) {
            self.0.lock().expect("lock").push(key);
        }
        fn confirm(
            &self,
            _title: String,
            _message: String,
        ) -> futures_util::future::BoxFuture<'static, bool> {
            Box::pin(std::future::pending())
        }
    }

    #[tokio::test]
    async fn tells_go_through_and_questions_answer_at_once() {
        let seen = Arc::new(Seen::default());
        let ui = ClosingUi(seen.clone());
        assert!(ui.has_ui());
        ui.notify("bye".into(), "info".into());
        ui.set_status("k".into(), None);
        assert!(!ui.confirm("t".into(), "m".into()).await, "never waits");
        assert_eq!(*seen.0.lock().expect("lock"), ["bye", "k"]);
    }
}
