//! Input transformer: `shout: x` is sent as `X`, `quiet ...` is consumed, anything else
//! continues unchanged.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_extension::{Error, Extension};
use serde_json::json;

fn main() -> Result<(), Error> {
    let mut ext = Extension::new("input-transform");
    ext.on("input", |_rho, event| {
        let text = event["text"].as_str().unwrap_or_default();
        let result = if let Some(rest) = text.strip_prefix("shout: ") {
            json!({"action": "transform", "text": rest.to_uppercase()})
        } else if text.starts_with("quiet") {
            json!({"action": "handled"})
        } else {
            json!({"action": "continue"})
        };
        Ok(Some(result))
    });
    ext.run()
}
