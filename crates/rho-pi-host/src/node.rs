//! Finding a node that can run the host: type stripping (`module.stripTypeScriptTypes`) and
//! synchronous module hooks (`module.registerHooks`) need node 22.18 or newer.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The oldest node the host runs on.
pub const MIN_NODE: (u32, u32) = (22, 18);

/// A usable node binary.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// The binary.
    pub path: PathBuf,
    /// Its version, e.g. `(24, 19, 0)`.
    pub version: (u32, u32, u32),
}

/// Why no node could run pi extensions.
#[derive(Debug, thiserror::Error)]
pub enum NodeError {
    /// No candidate exists.
    #[error("pi extensions need Node.js {}.{} or newer, and none was found (looked at {looked}); install it or point RHO_NODE or the settings key \"nodePath\" at it", MIN_NODE.0, MIN_NODE.1)]
    Missing {
        /// The candidates tried.
        looked: String,
    },
    /// Candidates exist but all are too old.
    #[error("pi extensions need Node.js {}.{} or newer, but {path} is {version}; install a newer one or point RHO_NODE or the settings key \"nodePath\" at it", MIN_NODE.0, MIN_NODE.1)]
    TooOld {
        /// The newest binary found.
        path: String,
        /// Its `--version` output.
        version: String,
    },
}

/// Parses `v24.19.0` into numbers.
pub fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().trim_start_matches('v').split('.');
    let mut next = || parts.next()?.parse::<u32>().ok();
    Some((next()?, next()?, next().unwrap_or(0)))
}

fn version_of(path: &Path) -> Option<String> {
    let out = Command::new(path).arg("--version").output().ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The node to use: `RHO_NODE`, then the settings value `configured`, then `node` on PATH;
/// the first candidate that exists decides (a too-old one is an error, not skipped, so the
/// user learns which binary rho looked at).
pub fn find_node(configured: Option<&str>) -> Result<Node, NodeError> {
    let mut looked = Vec::new();
    let env = std::env::var_os("RHO_NODE").map(PathBuf::from);
    let candidates = [
        env.map(|p| ("RHO_NODE", Some(p))),
        configured.map(|c| ("settings nodePath", Some(PathBuf::from(c)))),
        Some(("PATH", on_path("node"))),
    ];
    for (source, path) in candidates.into_iter().flatten() {
        let Some(path) = path else {
            looked.push(format!("node on {source}"));
            continue;
        };
        let Some(text) = version_of(&path) else {
            looked.push(format!("{} ({source})", path.display()));
            continue;
        };
        return match parse_version(&text) {
            Some(v) if (v.0, v.1) >= MIN_NODE => Ok(Node { path, version: v }),
            _ => Err(NodeError::TooOld {
                path: path.display().to_string(),
                version: text,
            }),
        };
    }
    Err(NodeError::Missing {
        looked: looked.join(", "),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_compare() {
        assert_eq!(parse_version("v24.19.0\n"), Some((24, 19, 0)));
        assert_eq!(parse_version("v22.18"), Some((22, 18, 0)));
        assert_eq!(parse_version("nonsense"), None);
        assert!((20, 11) < MIN_NODE && (22, 18) >= MIN_NODE && (23, 0) >= MIN_NODE);
    }
}
