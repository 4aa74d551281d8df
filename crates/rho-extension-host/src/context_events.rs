//! The two events that rewrite a request's messages (pi 1.6): `context` sees the
//! conversation without its system messages, and a changed list gets the prompt and tool
//! state back as one leading system message; `context_with_system` then sees everything,
//! system messages included, and what it returns is the request.

use rho_agent::AgentMessage;
use rho_protocol::agent::SystemState;
use serde_json::Value;

use rho_protocol::extension::boundary::BoundaryHandlerError;

use super::events::ExtensionEvent;
use super::{ExtensionContext, ExtensionRunner};

/// pi's error when a `context_with_system` handler drops the leading system message.
const DROPPED_HEAD: &str = "Handler removed the leading system message; the request has no prompt or initial tool declarations. Keep it at index 0 or replace a dropped prefix with getCurrentSystemMessage().";

impl ExtensionRunner {
    /// `context` (EXT-5): each handler's `messages` replaces the working copy. Handlers see
    /// no system messages; a handler that changes the list gets the prompt and tools they
    /// replay to back in front of it (pi's `restoreSystemMessages`).
    pub async fn emit_context(
        &self,
        messages: Vec<AgentMessage>,
        ctx: &ExtensionContext,
    ) -> Vec<AgentMessage> {
        let mut current = messages;
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for("context") {
                let visible: Vec<AgentMessage> = current
                    .iter()
                    .filter(|m| !matches!(m, AgentMessage::System(_)))
                    .cloned()
                    .collect();
                let event = ExtensionEvent::Context {
                    messages: visible.clone(),
                };
                match handler(event, ctx.clone()).await {
                    Err(e) => self.report(&ext.path, "context", e),
                    Ok(Some(v)) => match self.reported(&ext.path, "context", v) {
                        Some(Ok(returned)) if returned != visible => {
                            current = with_system_head(&current, returned);
                        }
                        Some(Err(e)) => {
                            self.report(&ext.path, "context", format!("invalid messages: {e}"))
                        }
                        _ => {}
                    },
                    Ok(None) => {}
                }
            }
        }
        current
    }

    /// `context_with_system` (pi 1.6): each handler's `messages` replaces the whole request,
    /// system messages included. Dropping the leading system message is reported, as pi
    /// does, and the request goes without a prompt.
    pub async fn emit_context_with_system(
        &self,
        messages: Vec<AgentMessage>,
        ctx: &ExtensionContext,
    ) -> Vec<AgentMessage> {
        let mut current = messages;
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for("context_with_system") {
                let had_head = matches!(current.first(), Some(AgentMessage::System(_)));
                let event = ExtensionEvent::ContextWithSystem {
                    messages: current.clone(),
                };
                match handler(event, ctx.clone()).await {
                    Err(e) => self.report(&ext.path, "context_with_system", e),
                    Ok(Some(v)) => match self.reported(&ext.path, "context_with_system", v) {
                        Some(Ok(returned)) => current = returned,
                        Some(Err(e)) => self.report(
                            &ext.path,
                            "context_with_system",
                            format!("invalid messages: {e}"),
                        ),
                        None => {}
                    },
                    Ok(None) => {}
                }
                if had_head && !matches!(current.first(), Some(AgentMessage::System(_))) {
                    self.report(&ext.path, "context_with_system", DROPPED_HEAD.into());
                }
            }
        }
        current
    }
}

impl ExtensionRunner {
    /// Reports the failures an extension names in its result's `errors` (a host running
    /// several handlers goes on past a failing one, as pi does), then gives the result's
    /// `messages`, if it has any.
    fn reported(
        &self,
        path: &str,
        event: &str,
        mut result: Value,
    ) -> Option<Result<Vec<AgentMessage>, serde_json::Error>> {
        if let Some(errors) = result.get_mut("errors").map(Value::take) {
            match serde_json::from_value::<Vec<BoundaryHandlerError>>(errors) {
                Ok(errors) => {
                    for e in errors {
                        self.report(&e.extension_path, event, e.error);
                    }
                }
                Err(e) => self.report(path, event, format!("invalid errors: {e}")),
            }
        }
        result
            .get_mut("messages")
            .map(Value::take)
            .filter(|m| !m.is_null())
            .map(serde_json::from_value)
    }
}

/// `returned` led by what `current`'s system messages replay to (pi-ai's
/// `getCurrentSystemMessage`), or as it is when `current` has none.
fn with_system_head(current: &[AgentMessage], returned: Vec<AgentMessage>) -> Vec<AgentMessage> {
    let system = current.iter().filter_map(|m| match m {
        AgentMessage::System(s) => Some(s),
        _ => None,
    });
    let Some(state) = SystemState::replay(system) else {
        return returned;
    };
    let head = AgentMessage::System(state.checkpoint(state.timestamp));
    std::iter::once(head).chain(returned).collect()
}

#[cfg(test)]
mod tests {
    use rho_protocol::agent::message::SystemMessage;
    use rho_protocol::message::{UserContent, UserMessage};
    use serde_json::json;

    use super::*;

    fn user(text: &str) -> AgentMessage {
        AgentMessage::User(UserMessage {
            content: UserContent::Text(text.into()),
            timestamp: 1,
        })
    }

    fn system(content: &str, sections: Value, timestamp: i64) -> AgentMessage {
        AgentMessage::System(SystemMessage {
            content: UserContent::Text(content.into()),
            sections: sections.as_object().cloned(),
            tools_added: None,
            tools_removed: None,
            timestamp,
        })
    }

    #[test]
    fn a_changed_list_is_led_by_the_replayed_system_state() {
        let current = vec![
            system("base", json!({"a": "A"}), 5),
            user("one"),
            system("", json!({"a": "A2", "b": "B"}), 9),
            user("two"),
        ];
        let out = with_system_head(&current, vec![user("two")]);
        assert_eq!(out.len(), 2);
        let AgentMessage::System(head) = &out[0] else {
            panic!("no head: {out:?}")
        };
        assert_eq!(head.timestamp, 5);
        assert_eq!(head.content.text(), "base");
        assert_eq!(
            Value::Object(head.sections.clone().unwrap_or_default()),
            json!({"a": "A2", "b": "B"})
        );
        assert_eq!(out[1], user("two"));
    }

    #[test]
    fn without_system_messages_the_returned_list_stands_alone() {
        let out = with_system_head(&[user("one")], vec![user("x")]);
        assert_eq!(out, vec![user("x")]);
    }
}
