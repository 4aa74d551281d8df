//! Building a tool set by name, as `--tools read,bash` and the SDK ask for it.

use std::path::Path;
use std::sync::Arc;

use rho_agent::AgentTool;

use crate::shell::ShellConfig;
use crate::{BashTool, EditTool, FindTool, GrepTool, LsTool, ReadOptions, ReadTool, WriteTool};

/// The tools a session gets when none are named.
pub const DEFAULT_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

/// Every built-in tool name.
pub const ALL_TOOLS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/// A name that is not a built-in tool.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unknown tool: {0}. Valid tools: read, bash, edit, write, grep, find, ls")]
pub struct UnknownTool(pub String);

/// Settings the tools take from the session.
#[derive(Debug, Clone, Default)]
pub struct ToolsConfig {
    /// Shell settings for `bash`; its sandbox also binds `write` and `edit`.
    pub shell: ShellConfig,
    /// Image settings for `read`.
    pub read: ReadOptions,
}

/// Builds the named tools with default settings, all resolving paths against `cwd`.
pub fn create_tools(names: &[&str], cwd: &Path) -> Result<Vec<Arc<dyn AgentTool>>, UnknownTool> {
    create_tools_with(names, cwd, &ToolsConfig::default())
}

/// Builds the named tools with the session's settings.
pub fn create_tools_with(
    names: &[&str],
    cwd: &Path,
    config: &ToolsConfig,
) -> Result<Vec<Arc<dyn AgentTool>>, UnknownTool> {
    names
        .iter()
        .map(|name| -> Result<Arc<dyn AgentTool>, UnknownTool> {
            Ok(match *name {
                "read" => Arc::new(ReadTool::new(cwd, config.read)),
                "bash" => Arc::new(BashTool::new(cwd, config.shell.clone())),
                "powershell" => Arc::new(BashTool::powershell(cwd, config.shell.clone())),
                "edit" => Arc::new(EditTool::new(cwd).with_sandbox(config.shell.sandbox.clone())),
                "write" => Arc::new(WriteTool::new(cwd).with_sandbox(config.shell.sandbox.clone())),
                "grep" => Arc::new(GrepTool::new(cwd)),
                "find" => Arc::new(FindTool::new(cwd)),
                "ls" => Arc::new(LsTool::new(cwd)),
                other => return Err(UnknownTool(other.to_string())),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_default_set_in_order() {
        let tools = create_tools(&DEFAULT_TOOLS, Path::new("/tmp")).expect("known");
        let names: Vec<&str> = tools.iter().map(|t| t.name()).collect();
        assert_eq!(names, DEFAULT_TOOLS);
    }

    #[test]
    fn builds_every_tool() {
        let tools = create_tools(&ALL_TOOLS, Path::new("/tmp")).expect("known");
        assert_eq!(tools.len(), 7);
        for tool in &tools {
            assert_eq!(tool.definition().parameters["type"], "object");
        }
    }

    #[test]
    fn rejects_unknown_names() {
        let err = create_tools(&["read", "nope"], Path::new("/tmp"))
            .err()
            .expect("unknown");
        assert_eq!(err, UnknownTool("nope".into()));
    }
}
