//! pi's TypeScript extensions in rho.
//!
//! pi extensions are JavaScript modules that call pi's `ExtensionAPI`; rho runs extensions as
//! processes speaking its JSONL protocol (docs/extensions.md). This crate bridges the two
//! with a Node.js host program (`host/*.mjs`, embedded here and written to the agent dir): one
//! node process per session loads every pi extension, implements `pi` and `ctx` with protocol
//! calls, and registers their events, commands and tools with rho as one process extension.
//! Node's own type stripping loads TypeScript, so no build step or loader package is needed;
//! pi's package names resolve to the real pi packages, installed with npm on first use.

pub mod files;
pub mod node;

pub use files::{install_host, is_pi_extension, HOST_ENTRY};
pub use node::{find_node, Node, NodeError, MIN_NODE};

use std::path::{Path, PathBuf};

/// Where pi's packages live for the host: `RHO_PI_PACKAGES` when set, else
/// `<agent dir>/pi-host` (npm installs into its `node_modules`).
pub fn packages_dir(agent_dir: &Path) -> PathBuf {
    std::env::var_os("RHO_PI_PACKAGES")
        .map(PathBuf::from)
        .unwrap_or_else(|| agent_dir.join("pi-host"))
}

/// Whether pi's packages are installed there already (else the host installs them when an
/// extension first imports one, which may take a minute).
pub fn packages_ready(packages: &Path) -> bool {
    packages
        .join("node_modules/@earendil-works/pi-coding-agent/package.json")
        .is_file()
}

/// Where the host's parts are.
pub struct HostPaths<'a> {
    /// The node binary.
    pub node: &'a Node,
    /// `host.mjs` ([`install_host`]).
    pub entry: &'a Path,
    /// pi's packages ([`packages_dir`]).
    pub packages: &'a Path,
    /// rho's agent dir (pi's `getAgentDir()` answers it).
    pub agent_dir: &'a Path,
}

/// The program and arguments that start the host for `extensions`.
pub fn command(paths: &HostPaths<'_>, extensions: &[PathBuf]) -> (String, Vec<String>) {
    let mut args = vec![
        paths.entry.display().to_string(),
        paths.packages.display().to_string(),
        paths.agent_dir.display().to_string(),
    ];
    args.extend(extensions.iter().map(|p| p.display().to_string()));
    (paths.node.path.display().to_string(), args)
}
