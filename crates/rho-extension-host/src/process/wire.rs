//! The JSONL messages of the extension process protocol (docs/extensions.md). One JSON object
//! per line; rho's requests carry ids of their own, the extension's calls ids of its own.

use crate::ExtensionEvent;

/// The protocol's types live in `rho-protocol`, shared with `rho-extension` (the library
/// extensions written in Rust use), so both ends read one definition.
pub use rho_protocol::extension::{
    encode_line, CommandSpec, FlagSpec, Hello, Registration, ShortcutSpec, ToolSpec,
    PROTOCOL_VERSION,
};

/// A line rho writes: the event is borrowed, not cloned, for each extension it goes to.
pub type Request<'a> = rho_protocol::extension::ToExtension<&'a ExtensionEvent>;

/// A tool's (partial or final) output, its blocks read straight into rho's content blocks.
pub type ToolPayload = rho_protocol::extension::ToolResult<rho_ai::ContentBlock>;

/// A line the extension writes.
pub type Incoming = rho_protocol::extension::FromExtension<ToolPayload>;

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

    /// rho's own event type goes on the wire as in-process handlers see it.
    #[test]
    fn events_encode_as_one_tagged_line() {
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
    }

    #[test]
    fn tool_output_reads_into_rhos_blocks() {
        let m: Incoming = serde_json::from_str(
            r#"{"type":"tool_update","id":4,"partial":{"content":[{"type":"text","text":"50%"}]}}"#,
        )
        .expect("parses");
        let Incoming::ToolUpdate { id: 4, partial } = m else {
            panic!("tool_update expected, got {m:?}")
        };
        assert_eq!(rho_ai::message::join_text(&partial.content), "50%");
        assert!(serde_json::from_str::<Incoming>(r#"{"type":"bogus"}"#).is_err());
        assert_eq!(excerpt("abcdef", 3), "abc…");
    }
}
