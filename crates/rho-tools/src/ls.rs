//! The `ls` tool: one directory's entries, dotfiles included, sorted case-insensitively.

use std::path::{Path, PathBuf};

use futures_util::future::BoxFuture;
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::args::{count, parse};
use crate::blocking::run_blocking;
use crate::listing::{finish_listing, LimitNotice};
use crate::path::resolve_to_cwd;

const DEFAULT_LIMIT: usize = 500;

/// Lists directories for the model.
pub struct LsTool {
    cwd: PathBuf,
}

impl LsTool {
    /// An ls tool resolving relative paths against `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self { cwd: cwd.into() }
    }
}

#[derive(Deserialize)]
struct LsArgs {
    path: Option<String>,
    limit: Option<f64>,
}

impl AgentTool for LsTool {
    fn name(&self) -> &str {
        "ls"
    }
    fn label(&self) -> &str {
        "ls"
    }
    fn description(&self) -> &str {
        "List directory contents. Returns entries sorted alphabetically, with '/' suffix for directories. Includes dotfiles. Output is truncated to 500 entries or 50KB (whichever is hit first)."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Directory to list (default: current directory)"},
                "limit": {"type": "number", "description": "Maximum number of entries to return (default: 500)"}
            }
        })
    }
    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let cwd = self.cwd.clone();
        Box::pin(async move {
            let args: LsArgs = parse("ls", args)?;
            let dir = resolve_to_cwd(
                args.path
                    .as_deref()
                    .filter(|p| !p.is_empty())
                    .unwrap_or("."),
                &cwd,
            );
            let limit = count(args.limit).unwrap_or(DEFAULT_LIMIT);
            run_blocking(&ctx.cancel, move || list_dir(&dir, limit)).await
        })
    }
}

/// Lists `dir` (absolute) with at most `limit` entries.
pub fn list_dir(dir: &Path, limit: usize) -> Result<ToolOutput, ToolError> {
    let shown = dir.display();
    let meta =
        std::fs::metadata(dir).map_err(|_| ToolError::new(format!("Path not found: {shown}")))?;
    if !meta.is_dir() {
        return Err(ToolError::new(format!("Not a directory: {shown}")));
    }
    let reader = std::fs::read_dir(dir)
        .map_err(|err| ToolError::new(format!("Cannot read directory: {err}")))?;
    let mut names: Vec<String> = reader
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort_by_cached_key(|n| (n.to_lowercase(), n.clone()));
    let mut entries = Vec::new();
    let mut limit_reached = false;
    for name in names {
        if entries.len() >= limit {
            limit_reached = true;
            break;
        }
        let Ok(meta) = std::fs::metadata(dir.join(&name)) else {
            continue;
        };
        entries.push(if meta.is_dir() {
            format!("{name}/")
        } else {
            name
        });
    }
    if entries.is_empty() {
        return Ok(ToolOutput::text("(empty directory)"));
    }
    let notice = limit_reached.then(|| LimitNotice {
        text: format!(
            "{limit} entries limit reached. Use limit={} for more",
            limit * 2
        ),
        key: "entryLimitReached",
        limit,
    });
    Ok(finish_listing(&entries.join("\n"), notice, Vec::new()))
}
