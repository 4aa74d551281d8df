//! Forking into a new session file (interfaces §1.4 `fork`, `clone`, `get_fork_messages`):
//! one implementation for the RPC commands and the interactive `/fork`.

use std::path::{Path, PathBuf};

use rho_agent::AgentMessage;

use super::error::SessionError;
use super::tree::content_text;
use super::{AgentSession, SwitchReason};
use rho_session::{ForkScope, SessionManager};

/// How a fork or clone ended.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ForkOutcome {
    /// An extension vetoed (`session_before_fork`): the session is unchanged.
    pub cancelled: bool,
    /// The forked user message's text, for the editor (empty for a clone).
    pub selected_text: String,
    /// The new session's file (`None` when cancelled).
    pub path: Option<PathBuf>,
}

/// A user message one can fork from (serialized as `get_fork_messages` lists it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkCandidate {
    /// The `message` entry's id.
    pub entry_id: String,
    /// Its text blocks, concatenated.
    pub text: String,
}

impl AgentSession {
    /// Forks before the user message `entry_id`: a new session file holding the path to its
    /// parent (or an empty session when it is a root), whose `parentSession` is the current
    /// file, becomes the session. Extensions may veto (`session_before_fork`).
    pub async fn fork(&self, entry_id: &str) -> Result<ForkOutcome, SessionError> {
        let found = self.with_session(|s| {
            let entry = s.tree().get(entry_id)?;
            match entry.message().as_deref() {
                Some(AgentMessage::User(u)) => {
                    Some((content_text(&u.content), entry.parent_id.clone()))
                }
                _ => None,
            }
        });
        let (text, parent) = found.ok_or(SessionError::InvalidForkEntry)?;
        let (dir, cwd) = self.location();
        let dir = dir.ok_or(SessionError::InMemoryFork("fork"))?;
        let forked = match parent {
            Some(parent) => {
                self.with_session(|s| s.fork(&dir, &cwd, ForkScope::Branch(&parent)))?
            }
            None => {
                let fresh = SessionManager::create(&dir, &cwd);
                match self.with_session(|s| s.path().map(|p| p.to_string_lossy().into_owned())) {
                    Some(p) => fresh.with_parent_session(&p),
                    None => fresh,
                }
            }
        };
        let reason = SwitchReason::Fork {
            entry_id: entry_id.to_string(),
            position: "before".into(),
        };
        let mut outcome = self.switch_to_fork(forked, reason).await;
        outcome.selected_text = text;
        Ok(outcome)
    }

    /// Clones the current branch (root to leaf) into a new session file that becomes the
    /// session. Extensions may veto (`session_before_fork` with position `at`).
    pub async fn clone_session(&self) -> Result<ForkOutcome, SessionError> {
        let leaf = self
            .with_session(|s| s.leaf_id().map(str::to_string))
            .ok_or(SessionError::NothingToClone)?;
        self.fork_at(&leaf).await
    }

    /// Copies the path from the root to entry `entry_id` (any entry) into a new session file
    /// that becomes the session: pi's `fork(entryId, { position: "at" })`.
    pub async fn fork_at(&self, entry_id: &str) -> Result<ForkOutcome, SessionError> {
        if self.with_session(|s| s.tree().get(entry_id).is_none()) {
            return Err(SessionError::InvalidForkEntry);
        }
        let (dir, cwd) = self.location();
        let dir = dir.ok_or(SessionError::InMemoryFork("clone"))?;
        let cloned = self.with_session(|s| s.fork(&dir, &cwd, ForkScope::Branch(entry_id)))?;
        let reason = SwitchReason::Fork {
            entry_id: entry_id.to_string(),
            position: "at".into(),
        };
        Ok(self.switch_to_fork(cloned, reason).await)
    }

    /// Every user message of the whole file (all branches), in file order, whose text is
    /// not empty: what one can fork from (pi's `getUserMessagesForForking`).
    pub fn fork_candidates(&self) -> Vec<ForkCandidate> {
        self.with_session(|s| {
            s.entries()
                .iter()
                .filter(|e| e.message_role() == Some("user"))
                .filter_map(|e| match e.message().as_deref() {
                    Some(AgentMessage::User(u)) => Some(ForkCandidate {
                        entry_id: e.id.clone(),
                        text: content_text(&u.content),
                    }),
                    _ => None,
                })
                .filter(|c| !c.text.is_empty())
                .collect()
        })
    }

    /// The current file's directory (`None` in memory) and the header's cwd.
    fn location(&self) -> (Option<PathBuf>, String) {
        self.with_session(|s| {
            (
                s.path().and_then(Path::parent).map(Path::to_path_buf),
                s.cwd().to_string(),
            )
        })
    }

    async fn switch_to_fork(&self, next: SessionManager, reason: SwitchReason) -> ForkOutcome {
        let path = next.path().map(Path::to_path_buf);
        let cancelled = self.switch_session(next, reason).await;
        ForkOutcome {
            cancelled,
            selected_text: String::new(),
            path: (!cancelled).then_some(path).flatten(),
        }
    }
}
