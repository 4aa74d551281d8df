//! The `write` tool: creates or overwrites a file, making parent directories as needed.

use std::path::PathBuf;

use futures_util::future::BoxFuture;
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::args::parse;
use crate::blocking::run_blocking;
use crate::file_lock::lock_path;
use crate::path::resolve_to_cwd;

/// Writes files for the model.
pub struct WriteTool {
    cwd: PathBuf,
    sandbox: Option<std::sync::Arc<rho_sandbox::Sandbox>>,
}

impl WriteTool {
    /// A write tool resolving relative paths against `cwd`.
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

#[derive(Deserialize)]
struct WriteArgs {
    path: String,
    content: String,
}

impl AgentTool for WriteTool {
    fn name(&self) -> &str {
        "write"
    }
    fn label(&self) -> &str {
        "write"
    }
    fn description(&self) -> &str {
        "Write content to a file. Creates the file if it doesn't exist, overwrites if it does. Automatically creates parent directories."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to the file to write (relative or absolute)"},
                "content": {"type": "string", "description": "Content to write to the file"}
            },
            "required": ["path", "content"]
        })
    }
    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let cwd = self.cwd.clone();
        let sandbox = self.sandbox.clone();
        Box::pin(async move {
            let args: WriteArgs = parse("write", args)?;
            let abs = resolve_to_cwd(&args.path, &cwd);
            crate::sandbox_hook::check_write(sandbox.as_ref(), &abs)?;
            let _guard = lock_path(&abs).await;
            run_blocking(&ctx.cancel, move || {
                write_file(&abs, &args.content).map_err(|err| {
                    ToolError::new(format!("Could not write file {}: {err}", args.path))
                })?;
                Ok(ToolOutput::text(format!(
                    "Successfully wrote {} bytes to {}",
                    js_length(&args.content),
                    args.path
                )))
            })
            .await
        })
    }
}

fn write_file(abs: &std::path::Path, content: &str) -> std::io::Result<()> {
    if let Some(parent) = abs.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(abs, content)
}

/// The length pi reports: JavaScript's `string.length` (UTF-16 code units).
fn js_length(text: &str) -> usize {
    text.encode_utf16().count()
}
