//! rho's sandbox for everything the model runs: a [`SandboxPolicy`] says what a command may
//! write and whether it may use the network; a [`Sandbox`] applies it to a child process
//! (Landlock and seccomp on Linux, bubblewrap where Landlock is missing) and the write/edit tools
//! check the same policy in process with [`SandboxPolicy::check_write`].

mod bwrap;
mod denial;
mod error;
#[cfg(target_os = "linux")]
mod landlock_rules;
#[cfg(target_os = "linux")]
mod mounts;
mod placeholders;
mod policy;
mod probe;
mod sandbox;
pub mod seatbelt;
#[cfg(target_os = "linux")]
mod seccomp;

pub use denial::{looks_like_denial, Denial};
pub use error::{SandboxError, WriteDenied};
pub use placeholders::{placeholders, remove_placeholders};
pub use policy::{
    well_known_caches, NetworkAccess, SandboxMode, SandboxPolicy, UnknownSandboxMode,
};
pub use probe::Probe;
pub use sandbox::{Mechanism, Sandbox};
