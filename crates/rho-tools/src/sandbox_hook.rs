//! The one place where the tools meet the sandbox: the shell command for `bash`/`!cmd` is
//! built by [`shell_command`] (sandboxed when the session has a sandbox), and write/edit ask
//! [`check_write`] before touching a file.

use std::path::Path;
use std::sync::Arc;

use rho_agent::ToolError;
use rho_sandbox::Sandbox;
use tokio::process::Command;

use crate::exec::ExecError;

/// `shell -c command`, wrapped by the sandbox when there is one.
pub(crate) fn shell_command(
    shell: &Path,
    command: String,
    sandbox: Option<&Arc<Sandbox>>,
) -> Result<Command, ExecError> {
    let args = ["-c".into(), command.into()];
    match sandbox {
        Some(sandbox) => Ok(Command::from(sandbox.command(shell, &args)?)),
        None => {
            let mut cmd = Command::new(shell);
            cmd.args(args);
            Ok(cmd)
        }
    }
}

/// The sandbox's write rule, checked in process for the write/edit tools.
pub(crate) fn check_write(sandbox: Option<&Arc<Sandbox>>, abs: &Path) -> Result<(), ToolError> {
    match sandbox {
        Some(sandbox) => sandbox
            .policy()
            .check_write(abs)
            .map_err(|denied| ToolError::new(denied.to_string())),
        None => Ok(()),
    }
}
