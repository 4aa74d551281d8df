//! The `find` tool: files and directories whose name (or, for patterns with `/`, whose full
//! path) matches a glob, walked as fd walks (`.gitignore` honoured even outside git, hidden
//! entries included, `.git` skipped).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use globset::{GlobBuilder, GlobMatcher};
use ignore::{WalkBuilder, WalkState};
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::args::{count, parse};
use crate::blocking::run_blocking;
use crate::listing::{finish_listing, LimitNotice};
use crate::path::resolve_to_cwd;

const DEFAULT_LIMIT: usize = 1000;

/// Finds files by glob for the model.
pub struct FindTool {
    cwd: PathBuf,
}

impl FindTool {
    /// A find tool resolving relative paths against `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self { cwd: cwd.into() }
    }
}

#[derive(Deserialize)]
struct FindArgs {
    pattern: String,
    path: Option<String>,
    limit: Option<f64>,
}

impl AgentTool for FindTool {
    fn name(&self) -> &str {
        "find"
    }
    fn label(&self) -> &str {
        "find"
    }
    fn description(&self) -> &str {
        "Search for files by glob pattern. Returns matching file paths relative to the search directory. Respects .gitignore. Output is truncated to 1000 results or 50KB (whichever is hit first)."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Glob pattern to match files, e.g. '*.ts', '**/*.json', or 'src/**/*.spec.ts'"},
                "path": {"type": "string", "description": "Directory to search in (default: current directory)"},
                "limit": {"type": "number", "description": "Maximum number of results (default: 1000)"}
            },
            "required": ["pattern"]
        })
    }
    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let cwd = self.cwd.clone();
        Box::pin(async move {
            let args: FindArgs = parse("find", args)?;
            let root = resolve_to_cwd(
                args.path
                    .as_deref()
                    .filter(|p| !p.is_empty())
                    .unwrap_or("."),
                &cwd,
            );
            let limit = count(args.limit).unwrap_or(DEFAULT_LIMIT).max(1);
            let cancel = ctx.cancel.clone();
            run_blocking(&ctx.cancel, move || {
                find(&args.pattern, &root, limit, &cancel)
            })
            .await
        })
    }
}

/// The glob fd would use: patterns with `/` match the full path, prefixed with `**/` unless
/// anchored; others match the file name. Smart case: case-insensitive unless it has capitals.
fn build_glob(pattern: &str) -> Result<(GlobMatcher, bool), ToolError> {
    let full_path = pattern.contains('/');
    let pattern = if full_path
        && !(pattern.starts_with('/') || pattern.starts_with("**/") || pattern == "**")
    {
        format!("**/{pattern}")
    } else {
        pattern.to_string()
    };
    let glob = GlobBuilder::new(&pattern)
        .literal_separator(true)
        .case_insensitive(!pattern.chars().any(char::is_uppercase))
        .build()
        .map_err(|err| ToolError::new(format!("Invalid glob pattern: {err}")))?;
    Ok((glob.compile_matcher(), full_path))
}

/// Finds entries under `root` (absolute) matching `pattern`, at most `limit`.
pub fn find(
    pattern: &str,
    root: &Path,
    limit: usize,
    cancel: &CancellationToken,
) -> Result<ToolOutput, ToolError> {
    if !root.exists() {
        return Err(ToolError::new(format!(
            "Path not found: {}",
            root.display()
        )));
    }
    let (glob, full_path) = build_glob(pattern)?;
    let counter = AtomicUsize::new(0);
    let results = Mutex::new(Vec::<String>::new());
    let mut walk = WalkBuilder::new(root);
    walk.hidden(false)
        .require_git(false)
        .add_custom_ignore_filename(".fdignore")
        .filter_entry(|e| e.file_name() != ".git");
    walk.build_parallel().run(|| {
        let (glob, counter, results) = (&glob, &counter, &results);
        Box::new(move |entry| {
            if cancel.is_cancelled() || counter.load(Ordering::Relaxed) >= limit {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if entry.depth() == 0 {
                return WalkState::Continue;
            }
            let hit = if full_path {
                glob.is_match(entry.path())
            } else {
                glob.is_match(entry.file_name())
            };
            if hit {
                if let Ok(rel) = entry.path().strip_prefix(root) {
                    let mut shown = rel.to_string_lossy().replace('\\', "/");
                    if entry.file_type().is_some_and(|t| t.is_dir()) {
                        shown.push('/');
                    }
                    results
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push(shown);
                    counter.fetch_add(1, Ordering::Relaxed);
                }
            }
            WalkState::Continue
        })
    });
    let mut results = results.into_inner().unwrap_or_else(|p| p.into_inner());
    if results.is_empty() {
        return Ok(ToolOutput::text("No files found matching pattern"));
    }
    results.sort();
    results.truncate(limit);
    let notice = (results.len() >= limit).then(|| LimitNotice {
        text: format!(
            "{limit} results limit reached. Use limit={} for more, or refine pattern",
            limit * 2
        ),
        key: "resultLimitReached",
        limit,
    });
    Ok(finish_listing(&results.join("\n"), notice, Vec::new()))
}
