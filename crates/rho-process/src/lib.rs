//! Every child process rho starts goes through this crate: the `bash` tool, `!cmd` and `!!cmd`,
//! RPC `bash`, extension `exec` and extension processes, MCP stdio servers, `!command` values
//! in models.json, auth.json and mcp.json, package installs (npm, git) and `gh` for `/share`.
//!
//! [`ChildSpec`] builds the command (the sandbox and the key scrubbing are its parameters, so
//! each caller states them); [`ChildGroup`] runs it in its own process group, recorded in the
//! registry and ended with SIGTERM then SIGKILL; [`run_to_end`] runs one to completion
//! (blocking) within a timeout; [`end_all_groups`] ends everything left when rho exits;
//! [`combined_pipe`] gives a child one pipe for stdout and stderr; [`shell`] finds the shell
//! as pi does. What each operating system does for a group is in `platform` (process groups
//! and signals on unix, Job Objects and console control events on Windows).
//!
//! It sits below the provider layer (rho-ai resolves `!command` keys through it) and depends
//! only on rho-sandbox (no rho crates) and rho-protocol's list of provider key variables.

mod command;
mod group;
mod pipe;
mod platform;
mod program;
mod registry;
mod run;
mod scrub;
pub mod shell;

pub use command::ChildSpec;
pub use group::{ChildGroup, ChildPipes};
pub use pipe::{combined_pipe, OutputReader, OutputWriter};
pub use registry::{end_all_groups, group_alive, group_gone_within, recorded_groups, TERM_GRACE};
pub use run::{run_to_end, Finished, Output, RunError};
pub use scrub::{ConfiguredKeys, KeyScrub};
