//! The two events that rewrite a request's messages (pi 1.6): `context` sees the
//! conversation without its system messages, and a changed list gets the prompt and tool
//! state back as one leading system message; `context_with_system` then sees everything,
//! system messages included, and what it returns is the request.

use rho_agent::AgentMessage;
use rho_protocol::agent::SystemState;
use rho_protocol::extension::boundary::BoundaryHandlerError;
use serde_json::Value;

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
                let result = handler(event, ctx.clone()).await;
                match self.messages_of(&ext.path, "context", result) {
                    Some(returned) if returned != visible => {
                        current = with_system_head(&current, returned);
                    }
                    _ => {}
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
                let result = handler(event, ctx.clone()).await;
                if let Some(returned) = self.messages_of(&ext.path, "context_with_system", result) {
                    current = returned;
                }
                if had_head && !matches!(current.first(), Some(AgentMessage::System(_))) {
                    self.report(&ext.path, "context_with_system", DROPPED_HEAD.into());
                }
            }
        }
        current
    }

    /// The `messages` a handler of `event` returned, if valid. Everything else is reported:
    /// the handler's failure, an invalid list, and the failures an extension process names
    /// in its result's `errors` (a host running several handlers goes on past a failing
    /// one, as pi does).
    fn messages_of(
        &self,
        path: &str,
        event: &str,
        result: Result<Option<Value>, String>,
    ) -> Option<Vec<AgentMessage>> {
        let mut result = match result {
            Ok(Some(result)) => result,
            Ok(None) => return None,
            Err(e) => {
                self.report(path, event, e);
                return None;
            }
        };
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
        let messages = result.get_mut("messages").map(Value::take)?;
        if messages.is_null() {
            return None;
        }
        serde_json::from_value(messages)
            .map_err(|e| self.report(path, event, format!("invalid messages: {e}")))
            .ok()
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
