//! The `grep` tool, on ripgrep's own crates: the same walk (`.gitignore` honoured, hidden files
//! searched, binary files skipped), the same regex engine, results in pi's line format.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use futures_util::future::BoxFuture;
use grep_regex::RegexMatcherBuilder;
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use ignore::overrides::OverrideBuilder;
use ignore::{WalkBuilder, WalkState};
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use serde::Deserialize;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::args::{count, parse};
use crate::blocking::run_blocking;
use crate::listing::{finish_listing, ExtraNotice, LimitNotice};
use crate::path::resolve_to_cwd;
use crate::truncate::{truncate_line, GREP_MAX_LINE_LENGTH};

const DEFAULT_LIMIT: usize = 100;

/// Searches file contents for the model.
pub struct GrepTool {
    cwd: PathBuf,
}

impl GrepTool {
    /// A grep tool resolving relative paths against `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self { cwd: cwd.into() }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct GrepArgs {
    pattern: String,
    path: Option<String>,
    glob: Option<String>,
    ignore_case: Option<bool>,
    literal: Option<bool>,
    context: Option<f64>,
    limit: Option<f64>,
}

/// One search, with the path already resolved.
#[derive(Debug, Clone)]
pub struct GrepQuery {
    /// Regex (or literal text when `literal`).
    pub pattern: String,
    /// Absolute file or directory to search.
    pub root: PathBuf,
    /// Optional include glob (`*.rs`, `!target/**`).
    pub glob: Option<String>,
    /// Case-insensitive matching.
    pub ignore_case: bool,
    /// Treat the pattern as plain text.
    pub literal: bool,
    /// Lines of context before and after each match.
    pub context: usize,
    /// Most matches returned (at least 1).
    pub limit: usize,
}

impl AgentTool for GrepTool {
    fn name(&self) -> &str {
        "grep"
    }
    fn label(&self) -> &str {
        "grep"
    }
    fn description(&self) -> &str {
        "Search file contents for a pattern. Returns matching lines with file paths and line numbers. Respects .gitignore. Output is truncated to 100 matches or 50KB (whichever is hit first). Long lines are truncated to 500 chars."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": {"type": "string", "description": "Search pattern (regex or literal string)"},
                "path": {"type": "string", "description": "Directory or file to search (default: current directory)"},
                "glob": {"type": "string", "description": "Filter files by glob pattern, e.g. '*.ts' or '**/*.spec.ts'"},
                "ignoreCase": {"type": "boolean", "description": "Case-insensitive search (default: false)"},
                "literal": {"type": "boolean", "description": "Treat pattern as literal string instead of regex (default: false)"},
                "context": {"type": "number", "description": "Number of lines to show before and after each match (default: 0)"},
                "limit": {"type": "number", "description": "Maximum number of matches to return (default: 100)"}
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
            let args: GrepArgs = parse("grep", args)?;
            let path = args
                .path
                .as_deref()
                .filter(|p| !p.is_empty())
                .unwrap_or(".");
            let query = GrepQuery {
                pattern: args.pattern,
                root: resolve_to_cwd(path, &cwd),
                glob: args.glob.filter(|g| !g.is_empty()),
                ignore_case: args.ignore_case.unwrap_or(false),
                literal: args.literal.unwrap_or(false),
                context: count(args.context).unwrap_or(0),
                limit: count(args.limit).unwrap_or(DEFAULT_LIMIT).max(1),
            };
            let cancel = ctx.cancel.clone();
            run_blocking(&ctx.cancel, move || grep(&query, &cancel)).await
        })
    }
}

struct Found {
    path: PathBuf,
    lines: Vec<(u64, String)>,
}

struct Collect<'a> {
    lines: Vec<(u64, String)>,
    counter: &'a AtomicUsize,
    limit: usize,
}

impl Sink for Collect<'_> {
    type Error = std::io::Error;
    fn matched(&mut self, _: &Searcher, mat: &SinkMatch<'_>) -> Result<bool, Self::Error> {
        let text = String::from_utf8_lossy(mat.bytes());
        let text = text.trim_end_matches(['\n', '\r']).replace('\r', "");
        self.lines.push((mat.line_number().unwrap_or(0), text));
        let seen = self.counter.fetch_add(1, Ordering::Relaxed) + 1;
        Ok(seen < self.limit)
    }
}

/// Runs `query`; stops early when `cancel` fires or the limit is reached.
pub fn grep(query: &GrepQuery, cancel: &CancellationToken) -> Result<ToolOutput, ToolError> {
    let meta = std::fs::metadata(&query.root)
        .map_err(|_| ToolError::new(format!("Path not found: {}", query.root.display())))?;
    let matcher = RegexMatcherBuilder::new()
        .case_insensitive(query.ignore_case)
        .fixed_strings(query.literal)
        .line_terminator(Some(b'\n'))
        .build(&query.pattern)
        .map_err(|err| ToolError::new(err.to_string()))?;
    let mut walk = WalkBuilder::new(&query.root);
    walk.hidden(false).add_custom_ignore_filename(".rgignore");
    if let Some(glob) = &query.glob {
        let mut overrides = OverrideBuilder::new(&query.root);
        overrides
            .add(glob)
            .map_err(|err| ToolError::new(err.to_string()))?;
        walk.overrides(
            overrides
                .build()
                .map_err(|err| ToolError::new(err.to_string()))?,
        );
    }
    let counter = AtomicUsize::new(0);
    let found = Mutex::new(Vec::<Found>::new());
    walk.build_parallel().run(|| {
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .binary_detection(BinaryDetection::quit(0))
            .build();
        let (matcher, counter, found) = (&matcher, &counter, &found);
        Box::new(move |entry| {
            if cancel.is_cancelled() || counter.load(Ordering::Relaxed) >= query.limit {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let mut sink = Collect {
                lines: Vec::new(),
                counter,
                limit: query.limit,
            };
            let _ = searcher.search_path(matcher, entry.path(), &mut sink);
            if !sink.lines.is_empty() {
                let mut all = found.lock().unwrap_or_else(|p| p.into_inner());
                all.push(Found {
                    path: entry.into_path(),
                    lines: sink.lines,
                });
            }
            WalkState::Continue
        })
    });
    let mut found = found.into_inner().unwrap_or_else(|p| p.into_inner());
    found.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(format_matches(query, meta.is_dir(), &found))
}

fn display_path(root: &Path, is_dir: bool, file: &Path) -> String {
    if is_dir {
        if let Ok(rel) = file.strip_prefix(root) {
            if !rel.as_os_str().is_empty() {
                return rel.to_string_lossy().replace('\\', "/");
            }
        }
    }
    file.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn file_lines(path: &Path) -> Vec<String> {
    match std::fs::read(path) {
        Ok(bytes) => String::from_utf8_lossy(&bytes)
            .replace("\r\n", "\n")
            .replace('\r', "\n")
            .split('\n')
            .map(str::to_string)
            .collect(),
        Err(_) => Vec::new(),
    }
}

fn format_matches(query: &GrepQuery, is_dir: bool, found: &[Found]) -> ToolOutput {
    let total: usize = found.iter().map(|f| f.lines.len()).sum();
    if total == 0 {
        return ToolOutput::text("No matches found");
    }
    let mut out: Vec<String> = Vec::new();
    let mut cut_any = false;
    let mut emitted = 0;
    let mut push = |out: &mut Vec<String>, sep: char, name: &str, n: usize, text: &str| {
        let (text, cut) = truncate_line(text, GREP_MAX_LINE_LENGTH);
        cut_any |= cut;
        out.push(format!("{name}{sep}{n}{sep} {text}"));
    };
    'files: for f in found {
        let name = display_path(&query.root, is_dir, &f.path);
        let lines = if query.context > 0 {
            file_lines(&f.path)
        } else {
            Vec::new()
        };
        for (n, text) in &f.lines {
            if emitted >= query.limit {
                break 'files;
            }
            emitted += 1;
            let n = *n as usize;
            if query.context == 0 {
                push(&mut out, ':', &name, n, text);
                continue;
            }
            let start = n.saturating_sub(query.context).max(1);
            let end = (n + query.context).min(lines.len().max(n));
            for cur in start..=end {
                let line = lines.get(cur - 1).map_or("", String::as_str);
                let sep = if cur == n { ':' } else { '-' };
                push(&mut out, sep, &name, cur, &line.replace('\r', ""));
            }
        }
    }
    let limit = (total >= query.limit).then(|| LimitNotice {
        text: format!(
            "{} matches limit reached. Use limit={} for more, or refine pattern",
            query.limit,
            query.limit * 2
        ),
        key: "matchLimitReached",
        limit: query.limit,
    });
    let extra = if cut_any {
        vec![ExtraNotice {
            text: format!("Some lines truncated to {GREP_MAX_LINE_LENGTH} chars. Use read tool to see full lines"),
            key: "linesTruncated",
            value: Value::Bool(true),
        }]
    } else {
        Vec::new()
    };
    finish_listing(&out.join("\n"), limit, extra)
}
