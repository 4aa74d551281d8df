//! Forking: copying a session's entries, all or one branch, into a new session.

use std::path::Path;

use super::{new_header, SessionManager, Storage};
use crate::entry::SessionEntry;
use crate::error::StoreError;
use crate::paths::session_file_name;
use crate::tree::SessionTree;

/// Which entries a fork copies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ForkScope<'a> {
    /// Every entry, in file order (`--fork`).
    All,
    /// The branch from the root to this entry (a branched session).
    Branch(&'a str),
}

impl SessionManager {
    /// Copies entries into a new session for `cwd` in `dir` whose header names this session's
    /// file as `parentSession`. It is written at once if it holds an assistant message.
    pub fn fork(&self, dir: &Path, cwd: &str, scope: ForkScope<'_>) -> Result<Self, StoreError> {
        self.fork_as(dir, cwd, scope, None)
    }

    /// [`Self::fork`] under the id `id` when given (pi 1.x's `--fork` with `--session-id`).
    pub fn fork_as(
        &self,
        dir: &Path,
        cwd: &str,
        scope: ForkScope<'_>,
        id: Option<&str>,
    ) -> Result<Self, StoreError> {
        let entries: Vec<SessionEntry> = match scope {
            ForkScope::All => self.tree.get().entries().to_vec(),
            ForkScope::Branch(id) => {
                self.require_entry(id)?;
                self.tree.get().path_to(id).into_iter().cloned().collect()
            }
        };
        let parent = self.path().map(|p| p.to_string_lossy().into_owned());
        let mut header = new_header(cwd, parent);
        if let Some(id) = id {
            header.id = id.to_string();
        }
        let path = dir.join(session_file_name(&header.timestamp, &header.id));
        let has_assistant = entries
            .iter()
            .any(|e| e.message_role() == Some("assistant"));
        let mut fork = Self::with(
            header,
            SessionTree::from_entries(entries),
            Storage::Pending(path.clone()),
        );
        fork.durability = self.durability;
        if has_assistant {
            fork.write_whole(&path)?;
        }
        Ok(fork)
    }
}
