//! The `codemode` tool. Its input is raw JavaScript; the script calls the session's tools as
//! `tools.<name>(args)`, each call going through the agent's tool pipeline
//! ([`rho_agent::NestedCalls`]: permission rules, extensions' `tool_call`/`tool_result`, the
//! sandbox), so a script reaches nothing a direct call could not. The host (the session) says
//! which tools a script may call, keeps the `store()` values and waits for MCP servers.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures_util::future::BoxFuture;
use rho_agent::rank::{rank, RankDoc};
use rho_agent::{AgentTool, LoadoutChanges, NestedCalls, ToolContext, ToolError, ToolOutput};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::declare::{identifier, sample};
use crate::loadout::{self, Listed, Mode, Presentation};
use crate::report::report;
use crate::run::{execute, CallHandler, Execution, StoreWrites};
use crate::source;
use crate::vm::ScriptTool;

pub const CODEMODE_TOOL_NAME: &str = "codemode";
/// The custom entry type holding one script's `store()` writes (`{set, delete}`).
pub const STORE_ENTRY_TYPE: &str = "codemode-store";
/// Tools only the model calls: scripts cannot (pi's `model-only` exposure).
pub const MODEL_ONLY: [&str; 2] = [CODEMODE_TOOL_NAME, "tool_search"];
/// A script's deadline when its options line sets none (pi has none; rho bounds every script,
/// see the README).
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(600);
const DEFAULT_SEARCH_LIMIT: usize = 8;

/// pi's `codemode` description: how scripts run and which globals they have.
pub const DESCRIPTION: &str = "Run JavaScript that calls other tools. The input is raw JavaScript (not JSON, no code fence), run as an async function body in a QuickJS sandbox: top-level `await` and `return` work. No Node, file system, network, or timers.
- `await tools.<name>({ ...args })` resolves to a string, or an object if the tool's declaration says so, and rejects with an Error on failure. A tool whose declaration returns an object resolves on failure too when it returned that object; check its fields. Calls still running when the script ends are cancelled.
- Optional first line: `// @options: {\"max_output_tokens\": 10000, \"timeout_ms\": 60000}`

Globals:
- `text(value)`, `image(dataUrlOrImageBlock)`, `console.log(...)`, and top-level `return` add output; `exit()` ends the script. With several text items, each starts with a `==> text N/M <==` line, and `console` lines follow the other output in one `<console_output>` block. `image()` also saves the image to a temp file and the result names its path.
- `store(key, value)` and `load(key)` keep JSON values across codemode calls.
- `ALL_TOOLS`, `await searchTools(query, { limit?, namespace? })`, `await describeTool(name)`, `await describeNamespace(name)`: find unlisted tools, such as MCP tools.";

/// The system prompt's line and guideline for the tool (pi's).
pub const PROMPT_SNIPPET: &str = "Run JavaScript that calls other tools";
pub const PROMPT_GUIDELINE: &str = "Use codemode to batch independent tool calls (Promise.allSettled), chain them, or filter large output, instead of many separate calls.";

/// A group of tools such as one MCP server's.
#[derive(Debug, Clone, PartialEq)]
pub struct Namespace {
    /// `mcp__<server>`.
    pub name: String,
    /// Other names scripts may use (the server's own name).
    pub aliases: Vec<String>,
    pub description: Option<String>,
    pub instructions: Option<String>,
}

impl Namespace {
    /// Whether `query` names it, as written or as the same identifier (`dev-radius` and
    /// `dev_radius` are one).
    fn is_named(&self, query: &str) -> bool {
        let id = identifier(query);
        std::iter::once(&self.name)
            .chain(&self.aliases)
            .any(|n| n == query || identifier(n) == id)
    }
}

/// A tool scripts may call.
#[derive(Clone)]
pub struct Callable {
    pub tool: Arc<dyn AgentTool>,
    pub namespace: Option<Namespace>,
    /// The schema of what a call resolves to when it is not the tool's text (an MCP tool's
    /// `CallToolResult`).
    pub output_schema: Option<Value>,
    /// Found with `tool_search` (MCP `deferred` exposure): the codemode description never
    /// lists it.
    pub deferred: bool,
}

/// Why a script's `store()` writes were not recorded (the tool result says so as a warning).
#[derive(Debug, thiserror::Error)]
pub enum SaveError {
    /// The session the script ran in has ended.
    #[error("the session has ended")]
    SessionEnded,
}

/// What a script needs from the session.
pub trait CodemodeHost: Send + Sync {
    /// Every tool a script may call now (the codemode tool itself left out).
    fn callable(&self) -> Vec<Callable>;
    /// Waits for the tool providers a script reaches: `None` = all of them (it uses a
    /// discovery global), else the words of its source (which name MCP servers).
    fn wait_for(&self, words: Option<Vec<String>>) -> BoxFuture<'static, ()>;
    /// The `store()` values on the current branch.
    fn load_store(&self) -> BTreeMap<String, Value>;
    /// Records a successful script's writes (a `codemode-store` entry).
    fn save_store(&self, writes: &StoreWrites) -> Result<(), SaveError>;
    /// `codemode.mode` and `codemode.inlineBudget`.
    fn presentation(&self) -> Presentation {
        Presentation::default()
    }
    /// A tool's prompt guidelines (the system prompt's lines for it when it is declared).
    fn prompt_guidelines(&self, _name: &str) -> Vec<String> {
        Vec::new()
    }
}

/// The `codemode` tool.
pub struct CodemodeTool {
    host: Arc<dyn CodemodeHost>,
}

impl CodemodeTool {
    pub fn new(host: Arc<dyn CodemodeHost>) -> CodemodeTool {
        CodemodeTool { host }
    }
}

/// The discovery globals: a script that uses one may reach any tool.
const DISCOVERY: [&str; 4] = [
    "searchTools",
    "describeNamespace",
    "describeTool",
    "ALL_TOOLS",
];

/// What a script reaches: `None` for every tool, else the words of its source.
fn reach(code: &str) -> Option<Vec<String>> {
    let words: Vec<String> = code
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    if words.iter().any(|w| DISCOVERY.contains(&w.as_str())) {
        None
    } else {
        Some(words)
    }
}

impl AgentTool for CodemodeTool {
    fn name(&self) -> &str {
        CODEMODE_TOOL_NAME
    }
    fn label(&self) -> &str {
        CODEMODE_TOOL_NAME
    }
    fn description(&self) -> &str {
        DESCRIPTION
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"code": {"type": "string", "description": "Raw JavaScript source."}},
            "required": ["code"]
        })
    }

    fn prepare_loadout(&self, declared: &[Arc<dyn AgentTool>]) -> Option<LoadoutChanges> {
        let presentation = self.host.presentation();
        let direct: Vec<&Arc<dyn AgentTool>> = declared
            .iter()
            .filter(|t| !MODEL_ONLY.contains(&t.name()))
            .collect();
        // Callable but not declared (MCP tools with `codemode` exposure): listed in both modes.
        let undeclared: Vec<Callable> = self
            .host
            .callable()
            .into_iter()
            .filter(|c| {
                let name = c.tool.name();
                !c.deferred
                    && !MODEL_ONLY.contains(&name)
                    && !declared.iter().any(|t| t.name() == name)
            })
            .collect();
        let mut changes = LoadoutChanges::default();
        let mut listed: Vec<Callable> = Vec::new();
        match presentation.mode {
            Mode::On => {
                for t in direct {
                    let schema = t.output_schema();
                    let note = loadout::script_note(t.name(), t.description(), schema.as_ref());
                    changes.descriptions.push((t.name().to_string(), note));
                }
            }
            Mode::Only => {
                changes.hidden = direct.iter().map(|t| t.name().to_string()).collect();
                listed.extend(direct.into_iter().map(|t| Callable {
                    output_schema: t.output_schema(),
                    tool: t.clone(),
                    namespace: None,
                    deferred: false,
                }));
            }
        }
        listed.extend(undeclared);
        if presentation.mode == Mode::Only || !listed.is_empty() {
            let guidelines: Vec<Vec<String>> = listed
                .iter()
                .map(|c| self.host.prompt_guidelines(c.tool.name()))
                .collect();
            let entries: Vec<Listed<'_>> = listed
                .iter()
                .zip(guidelines)
                .map(|(c, guidelines)| Listed {
                    name: c.tool.name(),
                    description: c.tool.description(),
                    parameters: c.tool.parameters(),
                    output_schema: c.output_schema.as_ref(),
                    namespace: c.namespace.as_ref(),
                    guidelines,
                })
                .collect();
            let text = loadout::description(&entries, presentation.inline_budget);
            changes
                .descriptions
                .push((CODEMODE_TOOL_NAME.to_string(), text));
        }
        Some(changes)
    }

    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let host = self.host.clone();
        Box::pin(async move {
            let started = Instant::now();
            let code = args.get("code").and_then(Value::as_str).unwrap_or_default();
            let source = source::parse(code).map_err(|e| ToolError::new(e.0))?;
            host.wait_for(reach(&source.code)).await;
            let callable: Vec<Callable> = host
                .callable()
                .into_iter()
                .filter(|c| !MODEL_ONLY.contains(&c.tool.name()))
                .collect();
            let samples: Vec<String> = callable
                .iter()
                .map(|c| describe(c, &host.prompt_guidelines(c.tool.name())))
                .collect();
            let tools = callable
                .iter()
                .zip(&samples)
                .map(|(c, s)| ScriptTool {
                    name: c.tool.name().to_string(),
                    js_name: identifier(c.tool.name()),
                    description: s.clone(),
                })
                .collect();
            let handler = Arc::new(Calls {
                callable,
                samples,
                nested: ctx.nested.clone(),
            });
            let exec = Execution {
                code: source.code,
                tools,
                globals: DISCOVERY[..3].iter().map(|s| s.to_string()).collect(),
                store: host.load_store(),
                timeout: Some(
                    source
                        .options
                        .timeout_ms
                        .map_or(DEFAULT_TIMEOUT, Duration::from_millis),
                ),
            };
            let result = execute(exec, handler, ctx.cancel.clone()).await;
            let mut save_error = None;
            if let Ok((_, writes)) = &result.outcome {
                if !writes.is_empty() {
                    save_error = host.save_store(writes).err();
                }
            }
            let mut r = report(&result, started.elapsed(), source.options.max_output_tokens);
            if let Some(e) = save_error {
                r.content.push(rho_protocol::ContentBlock::text(format!(
                    "Warning: the store() values could not be saved: {e}"
                )));
            }
            let calls: Vec<Value> = result
                .calls
                .iter()
                .map(|c| json!({"name": c.name, "status": c.status.as_str()}))
                .collect();
            let mut details = json!({ "calls": calls });
            if let Some(p) = &r.full_output_path {
                details["fullOutputPath"] = json!(p);
            }
            if r.is_error {
                let text: Vec<String> = r
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        rho_protocol::ContentBlock::Text(t) => Some(t.text.clone()),
                        _ => None,
                    })
                    .collect();
                return Err(ToolError {
                    message: text.concat(),
                    details: Some(details),
                });
            }
            Ok(ToolOutput {
                content: r.content,
                details: Some(details),
            })
        })
    }
}

/// A tool's description, prompt guidelines and declaration, as `describeTool()` and
/// `ALL_TOOLS` give it.
fn describe(c: &Callable, guidelines: &[String]) -> String {
    sample(
        c.tool.name(),
        &loadout::with_guidelines(c.tool.description(), guidelines),
        &c.tool.parameters(),
        c.output_schema.as_ref(),
    )
}

/// Answers a script's calls: tools through the pipeline, discovery globals from the list.
struct Calls {
    callable: Vec<Callable>,
    samples: Vec<String>,
    nested: Option<NestedCalls>,
}

impl Calls {
    fn find(&self, name: &str) -> Option<usize> {
        self.callable
            .iter()
            .position(|c| c.tool.name() == name || identifier(c.tool.name()) == name)
    }

    fn entry(&self, i: usize) -> Value {
        json!({"name": identifier(self.callable[i].tool.name()), "description": self.samples[i]})
    }

    fn search(&self, args: &Value) -> Result<Option<Value>, String> {
        let query = args
            .get(0)
            .and_then(Value::as_str)
            .ok_or("searchTools() expects a query string")?;
        let options = args.get(1).filter(|o| !o.is_null());
        let limit = match options.and_then(|o| o.get("limit")) {
            None | Some(Value::Null) => DEFAULT_SEARCH_LIMIT,
            Some(v) => v
                .as_u64()
                .filter(|n| *n > 0)
                .ok_or("searchTools() limit must be a positive integer")?
                as usize,
        };
        let namespace = match options.and_then(|o| o.get("namespace")) {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.as_str()),
            Some(_) => return Err("searchTools() namespace must be a string".into()),
        };
        let candidates: Vec<usize> = (0..self.callable.len())
            .filter(|i| {
                namespace.is_none_or(|n| {
                    self.callable[*i]
                        .namespace
                        .as_ref()
                        .is_some_and(|ns| ns.is_named(n))
                })
            })
            .collect();
        let params: Vec<Value> = candidates
            .iter()
            .map(|i| self.callable[*i].tool.parameters())
            .collect();
        let docs: Vec<RankDoc<'_>> = candidates
            .iter()
            .zip(&params)
            .map(|(i, p)| {
                let tool = &self.callable[*i].tool;
                RankDoc {
                    name: tool.name(),
                    description: tool.description(),
                    parameters: p,
                }
            })
            .collect();
        let found: Vec<Value> = rank(query, &docs, limit)
            .into_iter()
            .map(|d| self.entry(candidates[d]))
            .collect();
        Ok(Some(Value::Array(found)))
    }

    fn namespace(&self, args: &Value) -> Result<Option<Value>, String> {
        let name = args
            .get(0)
            .and_then(Value::as_str)
            .ok_or("describeNamespace() expects a namespace name")?;
        let members: Vec<&Callable> = self
            .callable
            .iter()
            .filter(|c| c.namespace.as_ref().is_some_and(|n| n.is_named(name)))
            .collect();
        let Some(ns) = members.first().and_then(|c| c.namespace.as_ref()) else {
            return Ok(None);
        };
        let mut v = json!({"name": ns.name});
        if let Some(d) = &ns.description {
            v["description"] = json!(d);
        }
        if let Some(i) = &ns.instructions {
            v["instructions"] = json!(i);
        }
        v["tools"] = members
            .iter()
            .map(|c| json!(identifier(c.tool.name())))
            .collect();
        Ok(Some(v))
    }
}

impl CallHandler for Calls {
    fn call_tool(
        &self,
        name: &str,
        args: Value,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Option<Value>, String>> {
        let found = self.find(name).map(|i| self.callable[i].tool.clone());
        let nested = self.nested.clone();
        let name = name.to_string();
        Box::pin(async move {
            let tool = found.ok_or_else(|| format!("Tool \"{name}\" not found"))?;
            let nested = nested.ok_or("Tool calls need a session")?;
            let outcome = nested.call(tool, args, cancel).await;
            if let Some(v) = outcome.script_value {
                return Ok(Some(v));
            }
            let text = outcome.text();
            if outcome.is_error {
                return Err(if text.is_empty() {
                    format!("Tool \"{name}\" failed")
                } else {
                    text
                });
            }
            Ok(Some(Value::String(text)))
        })
    }

    fn call_global(
        &self,
        name: &str,
        args: Value,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Option<Value>, String>> {
        let answer = match name {
            "searchTools" => self.search(&args),
            "describeTool" => match args.get(0).and_then(Value::as_str) {
                Some(n) => Ok(self.find(n).map(|i| json!(self.samples[i]))),
                None => Err("describeTool() expects a tool name".into()),
            },
            "describeNamespace" => self.namespace(&args),
            other => Err(format!("Unknown global \"{other}\"")),
        };
        Box::pin(async move { answer })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scripts_reach_the_tools_they_name_or_all() {
        assert_eq!(
            reach("await tools.mcp__docs__search({})"),
            Some(vec![
                "await".into(),
                "tools".into(),
                "mcp__docs__search".into()
            ])
        );
        assert_eq!(reach("ALL_TOOLS.length"), None);
    }

    #[test]
    fn namespaces_answer_to_their_aliases() {
        let ns = Namespace {
            name: "mcp__dev_radius".into(),
            aliases: vec!["dev-radius".into()],
            description: None,
            instructions: None,
        };
        for q in [
            "mcp__dev_radius",
            "mcp__dev-radius",
            "dev-radius",
            "dev_radius",
        ] {
            assert!(ns.is_named(q), "{q}");
        }
        assert!(!ns.is_named("other"));
    }
}
