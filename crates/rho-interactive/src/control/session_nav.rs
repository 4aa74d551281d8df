//! /resume, /tree and /fork: opening another session, moving within the session tree and
//! branching into a new file. A tree move and a fork hand the chosen user message back to the
//! editor, so it can be edited and sent again (pi).

use std::path::Path;

use rho_core::agent_session::NavigateTreeOptions;
use rho_session::listing::{list_all_sessions, list_sessions};
use rho_tui::dialogs::{SelectItem, SelectList, SessionPicker, TreeFilter, TreeSelector};

use super::{Control, Cx};
use crate::dialogs::{ActiveDialog, Dialogs};
use crate::outbox::Outbox;
use crate::screen::{Screen, ScreenMsg};
use crate::shared::Shared;

impl Control {
    /// /resume: lists this folder's sessions and all sessions in a blocking task.
    pub fn open_session_picker(&mut self, shared: &Shared) {
        let active = shared
            .session
            .with_session(|s| s.path().map(Path::to_path_buf));
        let dir = active
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf);
        let agent_dir = shared.options.agent_dir.clone();
        let keys = std::sync::Arc::clone(&shared.keymap);
        let (notices, opener) = (self.notices.clone(), self.opener.clone());
        tokio::task::spawn_blocking(move || {
            let current = dir.as_deref().map(list_sessions).unwrap_or_default();
            let all = list_all_sessions(&agent_dir);
            if current.is_empty() && all.is_empty() {
                notices.notice("No sessions found", false);
                return;
            }
            let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
            let picker = SessionPicker::new(current, all, rho_ai::now_ms(), &keys)
                .with_active(active)
                .with_home(home);
            opener.send(ActiveDialog::Sessions(picker));
        });
    }

    /// /tree: the session tree, starting at the current leaf.
    pub(super) fn open_tree(
        &mut self,
        shared: &Shared,
        screen: &mut Screen,
        dialogs: &mut Dialogs,
    ) {
        let filter = shared
            .session
            .with_settings(|s| TreeFilter::from_setting(s.tree_filter_mode()));
        let keys = &shared.keymap;
        let selector = shared.session.with_session(|s| {
            TreeSelector::new(s.tree().entries(), s.tree().leaf_id(), filter, keys)
        });
        if selector.is_empty() {
            return screen.notice("No entries in session".into(), false);
        }
        let rows = screen.size().1;
        let home = std::env::var("HOME").ok();
        let selector = selector.with_max_rows((rows / 2).max(5)).with_home(home);
        dialogs.open(ActiveDialog::Tree(selector));
    }

    /// After picking an entry: ask whether to summarize the branch being left, when there is
    /// one and a model to write the summary (`branchSummary.skipPrompt` answers "no" without
    /// asking, as in pi).
    pub(super) fn chose_tree_target(&mut self, id: String, cx: &mut Cx) {
        let session = &cx.shared.session;
        let same = session.with_session(|s| s.leaf_id() == Some(id.as_str()));
        if same {
            return cx.screen.notice("Already at this point".into(), false);
        }
        let skip = session.with_settings(|s| s.branch_summary_skip_prompt());
        if session.model().is_none() || skip {
            return self.navigate_tree(id, false, cx);
        }
        let items = vec![
            SelectItem::new("No summary", "switch branches and keep nothing of this one"),
            SelectItem::new(
                "Summarize",
                "summarize the branch you leave into the new one",
            ),
        ];
        let list = SelectList::new("Summarize the branch you are leaving?", items);
        cx.dialogs.open(ActiveDialog::TreeSummary(list, id));
    }

    /// Moves the leaf to `target` (optionally summarizing the abandoned branch).
    pub(super) fn navigate_tree(&mut self, target: String, summarize: bool, cx: &mut Cx) {
        let session = cx.shared.session.clone();
        let tx = self.notices.clone();
        if summarize {
            cx.screen
                .notice("Summarizing branch... (esc to cancel)".into(), false);
        }
        tokio::spawn(async move {
            let options = NavigateTreeOptions {
                summarize,
                ..NavigateTreeOptions::default()
            };
            let result = session.navigate_tree(&target, options).await;
            let msg = match result {
                Ok(outcome) if outcome.cancelled => ScreenMsg::Notice {
                    text: "Navigation cancelled".into(),
                    error: false,
                },
                Ok(outcome) => {
                    if let Some(text) = outcome.editor_text {
                        tx.send(ScreenMsg::SetEditor(text));
                    }
                    ScreenMsg::Notice {
                        text: "Navigated to selected point".into(),
                        error: false,
                    }
                }
                Err(e) => ScreenMsg::Notice {
                    text: e.to_string(),
                    error: true,
                },
            };
            tx.send(msg);
        });
    }

    /// /fork: the user messages of the session, newest first.
    pub(super) fn open_fork(
        &mut self,
        shared: &Shared,
        screen: &mut Screen,
        dialogs: &mut Dialogs,
    ) {
        let mut candidates = shared.session.fork_candidates();
        if candidates.is_empty() {
            return screen.notice("No messages to fork from".into(), false);
        }
        candidates.reverse();
        let items = candidates
            .iter()
            .map(|c| SelectItem::new(c.text.replace('\n', " "), ""))
            .collect();
        let ids = candidates.into_iter().map(|c| c.entry_id).collect();
        let list = SelectList::new("Fork from which message?", items);
        dialogs.open(ActiveDialog::Fork(list, ids));
    }

    /// Forks into a new session file before the chosen message.
    pub(super) fn fork_at(&mut self, entry_id: String, shared: &Shared) {
        let session = shared.session.clone();
        let tx = self.notices.clone();
        tokio::spawn(async move {
            let result = session.fork(&entry_id).await;
            let msg = match result {
                Ok(outcome) if outcome.cancelled => ScreenMsg::Notice {
                    text: "Fork cancelled".into(),
                    error: false,
                },
                Ok(outcome) => {
                    tx.send(ScreenMsg::SetEditor(outcome.selected_text));
                    ScreenMsg::Notice {
                        text: "Forked to a new session".into(),
                        error: false,
                    }
                }
                Err(e) => ScreenMsg::Notice {
                    text: e.to_string(),
                    error: true,
                },
            };
            tx.send(msg);
        });
    }
}

/// What loading a session file tolerated, as one warning notice per line it names.
pub(super) fn send_load_warnings(tx: &Outbox<ScreenMsg>, warnings: &[rho_session::LoadWarning]) {
    for w in warnings {
        tx.notice(format!("Warning: {w}"), true);
    }
}

/// The note after a session switch.
pub(super) fn switch_notice(cancelled: bool, done: &str) -> ScreenMsg {
    let text = if cancelled {
        "Cancelled by an extension".to_string()
    } else {
        done.to_string()
    };
    ScreenMsg::Notice { text, error: false }
}
