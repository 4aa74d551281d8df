//! rho's built-in tools (`read`, `bash`, `edit`, `write`, `grep`, `find`, `ls`), each usable on
//! its own through [`rho_agent::AgentTool`], and [`create_tools`] to build a set by name.
//! Kept out of the session core so the ripgrep crates compile only where tools are used.

mod args;
mod bash;
mod blocking;
mod edit;
pub mod edit_apply;
pub mod edit_diff;
mod file_lock;
mod find;
mod grep;
pub mod image;
mod listing;
mod ls;
pub mod output;
pub mod path;
mod read;
mod sandbox_hook;
pub mod shell;
pub mod spill;
mod tool_set;
pub mod truncate;
mod write;

pub use bash::{format_output, BashTool};
pub use blocking::ABORTED;
pub use edit::{edit_file, EditTool};
pub use find::{find, FindTool};
pub use grep::{grep, GrepQuery, GrepTool};
pub use ls::{list_dir, LsTool};
pub use read::{read_text, ReadOptions, ReadTool};
pub use tool_set::{
    create_tools, create_tools_with, ToolsConfig, UnknownTool, ALL_TOOLS, DEFAULT_TOOLS,
};
pub use write::WriteTool;
