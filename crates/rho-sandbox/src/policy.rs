//! What a sandboxed command may do: the mode, the network switch, and the roots it may write.

use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::str::FromStr;

use crate::error::WriteDenied;

/// How much of the file system a command may change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SandboxMode {
    /// No sandbox: commands run with the user's full rights.
    Off,
    /// Everything readable, nothing writable (except `/dev/null` and the like).
    ReadOnly,
    /// The project, the temp dirs, well-known caches and configured roots writable.
    #[default]
    WorkspaceWrite,
}

impl SandboxMode {
    /// The name used in settings, flags and messages.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
        }
    }
}

impl fmt::Display for SandboxMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A `--sandbox` or `sandbox.mode` value that names no mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Unknown sandbox mode: {0}. Valid modes: off, read-only, workspace-write")]
pub struct UnknownSandboxMode(pub String);

impl FromStr for SandboxMode {
    type Err = UnknownSandboxMode;
    fn from_str(s: &str) -> Result<Self, UnknownSandboxMode> {
        match s {
            "off" => Ok(Self::Off),
            "read-only" => Ok(Self::ReadOnly),
            "workspace-write" => Ok(Self::WorkspaceWrite),
            other => Err(UnknownSandboxMode(other.to_string())),
        }
    }
}

/// Whether a sandboxed command may open network sockets (Unix sockets always work).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NetworkAccess {
    /// Allowed.
    #[default]
    On,
    /// Blocked: creating an internet socket fails with `EPERM`.
    Off,
}

/// A complete sandbox policy for one session.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SandboxPolicy {
    /// The file-system mode.
    pub mode: SandboxMode,
    /// The network switch.
    pub network: NetworkAccess,
    /// Where `workspace-write` may write.
    pub writable_roots: Vec<PathBuf>,
    /// Folders inside writable roots that stay read-only (`.git/hooks`, `.rho`, the agent dir).
    pub read_only_subpaths: Vec<PathBuf>,
}

/// Cache folders under `home` that builds write to (`cargo`, `npm`, `pip`, `go`, …). Only the
/// download caches: folders whose contents end up on `PATH` (`~/.cargo/bin`, `~/.rustup`) stay
/// read-only so a command cannot plant a program that runs later outside the sandbox.
pub fn well_known_caches(home: &Path) -> Vec<PathBuf> {
    [
        ".cache",
        ".cargo/registry",
        ".cargo/git",
        ".npm",
        ".yarn",
        ".pnpm-store",
        ".local/share/pnpm/store",
        ".bun/install/cache",
        "go/pkg/mod",
        ".m2/repository",
        ".gradle/caches",
    ]
    .iter()
    .map(|rel| home.join(rel))
    .collect()
}

fn temp_dirs() -> Vec<PathBuf> {
    let mut dirs = vec![
        std::env::temp_dir(),
        PathBuf::from("/tmp"),
        PathBuf::from("/var/tmp"),
    ];
    dirs.dedup();
    dirs
}

impl SandboxPolicy {
    /// No sandbox at all.
    pub fn off() -> Self {
        Self {
            mode: SandboxMode::Off,
            ..Self::default()
        }
    }

    /// The policy for a session in `cwd`: in `workspace-write`, `cwd`, the temp dirs, the
    /// caches under `home` and `extra_roots` are writable; `cwd/.git/hooks`, `cwd/.rho`,
    /// `cwd/.pi` and `agent_dir` stay read-only so a command cannot plant code that runs later
    /// outside the sandbox (git hooks, extensions, settings).
    pub fn new(
        mode: SandboxMode,
        network: NetworkAccess,
        cwd: &Path,
        home: Option<&Path>,
        agent_dir: Option<&Path>,
        extra_roots: &[PathBuf],
    ) -> Self {
        let mut writable_roots = Vec::new();
        let mut read_only_subpaths = Vec::new();
        if mode == SandboxMode::WorkspaceWrite {
            writable_roots.push(cwd.to_path_buf());
            writable_roots.extend(temp_dirs());
            if let Some(home) = home {
                writable_roots.extend(well_known_caches(home));
            }
            writable_roots.extend(extra_roots.iter().cloned());
            read_only_subpaths.extend([".git/hooks", ".rho", ".pi"].map(|p| cwd.join(p)));
            read_only_subpaths.extend(agent_dir.map(Path::to_path_buf));
        }
        Self {
            mode,
            network,
            writable_roots: writable_roots.iter().map(|p| resolve(p)).collect(),
            read_only_subpaths: read_only_subpaths.iter().map(|p| resolve(p)).collect(),
        }
    }

    /// This policy with one more writable root (the escalation "allow this folder").
    pub fn with_root(&self, root: &Path) -> Self {
        let mut next = self.clone();
        next.writable_roots.push(resolve(root));
        next
    }

    /// Whether the write/edit tools may write `path` (absolute); the same rule the child
    /// processes get from the kernel, checked in process.
    pub fn check_write(&self, path: &Path) -> Result<(), WriteDenied> {
        let resolved = resolve(path);
        let deny = |reason: String| WriteDenied {
            path: resolved.clone(),
            mode: self.mode.to_string(),
            reason,
        };
        match self.mode {
            SandboxMode::Off => Ok(()),
            SandboxMode::ReadOnly => Err(deny("the sandbox is read-only".into())),
            SandboxMode::WorkspaceWrite => {
                if let Some(sub) = self
                    .read_only_subpaths
                    .iter()
                    .find(|p| resolved.starts_with(p))
                {
                    return Err(deny(format!("{} stays read-only", sub.display())));
                }
                if self.writable_roots.iter().any(|r| resolved.starts_with(r)) {
                    return Ok(());
                }
                Err(deny(format!(
                    "it is outside the writable roots ({})",
                    self.writable_roots
                        .iter()
                        .map(|p| p.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                )))
            }
        }
    }
}

/// `path` with `.`/`..` removed and its deepest existing ancestor's symlinks resolved, so a
/// link inside the project that points outside is judged by where it leads.
pub(crate) fn resolve(path: &Path) -> PathBuf {
    let lexical = normalize(path);
    let mut existing = lexical.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = existing.canonicalize() {
            return rest.iter().rev().fold(real, |acc, c| acc.join(c));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return lexical,
        }
    }
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The policy without the temp dirs (the test folders live in one).
    fn policy(dir: &Path) -> SandboxPolicy {
        let mut p = SandboxPolicy::new(
            SandboxMode::WorkspaceWrite,
            NetworkAccess::On,
            &dir.join("proj"),
            Some(&dir.join("home")),
            Some(&dir.join("home/.rho/agent")),
            &[],
        );
        let dir = resolve(dir);
        p.writable_roots.retain(|r| r.starts_with(&dir));
        p
    }

    fn tempdir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("rho-sb-{name}-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("proj/.git/hooks")).expect("mkdir");
        std::fs::create_dir_all(dir.join("home/.cache")).expect("mkdir");
        dir
    }

    #[test]
    fn workspace_write_allows_the_project_and_caches() {
        let dir = tempdir("allow");
        let p = policy(&dir);
        assert!(p.check_write(&dir.join("proj/src/new.rs")).is_ok());
        assert!(p.check_write(&dir.join("home/.cache/x")).is_ok());
        assert!(p.check_write(&dir.join("home/.bashrc")).is_err());
        let hook = p.check_write(&dir.join("proj/.git/hooks/pre-commit"));
        assert!(hook.expect_err("hooks").reason.contains("read-only"));
        assert!(p.check_write(&dir.join("proj/.rho/settings.json")).is_err());
        assert!(p.check_write(&dir.join("proj/../home/.profile")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_out_of_the_project_is_judged_by_its_target() {
        let dir = tempdir("link");
        let link = dir.join("proj/out");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(dir.join("home"), &link).expect("symlink");
        assert!(policy(&dir).check_write(&link.join("evil")).is_err());
    }

    #[test]
    fn read_only_denies_everything_and_off_nothing() {
        let dir = tempdir("modes");
        let ro = SandboxPolicy::new(
            SandboxMode::ReadOnly,
            NetworkAccess::On,
            &dir,
            None,
            None,
            &[],
        );
        assert!(ro.check_write(&dir.join("proj/a")).is_err());
        assert!(SandboxPolicy::off()
            .check_write(Path::new("/etc/x"))
            .is_ok());
    }

    #[test]
    fn modes_parse_by_their_names() {
        for mode in [
            SandboxMode::Off,
            SandboxMode::ReadOnly,
            SandboxMode::WorkspaceWrite,
        ] {
            assert_eq!(mode.as_str().parse::<SandboxMode>(), Ok(mode));
        }
        assert!("yes".parse::<SandboxMode>().is_err());
    }
}
