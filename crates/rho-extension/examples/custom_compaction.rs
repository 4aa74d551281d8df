//! A custom compaction: supplies its own summary instead of asking the model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_extension::{Error, Extension};
use serde_json::json;

fn main() -> Result<(), Error> {
    let mut ext = Extension::new("custom-compaction");
    ext.on("session_before_compact", |_rho, event| {
        let prep = &event["preparation"];
        let count = prep["messagesToSummarize"].as_array().map_or(0, Vec::len);
        Ok(Some(json!({"compaction": {
            "summary": format!("Custom summary of {count} messages."),
            "firstKeptEntryId": prep["firstKeptEntryId"],
            "tokensBefore": prep["tokensBefore"],
            "details": {"by": "custom_compaction.rs"},
        }})))
    });
    ext.run()
}
