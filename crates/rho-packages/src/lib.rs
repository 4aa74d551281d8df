//! pi packages (pi 1.6's `docs/packages.md`): extensions, skills, prompt templates and themes
//! installed as one unit from npm, git or a local path and declared in the `packages` list of
//! settings.json. This module reads those declarations, finds or installs each package
//! (running npm and git only for a package that is missing), and resolves the resource files
//! each one contributes, narrowed by the entry's filters.

pub mod collect;
pub mod config;
pub mod install;
pub mod kind;
pub mod local;
pub mod locate;
mod manager;
pub mod patterns;
pub mod resolve;
pub mod source;
pub mod temporary;

pub use config::{Declared, Entry, Filter, Scope};
pub use install::Installer;
pub use kind::Kind;
pub use local::{Layout, SettingsFile};
pub use locate::Locations;
pub use manager::{Listed, PackageManager};
pub use resolve::{Origin, Provenance, Resolved, Resource};
pub use source::Source;

use std::path::PathBuf;

/// Why a package command failed.
#[derive(Debug, thiserror::Error)]
pub enum PackageError {
    /// npm or git could not be started.
    #[error("cannot run {0}: {1}; is it installed and on PATH?")]
    Spawn(String, #[source] std::io::Error),
    /// A command could not run under the child-process rules (the sandbox refused it).
    #[error(transparent)]
    Run(rho_process::RunError),
    /// A command ended in failure: the command, its status and the end of its output.
    #[error("{0} failed with {1}{2}")]
    Failed(String, String, String),
    /// A file or folder could not be written.
    #[error("cannot write {0}: {1}")]
    Io(PathBuf, #[source] std::io::Error),
    /// A git source that would be checked out outside the package folder.
    #[error("Refusing to use path outside package install root: {0}")]
    OutsideRoot(PathBuf),
    /// A local source that does not exist.
    #[error("Path does not exist: {0}")]
    PathMissing(PathBuf),
    /// Project scope in a folder that is not trusted.
    #[error("Project is not trusted; refusing to access project package storage")]
    Untrusted,
    /// `update <source>` named no configured package (with pi's suggestion, if any).
    #[error("No matching package found for {0}")]
    NoMatch(String),
    /// The settings file could not be changed.
    #[error(transparent)]
    Settings(#[from] rho_core::settings::SettingsError),
}
