//! `tool_search`: ranks the tools that are not declared yet (`deferred` and `codemode`
//! exposure) with BM25 over their names and descriptions and loads the matches, so the next
//! model call declares them (pi's tool and texts).

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_agent::rank::{rank, RankDoc};
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use serde_json::{json, Value};

use crate::server::ListedTool;

pub const TOOL_SEARCH_TOOL_NAME: &str = "tool_search";
const DEFAULT_LIMIT: usize = 8;
const DESCRIPTION: &str = "# Tool discovery\n\nSearches over deferred tool metadata with BM25 and exposes matching tools for the next model call.\n\nSome of the tools, such as tools of MCP servers, may not have been provided to you upfront, and you should use this tool (`tool_search`) to search for the required tools. For MCP tool discovery, always use `tool_search`.";

/// The searchable tools and the set of names already loaded.
pub trait SearchSource: Send + Sync {
    fn candidates(&self) -> Vec<ListedTool>;
    fn load(&self, names: &[String]);
    fn wait_all(&self) -> BoxFuture<'static, ()>;
}

/// The `tool_search` tool.
pub struct ToolSearch {
    pub source: Arc<dyn SearchSource>,
}

impl AgentTool for ToolSearch {
    fn name(&self) -> &str {
        TOOL_SEARCH_TOOL_NAME
    }
    fn label(&self) -> &str {
        TOOL_SEARCH_TOOL_NAME
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "Search query for deferred tools."},
                "limit": {"type": "number", "description": format!("Maximum number of tools to return. Defaults to {DEFAULT_LIMIT}.")}
            },
            "required": ["query"]
        })
    }
    fn execute(
        &self,
        args: Value,
        _ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let source = self.source.clone();
        Box::pin(async move {
            let query = args
                .get("query")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string();
            if query.trim().is_empty() {
                return Err(ToolError::new("query must not be empty"));
            }
            let limit = match args.get("limit") {
                None | Some(Value::Null) => DEFAULT_LIMIT,
                Some(v) => match v.as_u64() {
                    Some(n) if n > 0 => n as usize,
                    _ => return Err(ToolError::new("limit must be a positive integer")),
                },
            };
            source.wait_all().await;
            let candidates = source.candidates();
            let docs: Vec<RankDoc<'_>> = candidates
                .iter()
                .map(|t| RankDoc {
                    name: &t.name,
                    description: &t.description,
                    parameters: &t.parameters,
                })
                .collect();
            let matches: Vec<&ListedTool> = rank(&query, &docs, limit)
                .into_iter()
                .map(|i| &candidates[i])
                .collect();
            let names: Vec<String> = matches.iter().map(|t| t.name.clone()).collect();
            source.load(&names);
            let text = if matches.is_empty() {
                "No matching tools found.".to_string()
            } else {
                let lines: Vec<String> = matches
                    .iter()
                    .map(|t| {
                        format!(
                            "- {}: {}",
                            t.name,
                            t.description.trim().lines().next().unwrap_or_default()
                        )
                    })
                    .collect();
                format!(
                    "Loaded {} tool{}. They are available from your next call:\n{}",
                    matches.len(),
                    if matches.len() == 1 { "" } else { "s" },
                    lines.join("\n")
                )
            };
            Ok(ToolOutput {
                content: vec![rho_ai::ContentBlock::text(text)],
                details: Some(json!({"loaded": names})),
            })
        })
    }
}
