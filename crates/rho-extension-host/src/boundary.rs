//! pi 1.6's actionable boundaries (`turn_end`, `agent_before_settle`): handlers run in load
//! order, each sees the entries and continuation proposed so far and the model context
//! rebuilt from them, and a returned field replaces only that field. The proposal is checked
//! after every handler (by rebuilding the context); the last check decides whether it is
//! appended. The session applies the outcome; the runner only folds.

use std::sync::Arc;

use rho_protocol::extension::boundary::{BoundaryResult, DraftError};
use serde_json::Value;

use crate::events::ExtensionEvent;
use crate::{ExtensionContext, ExtensionRunner};

/// Rebuilds the model context with proposed drafts applied (pi's `BoundaryContextPreview`),
/// or says why the drafts cannot be applied.
pub type BoundaryPreview = Arc<dyn Fn(&[Value]) -> Result<Value, PreviewError> + Send + Sync>;

/// Why a boundary's context could not be rebuilt.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PreviewError {
    /// A draft cannot be applied.
    #[error(transparent)]
    Draft(#[from] DraftError),
    /// The session went away meanwhile.
    #[error("the session is gone")]
    SessionGone,
}

/// Which boundary, with the fields of its event that do not change between handlers.
// One value per boundary, never stored in bulk: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Boundary {
    /// A turn ended.
    TurnEnd {
        turn_index: u32,
        message: rho_agent::AgentMessage,
        tool_results: Vec<rho_ai::ToolResultMessage>,
        message_entry_id: String,
        tool_result_entry_ids: Vec<String>,
        outcome: String,
    },
    /// The run is about to settle.
    AgentBeforeSettle { outcome: String },
}

impl Boundary {
    /// The event name.
    pub fn name(&self) -> &'static str {
        match self {
            Boundary::TurnEnd { .. } => "turn_end",
            Boundary::AgentBeforeSettle { .. } => "agent_before_settle",
        }
    }

    /// The event a handler gets, with the proposal so far.
    fn event(&self, entries: &[Value], continue_: bool, context: &Value) -> ExtensionEvent {
        let (entries, context) = (entries.to_vec(), context.clone());
        match self.clone() {
            Boundary::TurnEnd {
                turn_index,
                message,
                tool_results,
                message_entry_id,
                tool_result_entry_ids,
                outcome,
            } => ExtensionEvent::TurnEnd {
                turn_index,
                message,
                tool_results,
                message_entry_id,
                tool_result_entry_ids,
                outcome,
                entries,
                continue_,
                context,
            },
            Boundary::AgentBeforeSettle { outcome } => ExtensionEvent::AgentBeforeSettle {
                outcome,
                entries,
                continue_,
                context,
            },
        }
    }
}

/// What the handlers of a boundary decided.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BoundaryOutcome {
    /// The drafts to append, in order (empty when the final proposal was invalid).
    pub entries: Vec<Value>,
    /// Whether one more provider request was asked for (false when invalid).
    pub continue_: bool,
}

impl ExtensionRunner {
    /// Runs the handlers of `boundary` in load order, folding their proposals; `preview`
    /// rebuilds the context from a proposal (and checks it). A failing handler is reported
    /// and the rest still run; a proposal that cannot be applied is reported as
    /// `Invalid boundary entries: …` and, if the last check fails, nothing is appended and
    /// no continuation asked.
    pub async fn emit_boundary(
        &self,
        boundary: &Boundary,
        preview: BoundaryPreview,
        ctx: &ExtensionContext,
    ) -> BoundaryOutcome {
        let name = boundary.name();
        let mut ctx = ctx.clone();
        ctx.boundary_preview = Some(preview.clone());
        let mut entries: Vec<Value> = Vec::new();
        let mut continue_ = false;
        let mut context = preview(&entries).unwrap_or(Value::Null);
        let mut valid = true;
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for(name) {
                let event = boundary.event(&entries, continue_, &context);
                let mut changed = false;
                match handler(event, ctx.clone()).await {
                    Ok(Some(v)) => match serde_json::from_value::<BoundaryResult>(v) {
                        Ok(result) => {
                            for e in result.errors {
                                self.report(&e.extension_path, name, e.error);
                            }
                            if let Some(proposed) = result.entries {
                                entries = proposed;
                                changed = true;
                            }
                            if let Some(c) = result.continue_ {
                                continue_ = c;
                            }
                        }
                        Err(e) => self.report(&ext.path, name, format!("invalid result: {e}")),
                    },
                    Ok(None) => {}
                    Err(e) => self.report(&ext.path, name, e),
                }
                // The context depends on the entries only: rebuilt (and checked) when a
                // handler proposed new ones.
                if !changed {
                    continue;
                }
                match preview(&entries) {
                    Ok(c) => {
                        context = c;
                        valid = true;
                    }
                    Err(e) => {
                        valid = false;
                        self.report(&ext.path, name, format!("Invalid boundary entries: {e}"));
                    }
                }
            }
        }
        if valid {
            BoundaryOutcome { entries, continue_ }
        } else {
            BoundaryOutcome::default()
        }
    }
}
