//! The committed JSON Schema of the RPC protocol (`docs/rpc.schema.json`) is what the types
//! generate, and it names every command the parser knows. Regenerate after changing a wire
//! type: `RHO_UPDATE_SCHEMA=1 cargo test -p rho-protocol --test it rpc_schema`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use rho_protocol::rpc::command::parse_line;
use serde_json::Value;

fn committed_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/rpc.schema.json")
}

fn generated() -> String {
    let mut text = serde_json::to_string_pretty(&rho_protocol::schema::rpc_schema()).unwrap();
    text.push('\n');
    text
}

#[test]
fn the_committed_schema_is_current() {
    let text = generated();
    let path = committed_path();
    if std::env::var_os("RHO_UPDATE_SCHEMA").is_some() {
        std::fs::write(&path, &text).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == text,
        "{} is stale: run RHO_UPDATE_SCHEMA=1 cargo test -p rho-protocol --test it rpc_schema",
        path.display()
    );
}

/// The `type` constants of the command variants in the schema.
fn command_names(schema: &Value) -> Vec<String> {
    let command = &schema["$defs"]["CommandRecord"];
    let variants = command["oneOf"]
        .as_array()
        .or_else(|| command["anyOf"].as_array())
        .expect("the command record lists its variants");
    variants
        .iter()
        .map(|v| {
            let tag = &v["properties"]["type"];
            tag["const"]
                .as_str()
                .or_else(|| tag["enum"][0].as_str())
                .expect("each variant has a type constant")
                .to_string()
        })
        .collect()
}

#[test]
fn every_command_in_the_schema_is_one_the_parser_knows_and_back() {
    let names = command_names(&rho_protocol::schema::rpc_schema());
    assert_eq!(names.len(), 33, "{names:?}");
    for name in &names {
        let line = format!(r#"{{"type":"{name}"}}"#);
        if let Err(f) = parse_line(line.as_bytes()) {
            assert!(
                !f.error.starts_with("Unknown command"),
                "{name}: {}",
                f.error
            );
        }
    }
    let unknown = parse_line(br#"{"type":"no_such_command"}"#).unwrap_err();
    assert!(
        unknown.error.starts_with("Unknown command"),
        "{}",
        unknown.error
    );
}
