//! Where the file tools meet the sandbox: write/edit ask [`check_write`] before touching a
//! file (commands are confined by [`rho_process::ChildSpec`]).

use std::path::Path;
use std::sync::Arc;

use rho_agent::ToolError;
use rho_sandbox::Sandbox;

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
