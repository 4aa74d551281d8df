//! Every command a user or the model runs goes through this module: the `bash` tool, `!cmd`
//! and `!!cmd`, RPC `bash`, extension `exec`, MCP stdio servers and extension processes.
//! [`ChildSpec`] builds the command (sandbox and key scrubbing are its parameters, so each
//! caller states them), [`ChildGroup`] runs it in its own process group recorded in the
//! registry and ends it with SIGTERM then SIGKILL, [`run_shell`] runs a shell command line
//! with its output collected, and [`end_all_groups`] ends everything left when rho exits.

mod command;
mod group;
mod registry;
mod scrub;
mod shell;

pub use command::ChildSpec;
pub use group::{ChildGroup, ChildPipes};
pub use registry::{end_all_groups, recorded_groups, TERM_GRACE};
pub use scrub::{ConfiguredKeys, KeyScrub};
pub use shell::{
    resolve_shell, run_shell, ExecEnd, ExecError, ExecResult, Progress, SessionEnv, ShellConfig,
    ShellRun, SESSION_ENV_NAMES, UPDATE_THROTTLE,
};
