//! Rebuilding what the model sees from the current branch (`buildSessionContext`, interfaces
//! spec §4.8): the messages root→leaf with compaction and branch summaries applied, plus the
//! thinking level and model in force at the leaf.

use std::sync::Arc;

use rho_agent::{AgentMessage, BranchSummaryMessage, CompactionSummaryMessage, CustomMessage};

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
    /// Messages in order, summaries included. Message entries are shared with the session,
    /// not copied; [`Self::to_llm`] gives what the model sees.
    pub messages: Vec<Arc<AgentMessage>>,
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
    pub fn to_llm(&self) -> Vec<rho_ai::Message> {
        self.messages.iter().filter_map(|m| m.to_llm()).collect()
    }

    /// Owned copies of the messages, for a consumer that must hold `AgentMessage`s.
    pub fn owned_messages(&self) -> Vec<AgentMessage> {
        self.messages.iter().map(|m| (**m).clone()).collect()
    }
}

/// Builds the context at the tree's current leaf (empty when the leaf is reset).
pub fn build_context(tree: &SessionTree) -> SessionContext {
    build_context_for_path(&tree.branch())
}

/// Builds the context of a root→leaf path.
pub fn build_context_for_path(path: &[&SessionEntry]) -> SessionContext {
    let mut ctx = SessionContext {
        thinking_level: "off".to_string(),
        ..Default::default()
    };
    let mut compaction_at = None;
    let mut model: Option<(&str, &str)> = None;
    for (i, entry) in path.iter().enumerate() {
        match &entry.data {
            EntryData::ThinkingLevelChange { thinking_level } => {
                ctx.thinking_level.clone_from(thinking_level);
                ctx.has_thinking_level_change = true;
            }
            EntryData::ModelChange { provider, model_id } => model = Some((provider, model_id)),
            EntryData::Message(m) => {
                if let Some(a) = m.as_assistant() {
                    model = Some((&a.provider, &a.model));
                }
            }
            EntryData::Compaction(_) => compaction_at = Some(i),
            _ => {}
        }
    }
    ctx.model = model.map(|(provider, model_id)| ModelRef {
        provider: provider.to_string(),
        model_id: model_id.to_string(),
    });
    ctx.messages = Vec::with_capacity(path.len() + 1);
    let Some(at) = compaction_at else {
        ctx.messages
            .extend(path.iter().filter_map(|e| context_message(e)));
        ctx.messages.shrink_to_fit();
        return ctx;
    };
    let EntryData::Compaction(c) = &path[at].data else {
        unreachable!("compaction_at indexes a compaction entry");
    };
    ctx.messages.push(Arc::new(AgentMessage::CompactionSummary(
        CompactionSummaryMessage {
            summary: c.summary.clone(),
            tokens_before: c.tokens_before,
            timestamp: entry_ms(path[at]),
        },
    )));
    let kept_from = path[..at]
        .iter()
        .position(|e| e.id == c.first_kept_entry_id)
        .unwrap_or(at);
    let kept = path[kept_from..at].iter().chain(&path[at + 1..]);
    ctx.messages.extend(kept.filter_map(|e| context_message(e)));
    ctx.messages.shrink_to_fit();
    ctx
}

/// The message an entry contributes to the context, if any.
fn context_message(entry: &SessionEntry) -> Option<Arc<AgentMessage>> {
    let message = match &entry.data {
        EntryData::Message(m) => return Some(Arc::clone(m)),
        EntryData::CustomMessage {
            custom_type,
            content,
            display,
            details,
        } => Some(AgentMessage::Custom(CustomMessage {
            custom_type: custom_type.clone(),
            content: content.clone(),
            display: *display,
            details: details.clone(),
            timestamp: entry_ms(entry),
        })),
        EntryData::BranchSummary {
            from_id, summary, ..
        } if !summary.is_empty() => Some(AgentMessage::BranchSummary(BranchSummaryMessage {
            summary: summary.clone(),
            from_id: from_id.clone(),
            timestamp: entry_ms(entry),
        })),
        _ => None,
    };
    message.map(Arc::new)
}

/// The entry's timestamp in Unix ms (0 when it is not a valid ISO date).
fn entry_ms(entry: &SessionEntry) -> i64 {
    parse_iso(&entry.timestamp).unwrap_or(0)
}
