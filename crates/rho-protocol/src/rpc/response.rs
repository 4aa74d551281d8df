//! The response envelope (interfaces spec §1.3): `{"id"?, "type":"response", "command",
//! "success", "data"? | "error"}`, in pi's field order; `id` is omitted when the command had
//! none.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One response line. `D` is the command's `data`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Response<D = Value> {
    /// The command's `id`, echoed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// Always `"response"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The command's `type`.
    pub command: String,
    /// Whether the command succeeded.
    pub success: bool,
    /// The result, for commands that return one (may be literal `null`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<D>,
    /// The failure's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl<D> Response<D> {
    /// A success, with `data` when the command returns some.
    pub fn success(id: Option<Value>, command: &str, data: Option<D>) -> Self {
        Self {
            id,
            kind: "response".into(),
            command: command.into(),
            success: true,
            data,
            error: None,
        }
    }

    /// A failure with its text.
    pub fn failure(id: Option<Value>, command: &str, error: String) -> Self {
        Self {
            id,
            kind: "response".into(),
            command: command.into(),
            success: false,
            data: None,
            error: Some(error),
        }
    }
}
