//! Rebuilding what the model sees from the current branch (`buildSessionContext`, interfaces
//! spec §4.8): the messages root→leaf with compaction, branch summaries and pi 1.x context
//! edits applied, plus the thinking level and model in force at the leaf. pi 1.x system
//! messages stay in the list (clients see them) and are dropped by [`SessionContext::to_llm`].

use std::collections::HashMap;

use rho_protocol::agent::SystemState;
use rho_protocol::agent::{
    AgentMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage, StoredMessage,
};
use rho_protocol::{AssistantMessage, ToolResultMessage, UserContent, UserMessage};

use super::entry::{EntryData, SessionEntry};
use super::time::parse_iso;
use super::tree::SessionTree;

/// A model as sessions record it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelRef {
    /// Provider name.
    pub provider: String,
    /// Model id within the provider.
    pub model_id: String,
}

/// The conversation state at a leaf.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionContext {
    /// Messages in order, summaries included. Message entries' cells are shared with the
    /// session, not copied or decoded; [`Self::to_llm`] gives what the model sees.
    pub messages: Vec<StoredMessage>,
    /// The last `thinking_level_change` on the branch, else `off`.
    pub thinking_level: String,
    /// Whether the branch has a `thinking_level_change` (else the settings default applies).
    pub has_thinking_level_change: bool,
    /// The last `model_change` or assistant message's model on the branch.
    pub model: Option<ModelRef>,
}

impl SessionContext {
    /// The messages as the model receives them (`bashExecution` with `excludeFromContext`
    /// dropped, pi roles turned into user messages).
    /// For tests and comparisons: a message that cannot be read back is left out (runs read
    /// the agent's transcript, which reports it).
    pub fn to_llm(&self) -> Vec<rho_protocol::Message> {
        let messages = self.messages.iter().filter_map(|m| m.get().ok());
        messages.filter_map(|m| m.to_llm()).collect()
    }

    /// Deep copies of the messages, for a consumer that must own them (tests, comparisons);
    /// a message that cannot be read back is left out.
    pub fn owned_messages(&self) -> Vec<AgentMessage> {
        let messages = self.messages.iter().filter_map(|m| m.get().ok());
        messages.map(|m| (*m).clone()).collect()
    }
}

/// pi 1.x's compaction checkpoint: the context's system messages replayed into one, at `at`
/// (`None` when the context has none, or one cannot be read back).
pub fn system_checkpoint(context: &SessionContext, at: i64) -> Option<AgentMessage> {
    let mut system = Vec::new();
    for m in context.messages.iter().filter(|m| m.role() == "system") {
        if let AgentMessage::System(s) = &*m.get().ok()? {
            system.push(s.clone());
        }
    }
    SystemState::replay(&system).map(|state| AgentMessage::System(state.checkpoint(at)))
}

/// What a branch sets besides its messages: the thinking level and model in force at its
/// leaf, and whether its context has any message (a resumed conversation). Start-up asks this
/// before the agent exists; gathering a long session's messages for it would be wasted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct BranchState {
    /// The last `thinking_level_change` on the branch, else `off`.
    pub thinking_level: String,
    /// Whether the branch has a `thinking_level_change` (else the settings default applies).
    pub has_thinking_level_change: bool,
    /// The last `model_change` or assistant message's model on the branch.
    pub model: Option<ModelRef>,
    /// The last `model_change` on the branch: a virtual model's selection holds past the
    /// responses after it, which name the physical models it routed to (pi's
    /// `getBranchSelection`; the registry decides whether it names a virtual model).
    pub model_change: Option<ModelRef>,
    /// Whether [`build_context`] would give at least one message.
    pub has_messages: bool,
}

/// The [`BranchState`] at the tree's current leaf.
pub fn branch_state(tree: &SessionTree) -> BranchState {
    let path = tree.branch();
    let scan = scan(&path);
    let selected = selected_entries(&path, scan.compaction_at);
    let edits = latest_edits(&selected);
    let omitted = |e: &SessionEntry| edits.get(e.id.as_str()).is_some_and(|e| e.is_none());
    let has_messages =
        (selected.iter().enumerate()).any(|(i, entry)| !omitted(entry) && contributes(i, entry));
    BranchState {
        thinking_level: scan.thinking_level,
        has_thinking_level_change: scan.has_thinking_level_change,
        model: scan.model.and_then(|i| model_at(path[i])),
        model_change: scan.model_change.and_then(|i| model_at(path[i])),
        has_messages,
    }
}

/// Builds the context at the tree's current leaf (empty when the leaf is reset).
pub fn build_context(tree: &SessionTree) -> SessionContext {
    build_context_for_path(&tree.branch())
}

/// The settings a path's entries make, by position.
struct Scan {
    thinking_level: String,
    has_thinking_level_change: bool,
    /// The last entry naming a model.
    model: Option<usize>,
    /// The last `model_change`.
    model_change: Option<usize>,
    /// The last compaction.
    compaction_at: Option<usize>,
}

/// Reads the path from its end, so that the model is found without looking into any message
/// but the last assistant one (a message's role is behind a pointer: touching each of a long
/// branch's was a noticeable part of opening it).
fn scan(path: &[&SessionEntry]) -> Scan {
    let mut scan = Scan {
        thinking_level: "off".to_string(),
        has_thinking_level_change: false,
        model: None,
        model_change: None,
        compaction_at: None,
    };
    let mut thinking_level = None;
    for (i, entry) in path.iter().enumerate().rev() {
        match &entry.data {
            EntryData::ThinkingLevelChange { thinking_level: t } if thinking_level.is_none() => {
                thinking_level = Some(t);
            }
            EntryData::ModelChange { .. } => {
                scan.model.get_or_insert(i);
                scan.model_change.get_or_insert(i);
            }
            EntryData::Message(m) if scan.model.is_none() && m.role() == "assistant" => {
                scan.model = Some(i);
            }
            EntryData::Compaction(_) => {
                scan.compaction_at.get_or_insert(i);
            }
            _ => {}
        }
    }
    if let Some(level) = thinking_level {
        scan.thinking_level.clone_from(level);
        scan.has_thinking_level_change = true;
    }
    scan
}

/// Builds the context of a root→leaf path.
pub fn build_context_for_path(path: &[&SessionEntry]) -> SessionContext {
    let scan = scan(path);
    let mut ctx = SessionContext {
        model: scan.model.and_then(|i| model_at(path[i])),
        thinking_level: scan.thinking_level,
        has_thinking_level_change: scan.has_thinking_level_change,
        messages: Vec::new(),
    };
    let selected = selected_entries(path, scan.compaction_at);
    let edits = latest_edits(&selected);
    ctx.messages = Vec::with_capacity(selected.len() + 2);
    for (i, entry) in selected.iter().enumerate() {
        let edit = edits.get(entry.id.as_str()).copied();
        if edit.is_some_and(|e| e.is_none()) {
            continue;
        }
        if contributes(i, entry) {
            push_messages(&mut ctx.messages, entry, edit.flatten());
        }
    }
    ctx.messages.shrink_to_fit();
    ctx
}

/// Whether the `i`th selected entry gives the context messages: a compaction only as the
/// first (the one in force), a message, an extension message, a branch summary with text.
fn contributes(i: usize, entry: &SessionEntry) -> bool {
    match &entry.data {
        EntryData::Compaction(_) => i == 0,
        EntryData::Message(_) | EntryData::CustomMessage { .. } => true,
        EntryData::BranchSummary { summary, .. } => !summary.is_empty(),
        _ => false,
    }
}

/// Adds the messages a contributing entry gives the context (a compaction: its system
/// checkpoint and its summary), with an edit's replacement content when there is one.
pub(crate) fn push_messages(
    messages: &mut Vec<StoredMessage>,
    entry: &SessionEntry,
    replacement: Option<&UserContent>,
) {
    match &entry.data {
        EntryData::Compaction(c) => {
            messages.extend(c.system_message.iter().cloned().map(StoredMessage::from));
            let summary = CompactionSummaryMessage {
                summary: c.summary.clone(),
                tokens_before: c.tokens_before,
                timestamp: entry_ms(entry),
            };
            messages.push(AgentMessage::CompactionSummary(summary).into());
        }
        _ => messages.extend(context_message(entry).map(|m| apply_edit(m, replacement))),
    }
}

/// The entries whose messages make up the context at the end of `path`, in order, when the
/// context is just their messages ([`push_messages`] of each): `None` when an edit replaces
/// the content of one of them.
pub(crate) fn contributing_entries<'a>(path: &[&'a SessionEntry]) -> Option<Vec<&'a SessionEntry>> {
    let selected = selected_entries(path, scan(path).compaction_at);
    let edits = latest_edits(&selected);
    let mut entries = Vec::with_capacity(selected.len());
    for (i, entry) in selected.into_iter().enumerate() {
        if !contributes(i, entry) {
            continue;
        }
        match edits.get(entry.id.as_str()) {
            None => entries.push(entry),
            Some(None) => {}
            Some(Some(_)) => return None,
        }
    }
    Some(entries)
}

/// The entries that make up the context (pi's `buildContextEntries`): the whole path, or with a
/// compaction the compaction entry first, then the kept entries before it (system messages
/// left out: the compaction carries their replay), then everything after it.
fn selected_entries<'a>(
    path: &[&'a SessionEntry],
    compaction_at: Option<usize>,
) -> Vec<&'a SessionEntry> {
    let Some(at) = compaction_at else {
        return path.to_vec();
    };
    let EntryData::Compaction(c) = &path[at].data else {
        unreachable!("compaction_at indexes a compaction entry");
    };
    let kept_from = path[..at]
        .iter()
        .position(|e| e.id == c.first_kept_entry_id)
        .unwrap_or(at);
    let is_system = |e: &&&SessionEntry| e.message_role() == Some("system");
    let kept = path[kept_from..at].iter().filter(|e| !is_system(e));
    std::iter::once(&path[at])
        .chain(kept)
        .chain(&path[at + 1..])
        .copied()
        .collect()
}

/// The latest `context_edit` among the selected entries for each target: `Some(None)` omits
/// the target, `Some(Some(content))` replaces its content.
fn latest_edits<'a>(selected: &[&'a SessionEntry]) -> HashMap<&'a str, Option<&'a UserContent>> {
    let mut edits = HashMap::new();
    for entry in selected {
        if let EntryData::ContextEdit {
            target_id,
            replacement,
        } = &entry.data
        {
            edits.insert(target_id.as_str(), replacement.as_ref());
        }
    }
    edits
}

/// The message with an edit's replacement content (its role and metadata unchanged); a string
/// becomes one text block for the roles whose content is a block list. A message that cannot
/// be read back stays as it is (the run that needs it reports the error).
fn apply_edit(stored: StoredMessage, content: Option<&UserContent>) -> StoredMessage {
    let Some(content) = content else {
        return stored;
    };
    let Ok(message) = stored.get() else {
        return stored;
    };
    let edited = match &*message {
        AgentMessage::User(u) => AgentMessage::User(UserMessage {
            content: content.clone(),
            ..u.clone()
        }),
        AgentMessage::Assistant(a) => AgentMessage::Assistant(AssistantMessage {
            content: content.to_blocks(),
            ..a.clone()
        }),
        AgentMessage::ToolResult(t) => AgentMessage::ToolResult(ToolResultMessage {
            content: content.to_blocks(),
            ..t.clone()
        }),
        AgentMessage::Custom(c) => AgentMessage::Custom(CustomMessage {
            content: content.clone(),
            ..c.clone()
        }),
        _ => return stored,
    };
    edited.into()
}

/// The model an entry names: a `model_change`'s, or an assistant message's (decoded).
fn model_at(entry: &SessionEntry) -> Option<ModelRef> {
    let (provider, model_id) = match &entry.data {
        EntryData::ModelChange { provider, model_id } => (provider.clone(), model_id.clone()),
        EntryData::Message(m) => {
            let message = m.get().ok()?;
            let a = message.as_assistant()?;
            (a.provider.clone(), a.model.clone())
        }
        _ => return None,
    };
    Some(ModelRef { provider, model_id })
}

/// The message an entry contributes to the context, if any.
pub fn context_message(entry: &SessionEntry) -> Option<StoredMessage> {
    let message = match &entry.data {
        EntryData::Message(m) => return Some(m.clone()),
        EntryData::CustomMessage {
            custom_type,
            content,
            display,
            details,
        } => Some(AgentMessage::Custom(CustomMessage {
            custom_type: custom_type.clone(),
            content: content.clone(),
            display: *display,
            details: details.as_deref().cloned(),
            timestamp: entry_ms(entry),
        })),
        EntryData::BranchSummary {
            from_id, summary, ..
        } if !summary.is_empty() => Some(AgentMessage::BranchSummary(BranchSummaryMessage {
            summary: summary.clone(),
            from_id: Some(from_id.clone()),
            timestamp: entry_ms(entry),
        })),
        _ => None,
    };
    message.map(StoredMessage::from)
}

/// The entry's timestamp in Unix ms (0 when it is not a valid ISO date).
fn entry_ms(entry: &SessionEntry) -> i64 {
    parse_iso(&entry.timestamp).unwrap_or(0)
}
