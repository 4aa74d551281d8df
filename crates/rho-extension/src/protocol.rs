//! The JSONL messages of the extension process protocol, seen from the extension's side
//! (docs/extensions.md). One JSON object per line; rho's requests and the extension's calls
//! carry ids of their own.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The protocol version this library speaks; rho sends its own in `hello`.
pub const PROTOCOL_VERSION: u32 = 1;

/// rho's first line: where the session runs and the flag values the user gave.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Hello {
    /// The protocol version rho speaks.
    #[serde(default)]
    pub protocol_version: u32,
    /// The session's working directory.
    #[serde(default)]
    pub cwd: String,
    /// Whether a UI answers `ui_*` calls (without one, `confirm` is `false`, `select` `None`).
    #[serde(default, rename = "hasUI")]
    pub has_ui: bool,
    /// Values the user gave for declared flags, by name; a flag not given is absent.
    #[serde(default)]
    pub flags: Map<String, Value>,
}

/// A `/command` the extension registers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandSpec {
    /// Invocation name without the slash.
    pub name: String,
    /// Shown in completions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A tool the extension registers; it joins the model's tool list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: String,
    /// Short label for UIs (rho uses the name when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of the arguments.
    #[serde(default = "empty_object_schema")]
    pub parameters: Value,
}

/// `{"type":"object","properties":{}}`: the schema of a tool without arguments.
pub fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}

/// A command-line flag the extension declares (`--name`); its value arrives in [`Hello`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlagSpec {
    /// Flag name without dashes.
    pub name: String,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `"boolean"` or `"string"`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The value the extension assumes when the flag is not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

/// A keyboard shortcut the extension declares; interactive mode sends `shortcut` requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShortcutSpec {
    /// Key chord, e.g. `ctrl+shift+g`.
    pub key: String,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// The answer to `hello`: everything the extension registers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Registration {
    /// Human name.
    pub name: String,
    /// Event types it handles, e.g. `["input", "tool_call"]`.
    #[serde(default)]
    pub events: Vec<String>,
    /// Commands.
    #[serde(default)]
    pub commands: Vec<CommandSpec>,
    /// Tools.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// Flags.
    #[serde(default)]
    pub flags: Vec<FlagSpec>,
    /// Shortcuts.
    #[serde(default)]
    pub shortcuts: Vec<ShortcutSpec>,
    /// Messages for the user about loading (rho shows them as warnings), e.g. the pi host's
    /// "extension x.ts was not loaded: ..." or an unsupported call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
}

/// A line from rho.
#[derive(Debug, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum FromRho {
    /// The handshake's first line.
    Hello(Hello),
    /// A subscribed event; answer with its result object or `null`.
    Event {
        /// Request id.
        id: u64,
        /// The event JSON (`type` in snake_case, fields in camelCase).
        event: Value,
    },
    /// `/name args` was invoked.
    Command {
        /// Request id.
        id: u64,
        /// Registered name.
        name: String,
        /// Everything after the first space, verbatim.
        #[serde(default)]
        args: String,
    },
    /// The model called a registered tool.
    Tool {
        /// Request id.
        id: u64,
        /// Tool name.
        name: String,
        /// The model's tool call id.
        #[serde(default)]
        tool_call_id: String,
        /// The arguments.
        #[serde(default)]
        args: Value,
    },
    /// A registered shortcut was pressed.
    Shortcut {
        /// Request id.
        id: u64,
        /// The key.
        key: String,
    },
    /// rho no longer waits for request `id` (tool aborted, deadline passed).
    Cancel {
        /// The request.
        id: u64,
    },
    /// The answer to one of the extension's calls.
    Reply {
        /// The call's id.
        id: u64,
        /// The value on success.
        #[serde(default)]
        result: Value,
        /// The message on failure.
        #[serde(default)]
        error: Option<String>,
    },
    /// A message type this version does not know; ignored.
    #[serde(other)]
    Unknown,
}

/// A line to rho.
#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToRho<'a> {
    /// The handshake's answer.
    Register(&'a Registration),
    /// The answer to request `id`.
    Result {
        /// rho's request id.
        id: u64,
        /// The value on success (`null` = no result).
        #[serde(skip_serializing_if = "Option::is_none")]
        result: Option<&'a Value>,
        /// The message on failure.
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<&'a str>,
    },
    /// A cumulative partial result of running tool request `id`.
    ToolUpdate {
        /// rho's request id.
        id: u64,
        /// `{content, details?}`.
        partial: &'a Value,
    },
    /// A call into rho.
    Call {
        /// The extension's call id.
        id: u64,
        /// Method name.
        method: &'a str,
        /// Method arguments.
        params: &'a Value,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn lines_to_rho_match_the_documented_shapes() {
        let reg = Registration {
            name: "guard".into(),
            events: vec!["tool_call".into()],
            ..Registration::default()
        };
        let v = serde_json::to_value(ToRho::Register(&reg)).expect("encodes");
        assert_eq!(
            v,
            json!({"type": "register", "name": "guard", "events": ["tool_call"], "commands": [],
                   "tools": [], "flags": [], "shortcuts": []})
        );
        let null = Value::Null;
        let v = serde_json::to_value(ToRho::Result {
            id: 3,
            result: Some(&null),
            error: None,
        })
        .expect("encodes");
        assert_eq!(v, json!({"type": "result", "id": 3, "result": null}));
        let v = serde_json::to_value(ToRho::Result {
            id: 4,
            result: None,
            error: Some("no"),
        })
        .expect("encodes");
        assert_eq!(v, json!({"type": "result", "id": 4, "error": "no"}));
        let params = json!({});
        let v = serde_json::to_value(ToRho::Call {
            id: 1,
            method: "get_state",
            params: &params,
        })
        .expect("encodes");
        assert_eq!(
            v,
            json!({"type": "call", "id": 1, "method": "get_state", "params": {}})
        );
    }

    #[test]
    fn lines_from_rho_parse() {
        let m: FromRho = serde_json::from_str(
            r#"{"type":"hello","protocolVersion":1,"cwd":"/w","hasUI":true,"flags":{"v":true}}"#,
        )
        .expect("parses");
        let FromRho::Hello(h) = m else {
            panic!("hello expected, got {m:?}")
        };
        assert!(h.has_ui);
        assert_eq!(h.flags["v"], true);
        let m: FromRho = serde_json::from_str(
            r#"{"type":"tool","id":2,"name":"t","toolCallId":"c1","args":{"a":1}}"#,
        )
        .expect("parses");
        assert!(matches!(m, FromRho::Tool { id: 2, ref tool_call_id, .. } if tool_call_id == "c1"));
        let m: FromRho =
            serde_json::from_str(r#"{"type":"reply","id":5,"error":"bad"}"#).expect("parses");
        assert!(matches!(
            m,
            FromRho::Reply {
                id: 5,
                error: Some(_),
                ..
            }
        ));
        let m: FromRho = serde_json::from_str(r#"{"type":"future_thing","x":1}"#).expect("parses");
        assert!(matches!(m, FromRho::Unknown));
    }
}
