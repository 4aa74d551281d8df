//! The `edit` tool: exact-text replacements in one file, keeping its BOM and line endings,
//! with a line-numbered diff in the details.

use std::path::{Path, PathBuf};

use futures_util::future::BoxFuture;
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use rho_protocol::ContentBlock;
use serde_json::{json, Value};

use crate::blocking::run_blocking;
use crate::edit_apply::{apply_edits, normalize_to_lf, Edit};
use crate::edit_diff::generate_diff;
use crate::file_lock::lock_path;
use crate::path::resolve_to_cwd;

const BOM: &str = "\u{FEFF}";

/// Edits files for the model.
pub struct EditTool {
    cwd: PathBuf,
    sandbox: Option<std::sync::Arc<rho_sandbox::Sandbox>>,
}

impl EditTool {
    /// An edit tool resolving relative paths against `cwd`.
    pub fn new(cwd: impl Into<PathBuf>) -> Self {
        Self {
            cwd: cwd.into(),
            sandbox: None,
        }
    }

    /// The same tool refusing writes the sandbox policy does not allow.
    pub fn with_sandbox(mut self, sandbox: Option<std::sync::Arc<rho_sandbox::Sandbox>>) -> Self {
        self.sandbox = sandbox;
        self
    }
}

impl AgentTool for EditTool {
    fn name(&self) -> &str {
        "edit"
    }
    fn label(&self) -> &str {
        "edit"
    }
    fn description(&self) -> &str {
        "Edit a single file using exact text replacement. Every edits[].oldText must match a unique, non-overlapping region of the original file. If two changes affect the same block or nearby lines, merge them into one edit instead of emitting overlapping edits. Do not include large unchanged regions just to connect distant changes."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to the file to edit (relative or absolute)"},
                "edits": {
                    "type": "array",
                    "description": "One or more targeted replacements. Each edit is matched against the original file, not incrementally. Do not include overlapping or nested edits. If two changes touch the same block or nearby lines, merge them into one edit instead.",
                    "items": {
                        "type": "object",
                        "properties": {
                            "oldText": {"type": "string", "description": "Exact text for one targeted replacement. It must be unique in the original file and must not overlap with any other edits[].oldText in the same call."},
                            "newText": {"type": "string", "description": "Replacement text for this targeted edit."}
                        },
                        "required": ["oldText", "newText"],
                        "additionalProperties": false
                    }
                }
            },
            "required": ["path", "edits"],
            "additionalProperties": false
        })
    }
    fn prepare_arguments(&self, args: Value) -> Value {
        prepare_edit_arguments(args)
    }
    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let cwd = self.cwd.clone();
        let sandbox = self.sandbox.clone();
        Box::pin(async move {
            let (path, edits) = edit_args(prepare_edit_arguments(args))?;
            let abs = resolve_to_cwd(&path, &cwd);
            crate::sandbox_hook::check_write(sandbox.as_ref(), &abs)?;
            let _guard = lock_path(&abs).await;
            run_blocking(&ctx.cancel, move || edit_file(&abs, &path, &edits)).await
        })
    }
}

fn invalid(message: &str) -> ToolError {
    ToolError::new(format!("Edit tool input is invalid. {message}"))
}

/// Brings shapes models commonly send into the schema's `{path, edits}` before validation,
/// as pi does: `edits` as a JSON-encoded array string, and the classic single edit as
/// top-level `oldText`/`newText` (appended to any `edits`). Anything else passes unchanged
/// so validation reports it.
fn prepare_edit_arguments(args: Value) -> Value {
    let Value::Object(mut map) = args else {
        return args;
    };
    if let Some(Value::String(encoded)) = map.get("edits") {
        if let Ok(parsed @ Value::Array(_)) = serde_json::from_str::<Value>(encoded) {
            map.insert("edits".into(), parsed);
        }
    }
    let legacy = matches!(
        (map.get("oldText"), map.get("newText")),
        (Some(Value::String(_)), Some(Value::String(_)))
    );
    if legacy {
        let old = map.remove("oldText").unwrap_or_default();
        let new = map.remove("newText").unwrap_or_default();
        let mut edits = match map.remove("edits") {
            Some(Value::Array(list)) => list,
            _ => Vec::new(),
        };
        edits.push(json!({"oldText": old, "newText": new}));
        map.insert("edits".into(), Value::Array(edits));
    }
    Value::Object(map)
}

/// Reads prepared `{path, edits}` (the tool's own guard for SDK callers that skip
/// validation).
fn edit_args(args: Value) -> Result<(String, Vec<Edit>), ToolError> {
    let path = args
        .get("path")
        .and_then(Value::as_str)
        .ok_or_else(|| invalid("path must be a string."))?
        .to_string();
    let Some(Value::Array(list)) = args.get("edits") else {
        return Err(invalid(
            "edits must be an array of {oldText, newText} objects.",
        ));
    };
    let parsed = list
        .iter()
        .map(|e| {
            let text = |key: &str| e.get(key).and_then(Value::as_str).map(str::to_string);
            match (text("oldText"), text("newText")) {
                (Some(old_text), Some(new_text)) => Ok(Edit { old_text, new_text }),
                _ => Err(invalid("each edit needs string oldText and newText.")),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    if parsed.is_empty() {
        return Err(invalid("edits must contain at least one replacement."));
    }
    Ok((path, parsed))
}

/// The Node-style code pi prints for a failed edit (`ENOENT`, `EACCES`, ...).
#[cfg(unix)]
fn error_code(err: &std::io::Error) -> String {
    match err.raw_os_error() {
        Some(libc::ENOENT) => "ENOENT".into(),
        Some(libc::EACCES) => "EACCES".into(),
        Some(libc::EPERM) => "EPERM".into(),
        Some(libc::EISDIR) => "EISDIR".into(),
        Some(libc::ENOTDIR) => "ENOTDIR".into(),
        Some(libc::EROFS) => "EROFS".into(),
        Some(code) => format!("errno {code}"),
        None => format!("{:?}", err.kind()),
    }
}

/// The Node-style code pi prints for a failed edit: Windows error numbers are no errno
/// values, so the code comes from the error's kind (Node maps them the same way).
#[cfg(windows)]
fn error_code(err: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match err.kind() {
        ErrorKind::NotFound => "ENOENT".into(),
        ErrorKind::PermissionDenied => "EPERM".into(),
        ErrorKind::IsADirectory => "EISDIR".into(),
        ErrorKind::NotADirectory => "ENOTDIR".into(),
        ErrorKind::ReadOnlyFilesystem => "EROFS".into(),
        kind => match err.raw_os_error() {
            Some(code) => format!("error {code}"),
            None => format!("{kind:?}"),
        },
    }
}

fn cannot_edit(path: &str, err: &std::io::Error) -> ToolError {
    ToolError::new(format!(
        "Could not edit file: {path}. Error code: {}.",
        error_code(err)
    ))
}

/// Applies `edits` to the file at `abs` (shown to the model as `path`).
pub fn edit_file(abs: &Path, path: &str, edits: &[Edit]) -> Result<ToolOutput, ToolError> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(abs)
        .map_err(|err| cannot_edit(path, &err))?;
    let bytes = std::fs::read(abs).map_err(|err| cannot_edit(path, &err))?;
    let raw = String::from_utf8(bytes).map_err(|_| {
        ToolError::new(format!(
            "Could not edit file: {path}. It is not valid UTF-8 text; use bash to change it."
        ))
    })?;
    let (bom, text) = match raw.strip_prefix(BOM) {
        Some(rest) => (BOM, rest),
        None => ("", raw.as_str()),
    };
    let crlf = uses_crlf(text);
    let normalized = normalize_to_lf(text);
    let applied = apply_edits(&normalized, edits, path).map_err(ToolError::new)?;
    write_edited(abs, bom, &applied.new, crlf).map_err(|err| cannot_edit(path, &err))?;
    let (diff, first_changed) = generate_diff(&applied.base, &applied.new, 4);
    Ok(ToolOutput {
        content: vec![ContentBlock::text(format!(
            "Successfully replaced {} block(s) in {path}.",
            edits.len()
        ))],
        details: Some(json!({ "diff": diff, "firstChangedLine": first_changed })),
    })
}

/// Writes the edited text over the file in place (no truncate-then-grow, so the page cache
/// is reused), then cuts it to the new length.
fn write_edited(abs: &Path, bom: &str, body: &str, crlf: bool) -> std::io::Result<()> {
    use std::io::Write;
    let file = std::fs::OpenOptions::new().write(true).open(abs)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    out.write_all(bom.as_bytes())?;
    let mut written = bom.len() as u64;
    if crlf {
        for (i, line) in body.split('\n').enumerate() {
            if i > 0 {
                out.write_all(b"\r\n")?;
                written += 2;
            }
            out.write_all(line.as_bytes())?;
            written += line.len() as u64;
        }
    } else {
        out.write_all(body.as_bytes())?;
        written += body.len() as u64;
    }
    let file = out.into_inner().map_err(|e| e.into_error())?;
    file.set_len(written)
}

/// True when the first line break is CRLF.
fn uses_crlf(text: &str) -> bool {
    match memchr::memchr(b'\n', text.as_bytes()) {
        Some(i) => i > 0 && text.as_bytes()[i - 1] == b'\r',
        None => false,
    }
}
