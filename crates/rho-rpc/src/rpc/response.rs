//! Writing response envelopes ([`rho_protocol::rpc::Response`], interfaces spec §1.3), each
//! serialized once.

use rho_protocol::rpc::Response;

use crate::event_out::{LinePieces, Pieces};
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
    /// Success with `data` produced in pieces as the writer takes them (one JSON value).
    Pieces(Pieces),
    /// Failure with the error text.
    Error(String),
}

/// The edge where a command's error becomes the response's `error` text.
impl<E: std::fmt::Display> From<Result<Value, E>> for Reply {
    fn from(r: Result<Value, E>) -> Self {
        match r {
            Ok(v) => Reply::Data(v),
            Err(e) => Reply::Error(e.to_string()),
        }
    }
}

/// The response line (compact JSON, no newline) for `command`.
pub fn response(id: Option<&Value>, command: &str, reply: Reply) -> String {
    let id = id.cloned();
    let envelope = match reply {
        Reply::Done => Response::success(id, command, None),
        Reply::Data(d) => Response::success(id, command, Some(d)),
        Reply::Error(e) => Response::failure(id, command, e),
        Reply::Encoded(data) => return encoded_response(id.as_ref(), command, data),
        Reply::Pieces(data) => {
            let mut line = Vec::new();
            let mut pieces = pieces_response(id.as_ref(), command, data);
            while pieces.next_piece(&mut line) {}
            return String::from_utf8_lossy(&line).into_owned();
        }
    };
    serde_json::to_string(&envelope).unwrap_or_else(|e| {
        format!(
            r#"{{"type":"response","command":{},"success":false,"error":{}}}"#,
            Value::from(command),
            Value::from(format!("cannot serialize the response: {e}"))
        )
    })
}

/// The envelope with `data` given in pieces, as pieces (head, data, closing brace).
pub fn pieces_response(id: Option<&Value>, command: &str, data: Pieces) -> Pieces {
    let mut head = response(id, command, Reply::Done);
    head.pop(); // the closing brace
    head.push_str(",\"data\":");
    Box::new(Enveloped {
        head: Some(head),
        data: Some(data),
    })
}

/// A response envelope around `data` given in pieces.
struct Enveloped {
    /// The envelope up to `"data":`, until written.
    head: Option<String>,
    /// The data, until its last piece; then the closing brace.
    data: Option<Pieces>,
}

impl LinePieces for Enveloped {
    fn next_piece(&mut self, out: &mut Vec<u8>) -> bool {
        if let Some(head) = self.head.take() {
            out.extend_from_slice(head.as_bytes());
            return true;
        }
        let Some(data) = &mut self.data else {
            return false;
        };
        if !data.next_piece(out) {
            out.push(b'}');
            self.data = None;
        }
        true
    }
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
