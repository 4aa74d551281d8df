//! /tree and /fork: moving within the session tree and branching into a new file. Both hand
//! the chosen user message back to the editor, so it can be edited and sent again (pi).

use rho_core::agent_session::NavigateTreeOptions;
use rho_tui::dialogs::{SelectItem, SelectList, TreeSelector};

use super::app::{App, AppMsg};
use super::dialogs::ActiveDialog;

impl App {
    /// /tree: the session tree, starting at the current leaf.
    pub(super) fn open_tree(&mut self) {
        let selector = self
            .session
            .with_session(|s| TreeSelector::new(s.tree().entries(), s.tree().leaf_id()));
        if selector.rows().is_empty() {
            return self.notice("No entries in session".into(), false);
        }
        self.open(ActiveDialog::Tree(selector));
    }

    /// After picking an entry: ask whether to summarize the branch being left, when there is
    /// one and a model to write the summary.
    pub(super) fn chose_tree_target(&mut self, id: String) {
        let same = self
            .session
            .with_session(|s| s.leaf_id() == Some(id.as_str()));
        if same {
            return self.notice("Already at this point".into(), false);
        }
        if self.session.model().is_none() {
            return self.navigate_tree(id, false);
        }
        let items = vec![
            SelectItem::new("No summary", "switch branches and keep nothing of this one"),
            SelectItem::new(
                "Summarize",
                "summarize the branch you leave into the new one",
            ),
        ];
        let list = SelectList::new("Summarize the branch you are leaving?", items);
        self.open(ActiveDialog::TreeSummary(list, id));
    }

    /// Moves the leaf to `target` (optionally summarizing the abandoned branch).
    pub(super) fn navigate_tree(&mut self, target: String, summarize: bool) {
        let session = self.session.clone();
        let tx = self.tx.clone();
        if summarize {
            self.notice("Summarizing branch... (esc to cancel)".into(), false);
        }
        tokio::spawn(async move {
            let options = NavigateTreeOptions {
                summarize,
                ..NavigateTreeOptions::default()
            };
            let result = session.navigate_tree(&target, options).await;
            let msg = match result {
                Ok(outcome) if outcome.cancelled => AppMsg::Notice {
                    text: "Navigation cancelled".into(),
                    error: false,
                },
                Ok(outcome) => {
                    if let Some(text) = outcome.editor_text {
                        let _ = tx.send(AppMsg::SetEditor(text));
                    }
                    AppMsg::Notice {
                        text: "Navigated to selected point".into(),
                        error: false,
                    }
                }
                Err(e) => AppMsg::Notice {
                    text: e.to_string(),
                    error: true,
                },
            };
            let _ = tx.send(msg);
        });
    }

    /// /fork: the user messages of the session, newest first.
    pub(super) fn open_fork(&mut self) {
        let mut candidates = self.session.fork_candidates();
        if candidates.is_empty() {
            return self.notice("No messages to fork from".into(), false);
        }
        candidates.reverse();
        let items = candidates
            .iter()
            .map(|c| SelectItem::new(c.text.replace('\n', " "), ""))
            .collect();
        let ids = candidates.into_iter().map(|c| c.entry_id).collect();
        let list = SelectList::new("Fork from which message?", items);
        self.open(ActiveDialog::Fork(list, ids));
    }

    /// Forks into a new session file before the chosen message.
    pub(super) fn fork_at(&mut self, entry_id: String) {
        let session = self.session.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let result = session.fork(&entry_id).await;
            let msg = match result {
                Ok(outcome) if outcome.cancelled => AppMsg::Notice {
                    text: "Fork cancelled".into(),
                    error: false,
                },
                Ok(outcome) => {
                    let _ = tx.send(AppMsg::SetEditor(outcome.selected_text));
                    AppMsg::Notice {
                        text: "Forked to a new session".into(),
                        error: false,
                    }
                }
                Err(e) => AppMsg::Notice {
                    text: e.to_string(),
                    error: true,
                },
            };
            let _ = tx.send(msg);
        });
    }
}
