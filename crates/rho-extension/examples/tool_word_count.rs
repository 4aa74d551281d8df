//! A tool the model can call: counts the words of `text`, streaming one progress update.
//! `slow: true` makes it wait until rho cancels the call (shows cancellation).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_extension::{Error, Extension, Tool, ToolResult};
use serde_json::json;

fn main() -> Result<(), Error> {
    let mut ext = Extension::new("word-count");
    let tool = Tool::new("word_count", "Counts the words in a text.")
        .label("Word count")
        .parameters(json!({
            "type": "object",
            "properties": {
                "text": {"type": "string", "description": "text to count"},
                "slow": {"type": "boolean"}
            },
            "required": ["text"]
        }));
    ext.tool(tool, |call, args| {
        call.update(&ToolResult::text("counting…"))?;
        if args["slow"].as_bool().unwrap_or(false) {
            call.wait_cancelled();
            return Ok(ToolResult::error("aborted"));
        }
        let text = args["text"].as_str().ok_or("text must be a string")?;
        let words = text.split_whitespace().count();
        Ok(ToolResult::text(format!("{words} words")).with_details(json!({"words": words})))
    });
    ext.run()
}
