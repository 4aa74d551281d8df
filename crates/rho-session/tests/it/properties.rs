//! Property tests (issue 17): the session loader takes any input without panicking; damaged
//! lines never make a session with a valid header unopenable, and every error names the file.
//! The `cargo fuzz` target `session_load` in `fuzz/` explores the same entry point for longer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use rho_session::{load_file, SessionManager};

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

/// Entry-shaped lines, some valid, some damaged, some with parent links that may form cycles.
fn entry_line() -> impl Strategy<Value = String> {
    let id = "[a-c][0-3]";
    prop_oneof![
        (id, prop::option::of(id), "[a-z ]{0,12}").prop_map(|(id, parent, text)| {
            serde_json::json!({"type": "message", "id": id, "parentId": parent,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "message": {"role": "user", "content": text, "timestamp": 1}})
            .to_string()
        }),
        (id, id).prop_map(|(id, target)| format!(
            r#"{{"type":"label","id":"{id}","parentId":null,"timestamp":"t","targetId":"{target}","label":"x"}}"#
        )),
        Just(r#"{"type":"message","id":"#.to_string()),
        Just(r#"{"type":"compaction","id":"z","parentId":null}"#.to_string()),
        ".{0,30}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn a_session_with_a_valid_header_always_opens(
        lines in prop::collection::vec(entry_line(), 0..12),
        torn in proptest::bool::ANY,
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("s.jsonl");
        let mut text = format!("{HEADER}\n{}", lines.join("\n"));
        if !torn {
            text.push('\n');
        }
        std::fs::write(&path, &text).expect("write");
        let session = SessionManager::open(&path);
        prop_assert!(session.is_ok(), "{:?}", session.err());
        let session = session.expect("checked");
        let _ = session.build_context();
        for w in session.warnings() {
            prop_assert!(w.to_string().starts_with(&path.display().to_string()), "{w}");
        }
        prop_assert_eq!(std::fs::read_to_string(&path).expect("read"), text);
    }

    #[test]
    fn any_file_loads_or_fails_naming_it(bytes in prop::collection::vec(any::<u8>(), 0..400)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("any.jsonl");
        std::fs::write(&path, &bytes).expect("write");
        if let Err(e) = load_file(&path) {
            prop_assert!(e.to_string().contains(&path.display().to_string()), "{e}");
        }
    }
}
