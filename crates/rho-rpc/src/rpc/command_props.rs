//! Property tests of the RPC input path (issue 17): any bytes through the framing and the
//! command parser give commands or clear `Failed to parse command` errors, never a panic; a
//! record's `id` is echoed whenever it could be read. The `rpc_line` fuzz target in `fuzz/`
//! explores the same path for longer.

use proptest::prelude::*;

use super::framing::{Frame, LineSplitter};
use rho_protocol::rpc::command::parse_line;

/// Command-shaped records with arbitrary field values.
fn record() -> impl Strategy<Value = Vec<u8>> {
    let value = prop_oneof![
        Just("null".to_string()),
        Just("\"HIGH\"".to_string()),
        Just("[]".to_string()),
        Just("{}".to_string()),
        "-?[0-9]{1,20}",
        "\"[a-z_ \\x00]{0,12}\"",
    ];
    let name = prop_oneof![
        Just("prompt"),
        Just("set_thinking_level"),
        Just("switch_session"),
        Just("set_model"),
        Just("bash"),
        Just("compact"),
        Just("nope"),
    ];
    let field = prop_oneof![
        Just("message"),
        Just("level"),
        Just("sessionPath"),
        Just("images"),
        Just("command"),
        Just("provider"),
    ];
    (name, prop::collection::vec((field, value), 0..4)).prop_map(|(name, fields)| {
        let mut text = format!("{{\"id\":\"r1\",\"type\":\"{name}\"");
        for (f, v) in fields {
            text.push_str(&format!(",\"{f}\":{v}"));
        }
        text.push('}');
        text.into_bytes()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_record_parses_or_fails_clearly(bytes in prop_oneof![
        record(),
        prop::collection::vec(any::<u8>(), 0..200),
    ]) {
        let mut splitter = LineSplitter::new(1 << 20);
        let mut frames = Vec::new();
        splitter.push(&bytes, &mut frames);
        frames.extend(splitter.finish());
        for frame in frames {
            let Frame::Line(line) = frame else { continue };
            if let Err(failure) = parse_line(&line) {
                prop_assert!(!failure.error.is_empty());
                let id_readable = serde_json::from_slice::<serde_json::Value>(&line)
                    .ok()
                    .and_then(|v| v.get("id").cloned());
                prop_assert_eq!(failure.id, id_readable);
            }
        }
    }
}
