//! A server tool as an agent tool: the same trait and the same extension `tool_call` /
//! `tool_result` pipeline as built-in tools. Results are converted to model content and kept
//! within the 20 KB limit; `isError` results become tool errors.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use serde_json::{json, Value};

use crate::content::result_content;
use crate::limit::limit_content;
use crate::server::{ListedTool, Server};

/// One MCP tool bound to its server.
pub struct McpTool {
    pub listed: ListedTool,
    label: String,
    server: Arc<Server>,
}

impl McpTool {
    pub fn new(server: Arc<Server>, listed: ListedTool) -> McpTool {
        McpTool {
            label: format!("{}/{}", server.name(), listed.tool),
            listed,
            server,
        }
    }
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

    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let server = self.server.clone();
        let tool = self.listed.tool.clone();
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
