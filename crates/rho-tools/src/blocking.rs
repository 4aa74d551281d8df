//! Runs a tool's file-system work off the async runtime and gives up when the call is aborted.

use rho_agent::ToolError;
use tokio_util::sync::CancellationToken;

/// The error every tool returns when its call is aborted.
pub const ABORTED: &str = "Operation aborted";

/// Runs `work` on the blocking pool; resolves to `Operation aborted` as soon as `cancel` fires
/// (the work itself finishes in the background and its result is dropped).
pub(crate) async fn run_blocking<T, F>(cancel: &CancellationToken, work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    if cancel.is_cancelled() {
        return Err(ToolError::new(ABORTED));
    }
    let handle = tokio::task::spawn_blocking(work);
    tokio::select! {
        _ = cancel.cancelled() => Err(ToolError::new(ABORTED)),
        joined = handle => match joined {
            Ok(result) => result,
            Err(err) => Err(ToolError::new(format!("Tool task failed: {err}"))),
        },
    }
}
