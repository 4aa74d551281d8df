//! Helpers shared by the crate-level tests: real temporary directories and tool calls.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use serde_json::Value;

/// A directory under the system temp dir, removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> Self {
        static N: AtomicUsize = AtomicUsize::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("clock")
            .as_nanos();
        let path = std::env::temp_dir().join(format!(
            "rho-tools-test-{}-{}-{nanos}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&path).expect("create temp dir");
        Self(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    /// Writes `content` at `rel`, creating parents.
    pub fn write(&self, rel: &str, content: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(rel);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).expect("mkdir");
        }
        std::fs::write(&path, content).expect("write");
        path
    }

    pub fn read(&self, rel: &str) -> Vec<u8> {
        std::fs::read(self.0.join(rel)).expect("read")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

pub async fn run(tool: &dyn AgentTool, args: Value) -> Result<ToolOutput, ToolError> {
    tool.execute(args, ToolContext::detached("call-1")).await
}

pub fn text(out: &ToolOutput) -> &str {
    out.content[0].as_text().expect("first block is text")
}
