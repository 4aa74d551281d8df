//! The JSONL messages of the extension process protocol (docs/extensions.md). One JSON object
//! per line; rho's requests carry ids of their own, the extension's calls ids of its own.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::extensions::ExtensionEvent;

/// The handshake's plain-data types live in `rho-extension`, the library extensions written in
/// Rust use, so both ends of the protocol share one definition.
pub use rho_extension::protocol::{
    CommandSpec, FlagSpec, Registration, ShortcutSpec, ToolSpec, PROTOCOL_VERSION,
};

/// rho's first line to a new extension.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hello<'a> {
    /// Always `"hello"`.
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// [`PROTOCOL_VERSION`].
    pub protocol_version: u32,
    /// The session's working directory.
    pub cwd: &'a str,
    /// Whether a UI answers `ui_*` calls.
    #[serde(rename = "hasUI")]
    pub has_ui: bool,
    /// Flag values given on the command line, by flag name.
    pub flags: &'a Map<String, Value>,
}

/// A request rho sends; the extension answers each with a `result` of the same id.
#[derive(Debug, Serialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum Request<'a> {
    /// A subscribed event.
    Event {
        /// Request id.
        id: u64,
        /// The event as in-process handlers see it.
        event: &'a ExtensionEvent,
    },
    /// A `/command` invocation.
    Command {
        /// Request id.
        id: u64,
        /// Registered name.
        name: &'a str,
        /// Everything after the first space, verbatim.
        args: &'a str,
    },
    /// A call of a registered tool.
    Tool {
        /// Request id.
        id: u64,
        /// Tool name.
        name: &'a str,
        /// The model's tool call id.
        tool_call_id: &'a str,
        /// Validated arguments.
        args: &'a Value,
    },
    /// A shortcut key was pressed.
    Shortcut {
        /// Request id.
        id: u64,
        /// The registered key.
        key: &'a str,
    },
    /// rho no longer wants the answer of request `id` (tool aborted, deadline passed).
    Cancel {
        /// The request to stop.
        id: u64,
    },
    /// The answer to one of the extension's calls.
    Reply {
        /// The extension's call id.
        id: u64,
        /// The value on success.
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// The message on failure.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
}

/// A tool's (partial or final) output on the wire.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolPayload {
    /// Text and image blocks for the model.
    #[serde(default)]
    pub content: Vec<rho_ai::ContentBlock>,
    /// Details for UIs.
    #[serde(default)]
    pub details: Option<Value>,
    /// Whether the final result is an error.
    #[serde(default)]
    pub is_error: bool,
}

/// A message the extension sends after the handshake.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Incoming {
    /// The answer to request `id`: `result` on success, `error` on failure.
    Result {
        /// rho's request id.
        id: u64,
        /// Handler result (`null` = no result).
        #[serde(default)]
        result: Value,
        /// Failure message.
        #[serde(default)]
        error: Option<String>,
    },
    /// Progress of a running tool request.
    ToolUpdate {
        /// rho's request id.
        id: u64,
        /// Cumulative partial output.
        partial: ToolPayload,
    },
    /// A call from the extension to rho.
    Call {
        /// The extension's call id.
        id: u64,
        /// Method name (`send_message`, `get_state`, `ui_select`, ...).
        method: String,
        /// Method arguments.
        #[serde(default)]
        params: Value,
    },
}

/// Serialises `msg` as one line (with its newline) into `buf`.
pub fn encode_line<T: Serialize>(msg: &T, buf: &mut Vec<u8>) -> Result<(), serde_json::Error> {
    serde_json::to_writer(&mut *buf, msg)?;
    buf.push(b'\n');
    Ok(())
}

/// The first `max` characters of a line, for error messages about garbage output.
pub fn excerpt(line: &str, max: usize) -> String {
    match line.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &line[..i]),
        None => line.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn requests_encode_as_one_tagged_line() {
        let event = ExtensionEvent::AgentStart;
        let mut buf = Vec::new();
        encode_line(
            &Request::Event {
                id: 7,
                event: &event,
            },
            &mut buf,
        )
        .expect("encodes");
        assert_eq!(
            String::from_utf8(buf).expect("utf8"),
            "{\"type\":\"event\",\"id\":7,\"event\":{\"type\":\"agent_start\"}}\n"
        );
        let args = json!({"a": 1});
        let v = serde_json::to_value(Request::Tool {
            id: 1,
            name: "t",
            tool_call_id: "c1",
            args: &args,
        })
        .expect("encodes");
        assert_eq!(
            v,
            json!({"type": "tool", "id": 1, "name": "t", "toolCallId": "c1", "args": {"a": 1}})
        );
        let v = serde_json::to_value(Request::Reply {
            id: 3,
            result: None,
            error: Some("no".into()),
        })
        .expect("encodes");
        assert_eq!(v, json!({"type": "reply", "id": 3, "error": "no"}));
    }

    #[test]
    fn incoming_messages_parse() {
        let m: Incoming =
            serde_json::from_str(r#"{"type":"result","id":2,"result":{"action":"handled"}}"#)
                .expect("parses");
        assert!(matches!(
            m,
            Incoming::Result {
                id: 2,
                error: None,
                ..
            }
        ));
        let m: Incoming = serde_json::from_str(
            r#"{"type":"tool_update","id":4,"partial":{"content":[{"type":"text","text":"50%"}]}}"#,
        )
        .expect("parses");
        assert!(matches!(m, Incoming::ToolUpdate { id: 4, .. }));
        let m: Incoming =
            serde_json::from_str(r#"{"type":"call","id":1,"method":"get_state"}"#).expect("parses");
        assert!(matches!(
            m,
            Incoming::Call {
                id: 1,
                params: Value::Null,
                ..
            }
        ));
        assert!(serde_json::from_str::<Incoming>(r#"{"type":"bogus"}"#).is_err());
    }

    #[test]
    fn registration_fills_defaults() {
        let r: Registration = serde_json::from_value(json!({
            "name": "x",
            "tools": [{"name": "t", "description": "d"}]
        }))
        .expect("parses");
        assert_eq!(r.tools[0].parameters["type"], "object");
        assert!(r.events.is_empty());
        assert_eq!(excerpt("abcdef", 3), "abc…");
    }
}
