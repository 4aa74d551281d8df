//! The resource tools Codex and pi use: `list_mcp_resources`, `list_mcp_resource_templates`
//! and `read_mcp_resource`, over every connected, non-hidden server with resources. Listings
//! are JSON (`{ server?, resources: [...], nextCursor? }`); read text reaches the model as text,
//! images as images, other binaries as a saved temp file.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use serde_json::{json, Value};

use crate::content::resource_contents;
use crate::limit::limit_content;
use crate::server::Server;

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    List,
    Templates,
    Read,
}

/// One resource tool over the servers that have resources.
pub struct ResourceTool {
    kind: Kind,
    servers: Vec<Arc<Server>>,
}

/// The three resource tools.
pub fn resource_tools(servers: Vec<Arc<Server>>) -> Vec<Arc<dyn AgentTool>> {
    [Kind::List, Kind::Templates, Kind::Read]
        .into_iter()
        .map(|kind| {
            Arc::new(ResourceTool {
                kind,
                servers: servers.clone(),
            }) as Arc<dyn AgentTool>
        })
        .collect()
}

impl AgentTool for ResourceTool {
    fn name(&self) -> &str {
        match self.kind {
            Kind::List => "list_mcp_resources",
            Kind::Templates => "list_mcp_resource_templates",
            Kind::Read => "read_mcp_resource",
        }
    }
    fn label(&self) -> &str {
        self.name()
    }
    fn description(&self) -> &str {
        match self.kind {
            Kind::List => "Lists resources provided by MCP servers. Resources allow servers to share data that provides context to language models, such as files, database schemas, or application-specific information. Prefer resources over web search when possible.",
            Kind::Templates => "Lists resource templates provided by MCP servers. Parameterized resource templates allow servers to share data that takes parameters and provides context to language models, such as files, database schemas, or application-specific information. Prefer resource templates over web search when possible.",
            Kind::Read => "Read a specific resource from an MCP server given the server name and resource URI.",
        }
    }
    fn parameters(&self) -> Value {
        if self.kind == Kind::Read {
            return json!({"type": "object", "properties": {
                "server": {"type": "string", "description": "MCP server name exactly as configured. Must match the 'server' field returned by list_mcp_resources."},
                "uri": {"type": "string", "description": "Resource URI to read. Must be one of the URIs returned by list_mcp_resources."}
            }, "required": ["server", "uri"], "additionalProperties": false});
        }
        json!({"type": "object", "properties": {
            "server": {"type": "string", "description": "MCP server name. Omit to list every server with resources."},
            "cursor": {"type": "string", "description": "Opaque cursor from a previous call with the same server; omit for the first page."}
        }, "additionalProperties": false})
    }
    fn annotations(&self) -> Option<Value> {
        Some(json!({"readOnlyHint": true}))
    }
    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let (kind, servers) = (self.kind, self.servers.clone());
        Box::pin(async move {
            let arg = |k: &str| {
                args.get(k)
                    .and_then(Value::as_str)
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
            };
            let find = |name: &str| {
                servers
                    .iter()
                    .find(|s| s.name() == name)
                    .cloned()
                    .ok_or_else(|| {
                        let names: Vec<&str> = servers.iter().map(|s| s.name()).collect();
                        ToolError::new(format!(
                            "MCP server \"{name}\" has no resources. Servers with resources: {}",
                            names.join(", ")
                        ))
                    })
            };
            if kind == Kind::Read {
                let (Some(name), Some(uri)) = (arg("server"), arg("uri")) else {
                    return Err(ToolError::new("server and uri are required"));
                };
                let server = find(&name)?;
                let result = server
                    .read_resource(&uri, ctx.cancel.clone())
                    .await
                    .map_err(|e| ToolError::new(e.to_string()))?;
                let contents: Vec<Value> = result
                    .get("contents")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                let limited = limit_content(contents.iter().map(resource_contents).collect());
                return Ok(ToolOutput {
                    content: limited.content,
                    details: Some(json!({"server": name, "uri": uri})),
                });
            }
            let key = if kind == Kind::List {
                "resources"
            } else {
                "resourceTemplates"
            };
            let payload = if let Some(name) = arg("server") {
                let server = find(&name)?;
                let page = server
                    .list_resources(kind == Kind::Templates, arg("cursor"))
                    .await
                    .map_err(|e| ToolError::new(e.to_string()))?;
                let mut out = json!({"server": name, key: tag(&name, page.get(key))});
                if let Some(c) = page.get("nextCursor").filter(|c| !c.is_null()) {
                    out["nextCursor"] = c.clone();
                }
                out
            } else {
                if arg("cursor").is_some() {
                    return Err(ToolError::new(
                        "cursor can only be used when a server is specified",
                    ));
                }
                let (mut items, mut errors) = (Vec::new(), Vec::new());
                for s in &servers {
                    let mut cursor = None;
                    loop {
                        match s
                            .list_resources(kind == Kind::Templates, cursor.clone())
                            .await
                        {
                            Ok(page) => {
                                items.extend(tag(s.name(), page.get(key)));
                                cursor = page
                                    .get("nextCursor")
                                    .and_then(Value::as_str)
                                    .map(str::to_string);
                                if cursor.is_none() {
                                    break;
                                }
                            }
                            Err(e) => {
                                errors.push(json!({"server": s.name(), "error": e.to_string()}));
                                break;
                            }
                        }
                    }
                }
                let mut out = json!({key: items});
                if !errors.is_empty() {
                    out["errors"] = json!(errors);
                }
                out
            };
            let limited = limit_content(vec![rho_ai::ContentBlock::text(payload.to_string())]);
            Ok(ToolOutput {
                content: limited.content,
                details: Some(payload),
            })
        })
    }
}

/// Listed items tagged with their server, without `_meta`, icons and MCP App resources.
fn tag(server: &str, items: Option<&Value>) -> Vec<Value> {
    items
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|i| {
            let uri = i
                .get("uri")
                .or(i.get("uriTemplate"))
                .and_then(Value::as_str)
                .unwrap_or_default();
            !uri.starts_with("ui://")
        })
        .map(|i| {
            let mut out = serde_json::Map::new();
            out.insert("server".into(), json!(server));
            if let Some(obj) = i.as_object() {
                for (k, v) in obj {
                    if k != "_meta" && k != "icons" {
                        out.insert(k.clone(), v.clone());
                    }
                }
            }
            Value::Object(out)
        })
        .collect()
}
