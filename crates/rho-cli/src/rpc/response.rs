//! Response envelopes (interfaces spec §1.3): `{"id"?, "type":"response", "command",
//! "success", "data"? | "error"}`; `id` is omitted when the command had none. Serialized
//! once, in pi's field order.

use serde::Serialize;
use serde_json::Value;

/// What a command produced.
pub enum Reply {
    /// Success without `data`.
    Done,
    /// Success with `data` (may be literal `null`).
    Data(Value),
    /// Success with `data` already encoded as JSON (large replies are encoded straight
    /// from the session's messages, without a `Value` tree).
    Encoded(Vec<u8>),
    /// Failure with the error text.
    Error(String),
}

impl From<Result<Value, String>> for Reply {
    fn from(r: Result<Value, String>) -> Self {
        match r {
            Ok(v) => Reply::Data(v),
            Err(e) => Reply::Error(e),
        }
    }
}

#[derive(Serialize)]
struct Envelope<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a Value>,
    #[serde(rename = "type")]
    kind: &'static str,
    command: &'a str,
    success: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

/// The response line (compact JSON, no newline) for `command`.
pub fn response(id: Option<&Value>, command: &str, reply: Reply) -> String {
    let (success, data, error) = match reply {
        Reply::Done => (true, None, None),
        Reply::Data(d) => (true, Some(d), None),
        Reply::Error(e) => (false, None, Some(e)),
        Reply::Encoded(data) => return encoded_response(id, command, data),
    };
    let envelope = Envelope {
        id,
        kind: "response",
        command,
        success,
        data,
        error,
    };
    serde_json::to_string(&envelope).unwrap_or_else(|e| {
        format!(
            r#"{{"type":"response","command":{},"success":false,"error":{}}}"#,
            Value::from(command),
            Value::from(format!("cannot serialize the response: {e}"))
        )
    })
}

/// The envelope with `data` spliced in as given (which must be one JSON value): the data
/// buffer becomes the line, so a large reply is not copied.
fn encoded_response(id: Option<&Value>, command: &str, mut data: Vec<u8>) -> String {
    let mut head = response(id, command, Reply::Done);
    head.pop(); // the closing brace
    head.push_str(",\"data\":");
    data.reserve(head.len() + 1);
    data.splice(0..0, head.into_bytes());
    data.push(b'}');
    String::from_utf8(data).unwrap_or_else(|e| {
        response(
            id,
            command,
            Reply::Error(format!("cannot serialize the response: {e}")),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn envelopes_match_the_spec() {
        assert_eq!(
            response(Some(&json!("q1")), "abort", Reply::Done),
            r#"{"id":"q1","type":"response","command":"abort","success":true}"#
        );
        assert_eq!(
            response(None, "cycle_model", Reply::Data(Value::Null)),
            r#"{"type":"response","command":"cycle_model","success":true,"data":null}"#
        );
        assert_eq!(
            response(Some(&json!(3)), "parse", Reply::Error("Failed".into())),
            r#"{"id":3,"type":"response","command":"parse","success":false,"error":"Failed"}"#
        );
        assert_eq!(
            response(
                Some(&json!("m")),
                "get_messages",
                Reply::Encoded(br#"{"messages":[]}"#.to_vec())
            ),
            r#"{"id":"m","type":"response","command":"get_messages","success":true,"data":{"messages":[]}}"#
        );
    }
}
