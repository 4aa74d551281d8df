//! The session manager: one session's header, entry tree and file, with an append method per
//! entry type, tree navigation and forking (interfaces spec §4.3-§4.6).
//!
//! New sessions are written lazily (§4.5): nothing touches the disk until an assistant message
//! is appended; then the header and every buffered entry are written at once, and from then on
//! each append is one durable line. `--no-session` sessions never touch the disk.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rho_protocol::agent::StoredMessage;
use rho_protocol::UserContent;
use serde_json::Value;

use super::context::{branch_state, build_context, BranchState, ModelRef, SessionContext};
use super::entry::{CompactionData, EntryData, SessionEntry, SessionHeader, CURRENT_VERSION};
use super::error::{LoadWarning, StoreError};
use super::ids::uuid_v7;
use super::index_keeper::IndexKeeper;
use super::lazy::set_origin;
use super::lazy_tree::{self, LazyTree};
use super::load::load_file_and_index;
use super::paths::session_file_name;
use super::summary;
use super::time::{format_iso, now_ms};
use super::tree::SessionTree;
use super::unsaved::{append_all, Unsaved};
use super::writer::{write_atomic, Durability, FileWriter};

mod fork;
pub use fork::ForkScope;

/// Where the session's entries go.
#[derive(Debug)]
enum Storage {
    /// `--no-session`: memory only.
    Memory,
    /// A new session not yet written (no assistant message yet).
    Pending(PathBuf),
    /// An existing file not yet opened for writing (its valid length and trailing-newline state).
    Loaded(PathBuf, u64, bool),
    /// A file open for appends.
    Open(FileWriter),
}

/// One session: header, entries, current leaf, and the file behind them.
#[derive(Debug)]
pub struct SessionManager {
    header: SessionHeader,
    /// Made when first needed for a session reopened from its leaf summary.
    tree: LazyTree,
    storage: Storage,
    durability: Durability,
    warnings: Vec<LoadWarning>,
    /// Serialized entries not yet on disk (their write failed, or the file is not due yet).
    unsaved: Vec<Unsaved>,
    /// The entry index beside the file, while it describes all of the file.
    index: Option<IndexKeeper>,
    /// A new session's file is due (an assistant message arrived).
    write_due: bool,
    failure: Failure,
}

/// Whether saving fails, and whether the user was told.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Failure {
    None,
    New(String),
    Reported,
}

impl SessionManager {
    /// A new session for `cwd` in `dir`, named `<timestamp>_<id>.jsonl`; written lazily.
    pub fn create(dir: &Path, cwd: &str) -> Self {
        let header = new_header(cwd, None);
        let path = dir.join(session_file_name(&header.timestamp, &header.id));
        Self::with(header, SessionTree::default(), Storage::Pending(path))
    }

    /// A new session with the id the user chose (pi 1.x's `--session-id`), named
    /// `<timestamp>_<id>.jsonl` in `dir`; written lazily.
    pub fn create_with_id(dir: &Path, cwd: &str, id: &str) -> Self {
        let mut header = new_header(cwd, None);
        header.id = id.to_string();
        let path = dir.join(session_file_name(&header.timestamp, &header.id));
        Self::with(header, SessionTree::default(), Storage::Pending(path))
    }

    /// Gives a session never written yet (in memory, or created and still pending) the id
    /// the user chose; the pending file is named after it.
    pub fn renamed_to_id(mut self, id: &str) -> Self {
        if let Storage::Pending(path) = &mut self.storage {
            if let Some(dir) = path.parent() {
                *path = dir.join(session_file_name(&self.header.timestamp, id));
            }
        }
        self.header.id = id.to_string();
        self
    }

    /// A new session at an explicit path (`--session <missing file>`); written lazily.
    pub fn create_at(path: &Path, cwd: &str) -> Self {
        let storage = Storage::Pending(path.to_path_buf());
        Self::with(new_header(cwd, None), SessionTree::default(), storage)
    }

    /// Names the session this new one continues (`parentSession`, e.g. RPC `new_session`).
    /// Meant for a session just created: the header is written with the first flush.
    pub fn with_parent_session(mut self, parent: &str) -> Self {
        self.header.parent_session = Some(parent.to_string());
        self
    }

    /// A session that is never written (`--no-session`).
    pub fn in_memory(cwd: &str) -> Self {
        Self::with(
            new_header(cwd, None),
            SessionTree::default(),
            Storage::Memory,
        )
    }

    /// Loads an existing session file; a file older than format 3 is migrated and rewritten.
    /// A file that fails to load is left untouched.
    ///
    /// A session whose index and leaf summary describe the file as it is (it was opened
    /// before, and nothing but rho's own appends changed it since) is opened from them alone:
    /// the branch state, the name and the context answer from the summary, and the entry
    /// tree is made when something first needs it (see `lazy_tree.rs`).
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(opened) = lazy_tree::open(path) {
            let storage = Storage::Loaded(path.to_path_buf(), opened.index.0.covered, false);
            let mut manager = Self::with_tree(opened.header, opened.tree, storage);
            manager.index = IndexKeeper::new(path, opened.index, opened.keeper);
            return Ok(manager);
        }
        let loaded = load_file_and_index(path)?;
        let (mut valid_len, mut needs_newline) = (loaded.valid_len, loaded.needs_newline);
        if let Some((_, lines)) = &loaded.migrated {
            let mut text = lines.join("\n");
            text.push('\n');
            write_atomic(path, text.as_bytes(), Durability::Flush)?;
            (valid_len, needs_newline) = (text.len() as u64, false);
        }
        let storage = Storage::Loaded(path.to_path_buf(), valid_len, needs_newline);
        let mut manager = Self::with(
            loaded.header,
            SessionTree::from_entries(loaded.entries),
            storage,
        );
        let summary = (loaded.index.filter(|_| loaded.warnings.is_empty()))
            .and_then(|(head, _)| summary::save(path, manager.tree.get(), &loaded.placed, &head));
        manager.warnings = loaded.warnings;
        manager.index = loaded
            .index
            .and_then(|described| IndexKeeper::new(path, described, summary));
        Ok(manager)
    }

    /// Opens `path`, or starts a new session there when no file exists (`--session <path>`).
    /// Only a path that does not exist yet starts a new session: one the system refuses to
    /// look at (a NUL byte, a file used as a folder, no permission) is an error now, not a
    /// session that silently never saves.
    pub fn open_or_create(path: &Path, cwd: &str) -> Result<Self, StoreError> {
        match std::fs::metadata(path) {
            Ok(_) => Self::open(path),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::create_at(path, cwd)),
            Err(e) => Err(StoreError::io(path, e)),
        }
    }

    fn with(header: SessionHeader, tree: SessionTree, storage: Storage) -> Self {
        Self::with_tree(header, LazyTree::built(tree), storage)
    }

    fn with_tree(header: SessionHeader, tree: LazyTree, storage: Storage) -> Self {
        Self {
            header,
            tree,
            storage,
            durability: Durability::default(),
            warnings: Vec::new(),
            unsaved: Vec::new(),
            index: None,
            write_due: false,
            failure: Failure::None,
        }
    }

    /// Chooses whether appends also `fsync` (see [`Durability`]).
    pub fn set_durability(&mut self, durability: Durability) {
        self.durability = durability;
    }

    /// Line 1 of the file.
    pub fn header(&self) -> &SessionHeader {
        &self.header
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.header.id
    }

    /// The working directory the session belongs to.
    pub fn cwd(&self) -> &str {
        &self.header.cwd
    }

    /// The session file (`None` for an in-memory session).
    pub fn path(&self) -> Option<&Path> {
        match &self.storage {
            Storage::Memory => None,
            Storage::Pending(p) | Storage::Loaded(p, ..) => Some(p),
            Storage::Open(w) => Some(w.path()),
        }
    }

    /// True once the file exists on disk.
    pub fn is_persisted(&self) -> bool {
        matches!(self.storage, Storage::Loaded(..) | Storage::Open(_))
    }

    /// What loading tolerated (e.g. a dropped torn last line).
    pub fn warnings(&self) -> &[LoadWarning] {
        &self.warnings
    }

    /// The entry tree (entries, leaf, children, labels, name).
    pub fn tree(&self) -> &SessionTree {
        self.tree.get()
    }

    /// Whether the entry tree has been made: a session reopened from its leaf summary makes
    /// it when something first needs the entries (start-up and `get_state` do not).
    pub fn is_tree_made(&self) -> bool {
        self.tree.is_made()
    }

    /// All entries in file order.
    pub fn entries(&self) -> &[SessionEntry] {
        self.tree.get().entries()
    }

    /// The current leaf's id (`None` before the first entry or after [`Self::reset_leaf`]).
    pub fn leaf_id(&self) -> Option<&str> {
        match self.tree.unmade() {
            Some(s) => s.summary().leaf.id.as_deref(),
            None => self.tree.get().leaf_id(),
        }
    }

    /// The session name (last `session_info`).
    pub fn name(&self) -> Option<&str> {
        match self.tree.unmade() {
            Some(s) => s.summary().leaf.name.as_deref(),
            None => self.tree.get().name(),
        }
    }

    /// The label of an entry (last `label` targeting it).
    pub fn label(&self, id: &str) -> Option<&str> {
        self.tree.get().label(id)
    }

    /// The LLM context at the current leaf.
    pub fn build_context(&self) -> SessionContext {
        let summarized = self.tree.unmade().and_then(|s| s.context());
        summarized.unwrap_or_else(|| build_context(self.tree.get()))
    }

    /// The thinking level and model at the current leaf and whether the context has any
    /// message: [`Self::build_context`] without gathering the messages.
    pub fn branch_state(&self) -> BranchState {
        match self.tree.unmade() {
            Some(s) => s.summary().leaf.branch.clone(),
            None => branch_state(self.tree.get()),
        }
    }

    /// Appends an entry of any type as a child of the leaf and makes it the leaf. Returns only
    /// once the entry is written (or buffered, for a session not yet written). When writing
    /// fails the entry is still kept in memory (the conversation goes on and an export still
    /// has it) and every later append tries again to write all that is missing, so a folder
    /// that becomes writable again gets the whole session (issue 17 #8).
    pub fn append(&mut self, data: EntryData) -> Result<&SessionEntry, StoreError> {
        self.append_at(data, now_ms())
    }

    /// [`Self::append`] stamped with `ms`.
    #[allow(
        clippy::expect_used,
        reason = "the entry pushed just before is the leaf"
    )]
    fn append_at(&mut self, mut data: EntryData, ms: i64) -> Result<&SessionEntry, StoreError> {
        let tree = self.tree.get_mut();
        let id = tree.new_id();
        // A compaction that keeps nothing names itself as its first kept entry, as pi writes
        // `firstKeptEntryId ?? id`: its callers cannot know the id before it is made.
        if let EntryData::Compaction(c) = &mut data {
            if c.first_kept_entry_id.is_empty() {
                c.first_kept_entry_id = id.clone();
            }
        }
        let entry = SessionEntry {
            id,
            parent_id: tree.leaf_id().map(str::to_string),
            timestamp: format_iso(ms),
            data,
        };
        let line = serde_json::to_vec(&entry)?;
        let starts_file = entry.message_role() == Some("assistant");
        tree.push(entry);
        let position = tree.entries().len() - 1;
        self.unsaved.push(Unsaved { line, position });
        self.write_due |= starts_file;
        match self.write_unsaved() {
            Ok(()) => self.failure = Failure::None,
            Err(e) => {
                if self.failure == Failure::None {
                    self.failure = Failure::New(e.to_string());
                }
                return Err(e);
            }
        }
        Ok((self.tree.get().leaf()).expect("the entry just pushed is the leaf"))
    }

    /// A save failure that began since the last call (`None` while saving works or once the
    /// failure was taken): callers tell the user once per failure, not once per entry.
    pub fn take_new_save_failure(&mut self) -> Option<String> {
        match std::mem::replace(&mut self.failure, Failure::Reported) {
            Failure::New(text) => Some(text),
            other => {
                self.failure = other;
                None
            }
        }
    }

    /// Writes the entries not yet on disk, oldest first.
    fn write_unsaved(&mut self) -> Result<(), StoreError> {
        match &mut self.storage {
            Storage::Memory => self.unsaved.clear(),
            Storage::Pending(path) => {
                // The whole file is written from the tree, which holds every entry.
                self.unsaved.clear();
                if self.write_due {
                    let path = path.clone();
                    self.write_whole(&path)?;
                }
            }
            Storage::Loaded(path, valid_len, needs_newline) => {
                let writer =
                    FileWriter::open_append(path, *valid_len, *needs_newline, self.durability)?;
                self.storage = Storage::Open(writer);
                return self.write_unsaved();
            }
            Storage::Open(writer) => {
                let (written, failed) =
                    append_all(writer, &self.unsaved, self.tree.get(), &mut self.index);
                self.unsaved.drain(..written);
                if let Some(e) = failed {
                    // Reopened on the next try, which cuts off a torn line first.
                    let (path, len) = (writer.path().to_path_buf(), writer.written_len());
                    self.storage = Storage::Loaded(path, len, false);
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Writes the header and every entry so far as a new file, then keeps it open.
    fn write_whole(&mut self, path: &Path) -> Result<(), StoreError> {
        let mut contents = serde_json::to_vec(&self.header)?;
        contents.push(b'\n');
        let mut messages = Vec::new();
        for entry in self.tree.get().entries() {
            let start = contents.len();
            serde_json::to_writer(&mut contents, entry)?;
            if let Some(cell) = entry.stored_message() {
                messages.push((cell, start, contents.len()));
            }
            contents.push(b'\n');
        }
        let writer = FileWriter::create(path, &contents, self.durability)?;
        for (cell, start, end) in messages {
            set_origin(
                cell,
                &contents[start..end],
                writer.message_file(),
                start as u64,
            );
        }
        self.storage = Storage::Open(writer);
        Ok(())
    }

    /// Appends a conversation message (any stored role; a cell or an `Arc` is stored without
    /// copying).
    pub fn append_message(
        &mut self,
        message: impl Into<StoredMessage>,
    ) -> Result<&SessionEntry, StoreError> {
        self.append(EntryData::Message(message.into()))
    }

    /// Records a thinking level change.
    pub fn append_thinking_level_change(
        &mut self,
        level: &str,
    ) -> Result<&SessionEntry, StoreError> {
        self.append(EntryData::ThinkingLevelChange {
            thinking_level: level.to_string(),
        })
    }

    /// Records a model change.
    pub fn append_model_change(
        &mut self,
        provider: &str,
        model_id: &str,
    ) -> Result<&SessionEntry, StoreError> {
        self.append(EntryData::ModelChange {
            provider: provider.to_string(),
            model_id: model_id.to_string(),
        })
    }

    /// Records a compaction: history before `first_kept_entry_id` is replaced by the summary.
    /// Without a `system_message` of its own it gets pi 1.x's checkpoint: what the system
    /// messages of the context replay to, stamped with the entry's time.
    pub fn append_compaction(
        &mut self,
        mut compaction: CompactionData,
    ) -> Result<&SessionEntry, StoreError> {
        let now = now_ms();
        if compaction.system_message.is_none() {
            compaction.system_message =
                super::context::system_checkpoint(&self.build_context(), now).map(Arc::new);
        }
        self.append_at(EntryData::Compaction(Box::new(compaction)), now)
    }

    /// Stores extension state (never in context).
    pub fn append_custom(
        &mut self,
        custom_type: &str,
        data: Option<Value>,
    ) -> Result<&SessionEntry, StoreError> {
        self.append(EntryData::Custom {
            custom_type: custom_type.to_string(),
            data: data.map(Box::new),
        })
    }

    /// Stores an extension message that is part of the context.
    pub fn append_custom_message(
        &mut self,
        custom_type: &str,
        content: UserContent,
        display: bool,
        details: Option<Value>,
    ) -> Result<&SessionEntry, StoreError> {
        self.append(EntryData::CustomMessage {
            custom_type: custom_type.to_string(),
            content,
            display,
            details: details.map(Box::new),
        })
    }

    /// pi 1.x's `context_edit`: replaces an entry's content in the model's context (`None`
    /// omits it) while the entry itself stays in the file.
    pub fn append_context_edit(
        &mut self,
        target_id: &str,
        replacement: Option<UserContent>,
    ) -> Result<&SessionEntry, StoreError> {
        self.require_entry(target_id)?;
        self.append(EntryData::ContextEdit {
            target_id: target_id.to_string(),
            replacement,
        })
    }

    /// Sets (`Some`) or clears (`None`) the label of an existing entry.
    pub fn append_label(
        &mut self,
        target_id: &str,
        label: Option<&str>,
    ) -> Result<&SessionEntry, StoreError> {
        self.require_entry(target_id)?;
        self.append(EntryData::Label {
            target_id: target_id.to_string(),
            label: label.map(str::to_string),
        })
    }

    /// `Ok` when the branch store holds `id`, else the error an edit of it gives.
    fn require_entry(&self, id: &str) -> Result<(), StoreError> {
        match self.tree.get().get(id) {
            Some(_) => Ok(()),
            None => Err(StoreError::UnknownEntry { id: id.to_string() }),
        }
    }

    /// Names the session; the name is trimmed and an empty name clears it.
    pub fn append_session_info(&mut self, name: &str) -> Result<&SessionEntry, StoreError> {
        let name = Some(name.trim())
            .filter(|n| !n.is_empty())
            .map(str::to_string);
        self.append(EntryData::SessionInfo { name })
    }

    /// Starts a new session's branch as pi does (§4.4): a `model_change` when a model is
    /// selected, then a `thinking_level_change`.
    pub fn append_initial_state(
        &mut self,
        model: Option<&ModelRef>,
        thinking_level: &str,
    ) -> Result<(), StoreError> {
        if let Some(m) = model {
            self.append_model_change(&m.provider, &m.model_id)?;
        }
        self.append_thinking_level_change(thinking_level)?;
        Ok(())
    }

    /// On opening an existing session (§4.4): when the current branch has context messages but
    /// no `thinking_level_change`, records `default_level` (the settings default). Returns
    /// whether an entry was appended.
    pub fn ensure_thinking_level(&mut self, default_level: &str) -> Result<bool, StoreError> {
        let branch = self.branch_state();
        if !branch.has_messages || branch.has_thinking_level_change {
            return Ok(false);
        }
        self.append_thinking_level_change(default_level)?;
        Ok(true)
    }

    /// Fails with pi's text when the header's `cwd` no longer exists (non-interactive modes
    /// refuse to resume such a session, §4.7).
    pub fn check_cwd_exists(&self) -> Result<(), StoreError> {
        if Path::new(&self.header.cwd).is_dir() {
            return Ok(());
        }
        Err(StoreError::MissingCwd {
            cwd: self.header.cwd.clone(),
        })
    }

    /// Moves the leaf to `id`: the next append starts a new branch there.
    pub fn branch(&mut self, id: &str) -> Result<(), StoreError> {
        self.tree.get_mut().set_leaf(Some(id))
    }

    /// Moves the leaf before the first entry: the next append is a new root.
    #[allow(
        clippy::expect_used,
        reason = "clearing the leaf names no entry, so it cannot fail"
    )]
    pub fn reset_leaf(&mut self) {
        self.tree
            .get_mut()
            .set_leaf(None)
            .expect("resetting the leaf cannot name a missing entry");
    }

    /// Navigates to `to` (`None`: the root) and attaches a summary of the branch left behind;
    /// its `fromId` is the leaf it was left from, `"root"` when there was none (pi 1.6).
    pub fn branch_with_summary(
        &mut self,
        to: Option<&str>,
        summary: &str,
        details: Option<Value>,
        from_hook: Option<bool>,
    ) -> Result<&SessionEntry, StoreError> {
        let from_id = self.leaf_id().unwrap_or("root").to_string();
        self.tree.get_mut().set_leaf(to)?;
        self.append(EntryData::BranchSummary {
            from_id,
            summary: summary.to_string(),
            details: details.map(Box::new),
            usage: None,
            from_hook,
        })
    }
}

fn new_header(cwd: &str, parent_session: Option<String>) -> SessionHeader {
    let now = now_ms();
    SessionHeader {
        version: CURRENT_VERSION,
        id: uuid_v7(now),
        timestamp: format_iso(now),
        cwd: cwd.to_string(),
        parent_session,
    }
}
