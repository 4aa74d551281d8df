//! A server tool as an agent tool: the same trait and the same extension `tool_call` /
//! `tool_result` pipeline as built-in tools. Results are converted to model content and kept
//! within the 20 KB limit; `isError` results become tool errors.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_agent::{AgentTool, ScriptValues, ToolContext, ToolError, ToolOutput};
use serde_json::{json, Value};

use crate::content::result_content;
use crate::limit::limit_content;
use crate::server::{ListedTool, Server};

/// One MCP tool bound to its server.
pub struct McpTool {
    pub listed: ListedTool,
    label: String,
    server: Arc<Server>,
    /// Whole results of calls a codemode script made, by call id, until the script takes them.
    script_values: ScriptValues,
}

impl McpTool {
    pub fn new(server: Arc<Server>, listed: ListedTool) -> McpTool {
        McpTool {
            label: format!("{}/{}", server.name(), listed.tool),
            listed,
            server,
            script_values: ScriptValues::default(),
        }
    }

    /// The server's name.
    pub fn server(&self) -> &Arc<Server> {
        &self.server
    }
}

/// What a script's call resolves to: the `CallToolResult` (`content` as the server sent it,
/// `structuredContent`, `isError`), never cut; the tool's own output schema describes
/// `structuredContent`.
pub fn script_result_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "content": {"type": "array", "items": {"type": "object", "properties": {
                "type": {"enum": ["text", "image", "audio", "resource_link", "resource"]},
                "text": {"type": "string"},
                "data": {"type": "string"},
                "mimeType": {"type": "string"}
            }, "required": ["type"]}},
            "structuredContent": {},
            "isError": {"type": "boolean"}
        },
        "required": ["content"]
    })
}

impl AgentTool for McpTool {
    fn name(&self) -> &str {
        &self.listed.name
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn description(&self) -> &str {
        &self.listed.description
    }

    fn parameters(&self) -> Value {
        self.listed.parameters.clone()
    }

    fn annotations(&self) -> Option<Value> {
        self.listed.annotations.clone()
    }

    fn output_schema(&self) -> Option<Value> {
        Some(script_result_schema())
    }

    fn take_script_value(&self, call_id: &str) -> Option<Value> {
        self.script_values.take(call_id)
    }

    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let server = self.server.clone();
        let tool = self.listed.tool.clone();
        let keep = self.script_values.slot(&ctx);
        Box::pin(async move {
            let (name, tool_name) = (server.name().to_string(), tool.clone());
            let sink = ctx.progress.clone();
            let progress = Arc::new(move |text: String| {
                sink(ToolOutput {
                    content: vec![rho_ai::ContentBlock::text(text)],
                    details: Some(json!({"server": name, "tool": tool_name})),
                })
            });
            let result = server
                .call_tool(&tool, args, ctx.cancel.clone(), progress)
                .await
                .map_err(|e| ToolError::new(e.to_string()))?;
            if let Some(slot) = keep {
                let mut whole = result.clone();
                if let Value::Object(map) = &mut whole {
                    map.remove("_meta");
                }
                slot.keep(whole);
            }
            convert(server.name(), &tool, &result)
        })
    }
}

/// A `CallToolResult` as a tool output (or error, for `isError`).
pub fn convert(server: &str, tool: &str, result: &Value) -> Result<ToolOutput, ToolError> {
    let limited = limit_content(result_content(server, tool, result));
    let mut details = json!({"server": server, "tool": tool});
    if let Some(p) = &limited.full_output_path {
        details["fullOutputPath"] = json!(p.display().to_string());
    }
    if let Some(s) = result.get("structuredContent") {
        details["structuredContent"] = s.clone();
    }
    if result.get("isError").and_then(Value::as_bool) == Some(true) {
        let text = limited
            .content
            .iter()
            .filter_map(|b| match b {
                rho_ai::ContentBlock::Text(t) => Some(t.text.as_str()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join("\n");
        return Err(ToolError {
            message: text,
            details: Some(details),
        });
    }
    Ok(ToolOutput {
        content: limited.content,
        details: Some(details),
    })
}
