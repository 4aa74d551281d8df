//! The per-event pipeline (SE-1..6): the run driver processes each agent event to completion
//! before the next: user and queue bookkeeping, extension handlers, persistence, listeners,
//! then assistant tracking.

use std::sync::Arc;

use rho_agent::queue::Queue;
use rho_agent::{AgentEvent, AgentMessage};
use rho_ai::StopReason;

use super::events::SessionOnlyEvent;
use super::phase::RunPhase;
use super::task::{data as run_data, Data};
use super::AgentSession;
use rho_extension_host::ExtensionEvent;

impl AgentSession {
    /// SE-3 for one event: (a) user and queue bookkeeping, (b) extension handlers, (d)
    /// persistence, then (c) listeners (the durability rule moves persistence first), (e)
    /// assistant tracking. `from` is the queue a started message was taken from.
    pub(crate) async fn handle_agent_event(
        &self,
        event: Arc<AgentEvent>,
        from: Option<Queue>,
        data: &Data,
    ) {
        if let Some(queue) = from {
            self.on_queue_delivery(queue);
        }
        match &*event {
            AgentEvent::MessageStart {
                message: AgentMessage::User(_),
            } => run_data(data).overflow_recovery_attempted = false,
            AgentEvent::AgentStart => {
                self.inner.run.set_phase(RunPhase::Running);
                run_data(data).turn_index = 0;
                self.inner.boundaries.set_turn_index(0);
            }
            AgentEvent::AgentEnd { .. } => self.inner.run.set_phase(RunPhase::Finishing),
            _ => {}
        }
        let event = self.with_will_retry(event);
        // Kept only for a `turn_end` handler to wait on (it holds the message in memory).
        let sent = match &*event {
            AgentEvent::MessageEnd { message }
                if self.inner.services.extensions.has_handlers("turn_end") =>
            {
                Some(Arc::clone(message))
            }
            _ => None,
        };
        let event = self.run_extension_handlers(event, data).await;
        // A reply discarded by steering (D4) is on the stream only: not persisted, not the
        // reply post-run looks at.
        let kept_end = match &*event {
            AgentEvent::MessageEnd { message } => match &**message {
                AgentMessage::Assistant(a) if rho_agent::is_discarded(a) => None,
                _ => Some(message),
            },
            _ => None,
        };
        // The durability rule: an entry is written before any event announcing it leaves the
        // process, so a client that saw `message_end` finds the message in the file even if
        // rho is killed the next instant (pi persists after its listeners; rho does not).
        // A run a manual compaction aborts is not written at all (SE-9).
        if let Some(message) = kept_end.filter(|_| !self.inner.run.get().detached) {
            self.persist(message);
        }
        self.emit(super::SessionEvent::Agent(event.clone()));
        if let Some(AgentMessage::Assistant(a)) = kept_end.map(|m| &**m) {
            self.on_assistant_end(a, data);
            self.inner.processed_assistant.send_replace(a.timestamp);
        }
        if let Some(sent) = sent {
            self.inner.boundaries.message_processed(&sent);
        }
        if let AgentEvent::TurnEnd { .. } = &*event {
            let mut d = run_data(data);
            d.turn_index += 1;
            self.inner.boundaries.set_turn_index(d.turn_index);
        }
    }

    /// `agent_end` as listeners get it: with `will_retry` set when the retry stage will
    /// retry (the agent itself cannot know).
    fn with_will_retry(&self, event: Arc<AgentEvent>) -> Arc<AgentEvent> {
        match &*event {
            AgentEvent::AgentEnd { messages, .. } if self.will_retry_after(messages) => {
                Arc::new(AgentEvent::AgentEnd {
                    messages: messages.clone(),
                    will_retry: true,
                })
            }
            _ => event,
        }
    }

    /// SE-6: remember the reply for post-run; a good reply clears the overflow flag and ends
    /// a retry sequence successfully (RETRY-9).
    fn on_assistant_end(&self, reply: &rho_ai::AssistantMessage, data: &Data) {
        let success_attempt = {
            let mut d = run_data(data);
            d.last_assistant = Some(reply.clone());
            if reply.stop_reason == StopReason::Error {
                None
            } else {
                d.overflow_recovery_attempted = false;
                let attempt = self.inner.run.take_retry_attempt();
                (attempt > 0).then_some(attempt)
            }
        };
        if let Some(attempt) = success_attempt {
            self.emit_session(SessionOnlyEvent::AutoRetryEnd {
                success: true,
                attempt,
                final_error: None,
            });
        }
    }

    /// SE-4: `custom` → custom_message entry; system (pi 1.x)/user/assistant/toolResult →
    /// message entry.
    /// Records a finished message; the entry shares the transcript's cell, so once the line
    /// is on disk both can let the decoded message go.
    fn persist(&self, message: &Arc<AgentMessage>) {
        if matches!(&**message, AgentMessage::ToolResult(_)) {
            self.write_codemode_store();
        }
        let cell = self.inner.services.agent.stored_message_of(message);
        let result = {
            let mut s = self.state();
            match &**message {
                AgentMessage::Custom(c) => s
                    .session
                    .append_custom_message(
                        &c.custom_type,
                        c.content.clone(),
                        c.display,
                        c.details.clone(),
                    )
                    .map(|_| ()),
                AgentMessage::System(_)
                | AgentMessage::User(_)
                | AgentMessage::Assistant(_)
                | AgentMessage::ToolResult(_) => {
                    let cell = cell.unwrap_or_else(|| Arc::clone(message).into());
                    s.session.append_message(cell).map(|_| ())
                }
                _ => Ok(()),
            }
        };
        if result.is_err() {
            self.announce_save_failure();
        }
    }

    /// Forwards the event to extension handlers (EXT-9); a `message_end` replacement is
    /// applied to the agent state and returned (EXT-12, SE-5).
    async fn run_extension_handlers(&self, event: Arc<AgentEvent>, data: &Data) -> Arc<AgentEvent> {
        let runner = &self.inner.services.extensions;
        if runner.has_handlers("message_update") {
            fold_for_extensions(&mut run_data(data), &event);
        }
        if !runner.has_handlers(event.type_name()) {
            return event;
        }
        let ctx = self.run_ctx();
        if let AgentEvent::MessageEnd { message } = &*event {
            if let Some(replacement) = runner.emit_message_end(message, &ctx).await {
                let replacement = Arc::new(replacement);
                self.replace_last_message(message, Arc::clone(&replacement));
                return Arc::new(AgentEvent::MessageEnd {
                    message: replacement,
                });
            }
            return event;
        }
        let ext_event = {
            let mut data = run_data(data);
            let partial = match &*event {
                AgentEvent::MessageUpdate { .. } => data
                    .extension_partial
                    .as_mut()
                    .and_then(|p| p.message().cloned()),
                _ => None,
            };
            extension_event(&event, data.turn_index, partial)
        };
        if let Some(ext_event) = ext_event {
            runner.emit(ext_event, &ctx).await;
        }
        event
    }

    fn replace_last_message(&self, original: &Arc<AgentMessage>, replacement: Arc<AgentMessage>) {
        let mut messages = self.inner.services.agent.stored_messages();
        if let Some(slot) = messages
            .iter_mut()
            .rev()
            .find(|m| m.holds(original) || m.held().is_some_and(|held| *held == **original))
        {
            *slot = replacement.into();
            self.inner.services.agent.set_messages(messages);
        }
    }
}

/// Folds the streaming reply for extensions' `message_update` (agent events carry the
/// delta, extensions are given the partial message).
fn fold_for_extensions(data: &mut super::task::RunData, event: &AgentEvent) {
    match event {
        AgentEvent::MessageStart {
            message: AgentMessage::Assistant(m),
        } => data.extension_partial = Some(rho_ai::PartialMessage::starting(m.clone())),
        AgentEvent::MessageUpdate {
            assistant_message_event,
            ..
        } => {
            if let Some(partial) = data.extension_partial.as_mut() {
                partial.apply(assistant_message_event);
            }
        }
        AgentEvent::MessageEnd { .. } | AgentEvent::AgentEnd { .. } => {
            data.extension_partial = None
        }
        _ => {}
    }
}

/// The extension event for an agent event (EXT-9, EXT-13); `message_end` and `turn_end`
/// have their own paths, and `message_update` needs the partial reply folded for
/// extensions (`partial`).
fn extension_event(
    event: &AgentEvent,
    turn_index: u32,
    partial: Option<rho_ai::AssistantMessage>,
) -> Option<ExtensionEvent> {
    let value = |e: &AgentEvent, field: &str| {
        serde_json::to_value(e)
            .ok()
            .and_then(|v| v.get(field).cloned())
            .unwrap_or_default()
    };
    Some(match event {
        AgentEvent::AgentStart => ExtensionEvent::AgentStart,
        AgentEvent::AgentEnd { messages, .. } => ExtensionEvent::AgentEnd {
            messages: messages.clone(),
        },
        AgentEvent::TurnStart => ExtensionEvent::TurnStart {
            turn_index,
            timestamp: rho_ai::now_ms(),
        },
        // Extensions get `turn_end` as an actionable boundary, before this event
        // (`boundary.rs`); a reply steering discarded (D4) is no boundary.
        AgentEvent::TurnEnd { .. } => return None,
        AgentEvent::MessageStart { message } => ExtensionEvent::MessageStart {
            message: message.clone(),
        },
        AgentEvent::MessageUpdate { .. } => ExtensionEvent::MessageUpdate {
            message: AgentMessage::Assistant(partial?),
            assistant_message_event: value(event, "assistantMessageEvent"),
        },
        AgentEvent::MessageEnd { .. } => return None,
        AgentEvent::ToolExecutionStart {
            tool_call_id,
            tool_name,
            args,
            parent_tool_call_id,
        } => ExtensionEvent::ToolExecutionStart {
            tool_call_id: tool_call_id.clone(),
            tool_name: tool_name.clone(),
            args: args.clone(),
            parent_tool_call_id: parent_tool_call_id.clone(),
        },
        AgentEvent::ToolExecutionUpdate {
            tool_call_id,
            tool_name,
            args,
            parent_tool_call_id,
            ..
        } => ExtensionEvent::ToolExecutionUpdate {
            tool_call_id: tool_call_id.clone(),
            tool_name: tool_name.clone(),
            args: args.clone(),
            partial_result: value(event, "partialResult"),
            parent_tool_call_id: parent_tool_call_id.clone(),
        },
        AgentEvent::ToolExecutionEnd {
            tool_call_id,
            tool_name,
            is_error,
            parent_tool_call_id,
            ..
        } => ExtensionEvent::ToolExecutionEnd {
            tool_call_id: tool_call_id.clone(),
            tool_name: tool_name.clone(),
            result: value(event, "result"),
            is_error: *is_error,
            parent_tool_call_id: parent_tool_call_id.clone(),
        },
    })
}
