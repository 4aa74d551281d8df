//! What can go wrong when a sandbox is built or asked about a write.

use std::path::PathBuf;

/// A sandbox that cannot be set up.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// Neither Landlock nor bubblewrap can enforce the mode; the mode is refused rather than
    /// dropped so nothing runs unsandboxed by surprise.
    #[error(
        "Sandbox mode {mode} is not available: {reason}. Commands are refused. Install bubblewrap \
         (package `bubblewrap`), or run with `--sandbox off` (or \"sandbox\": {{\"mode\": \"off\"}} \
         in settings.json) to run commands without a sandbox."
    )]
    Unavailable {
        /// The mode asked for.
        mode: String,
        /// Why no mechanism works.
        reason: String,
    },
    /// The kernel refused the rules.
    #[error("Sandbox setup failed: {0}")]
    Setup(String),
}

/// A write the policy does not allow.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Sandbox ({mode}) does not allow writing {}: {reason}", path.display())]
pub struct WriteDenied {
    /// The path, as resolved.
    pub path: PathBuf,
    /// The mode in force.
    pub mode: String,
    /// Why it is refused.
    pub reason: String,
}
