//! A tool_call guard: blocks any bash command containing `rm -rf`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_extension::{Error, Extension};
use serde_json::json;

fn main() -> Result<(), Error> {
    let mut ext = Extension::new("guard");
    ext.on("tool_call", |_rho, event| {
        let command = event["input"]["command"].as_str().unwrap_or_default();
        if event["toolName"] == "bash" && command.contains("rm -rf") {
            return Ok(Some(
                json!({"block": true, "reason": "Blocked by guard: rm -rf is not allowed"}),
            ));
        }
        Ok(None)
    });
    ext.run()
}
