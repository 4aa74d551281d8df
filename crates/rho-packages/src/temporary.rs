//! pi 1.6's temporary packages: `-e npm:<spec>` and `-e git:<repo>[@ref]` load a package for
//! one run and write nothing to settings.json.
//!
//! Where: as pi lays it out, in a cache under the agent dir, `<agentDir>/tmp/extensions/`
//! (owner-only): every npm package in one npm project, `npm/<hash>/node_modules/<name>`, and
//! each git repository in `git-<host>/<hash>/<path>`, where `<hash>` is the first 8 hex digits
//! of the sha256 of `<prefix>-<path>[@<ref>]`, so each pinned ref gets its own checkout. Why a
//! cache and not a folder removed at exit: the second run with the same `-e` starts at once,
//! with no npm or git install, and a user who tries a package again and again downloads it once.
//!
//! As in pi, a cached package is kept fresh since a temporary one has no `rho update`: an
//! unpinned npm package is reinstalled when the registry has a newer version (a failed
//! question keeps the cache), a git checkout is fetched and moved to its ref's newest commit
//! (skipped for a commit already checked out). `--offline` does none of that. A package that
//! cannot be installed is left out with a warning naming it; the session goes on without it.

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::config::normalize;
use super::locate::{installed_version, npm_matches};
use super::manager::PackageManager;
use super::resolve::Resolved;
use super::source::{GitSource, NpmSource, Source};
use super::PackageError;

/// Why a temporary package was left out: the warning shown, naming the package and what to do.
#[derive(Debug, thiserror::Error)]
pub enum TemporaryError {
    /// npm or git failed, or the cache could not be made.
    #[error(
        "Extension package \"{package}\": failed to install ({source}). Check the source and try again."
    )]
    Install {
        /// The `-e` source as given.
        package: String,
        /// Why the install failed.
        #[source]
        source: PackageError,
    },
    /// Not in the cache, and offline mode installs nothing.
    #[error(
        "Extension package \"{package}\": not installed, and offline mode (--offline, RHO_OFFLINE \
         or PI_OFFLINE) installs nothing. Check the source and try again."
    )]
    Offline {
        /// The `-e` source as given.
        package: String,
    },
}

/// `<agentDir>/tmp/extensions`, the cache of temporary packages.
pub fn cache_dir(agent_dir: &Path) -> PathBuf {
    agent_dir.join("tmp").join("extensions")
}

/// pi's folder for a temporary package: `<cache>/<prefix>/<hash>/<suffix>`; `None` when
/// `suffix` would lead out of `<cache>/<prefix>`.
fn temporary_dir(
    agent_dir: &Path,
    prefix: &str,
    suffix: &str,
    git_ref: Option<&str>,
) -> Option<PathBuf> {
    let root = cache_dir(agent_dir).join(prefix);
    let key = match git_ref {
        Some(r) => format!("{prefix}-{suffix}@{r}"),
        None => format!("{prefix}-{suffix}"),
    };
    let hash: String = Sha256::digest(key.as_bytes())
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect();
    let dir = normalize(&root.join(hash).join(suffix));
    (dir.starts_with(&root) && dir != root).then_some(dir)
}

/// The npm project temporary npm packages are installed into.
pub fn npm_project(agent_dir: &Path) -> PathBuf {
    // pi's hash of `npm-`: the same folder for every npm package.
    temporary_dir(agent_dir, "npm", "", None).unwrap_or_else(|| cache_dir(agent_dir).join("npm"))
}

/// Where the temporary npm package `npm` is installed.
pub fn npm_path(agent_dir: &Path, npm: &NpmSource) -> PathBuf {
    npm_project(agent_dir).join("node_modules").join(&npm.name)
}

/// Where the temporary git package `git` is checked out (`None`: outside the cache).
pub fn git_path(agent_dir: &Path, git: &GitSource) -> Option<PathBuf> {
    let prefix = format!("git-{}", git.host);
    temporary_dir(agent_dir, &prefix, &git.path, git.git_ref.as_deref())
}

/// Whether `source` (an `-e` argument) is an npm or git package rather than a path.
pub fn is_remote(source: &str) -> bool {
    !matches!(Source::parse(source), Source::Local(_))
}

impl PackageManager {
    /// `-e <source>` for an npm or git source: finds it in the cache or installs it there,
    /// then adds what it offers to `resolved` for this run. `progress` gets pi's
    /// `Installing <source>...` and `Refreshing <source>...` lines. The error is the warning
    /// to show, naming the package; nothing is added then. A local path adds nothing (the
    /// caller reads it where it is).
    pub fn add_temporary_source(
        &self,
        source: &str,
        resolved: &mut Resolved,
        progress: &mut dyn FnMut(&str),
    ) -> Result<(), TemporaryError> {
        let root = match Source::parse(source) {
            Source::Npm(npm) => self.temporary_npm(source, &npm, progress),
            Source::Git(git) => self.temporary_git(source, &git, progress),
            Source::Local(_) => return Ok(()),
        }?;
        resolved.add_installed_temporary(&root, source);
        Ok(())
    }

    fn temporary_npm(
        &self,
        source: &str,
        npm: &NpmSource,
        progress: &mut dyn FnMut(&str),
    ) -> Result<PathBuf, TemporaryError> {
        let path = npm_path(&self.agent_dir, npm);
        if npm_matches(&path, npm) {
            if !self.offline && !npm.pinned() {
                self.refresh_npm(npm, &path);
            }
            return Ok(path);
        }
        if self.offline {
            return Err(offline(source));
        }
        progress(&format!("Installing {source}..."));
        self.prepare_cache()
            .and_then(|()| {
                self.installer.npm_install_in(
                    &npm_project(&self.agent_dir),
                    std::slice::from_ref(&npm.spec),
                )
            })
            .map_err(|e| failed(source, e))?;
        Ok(path)
    }

    /// Installs the registry's newer version of an unpinned cached package (`name@latest`
    /// for a spec without a version, as `rho update` does); any failure keeps the cache.
    fn refresh_npm(&self, npm: &NpmSource, path: &Path) {
        // A tarball, folder or URL spec (`file:...`, `https://...`, `user/repo`) has nothing
        // newer in the registry: pi asks npm anyway and always gets an error; rho skips the
        // question (and a node start) for the same outcome.
        let not_registry = npm
            .version
            .as_deref()
            .is_some_and(|v| v.contains(':') || v.contains('/'));
        let Some(installed) = installed_version(path).filter(|_| !not_registry) else {
            return;
        };
        let asked = if npm.version.is_some() {
            &npm.spec
        } else {
            &npm.name
        };
        let newest = self
            .installer
            .latest_npm_version(asked, npm.version.as_deref(), &self.cwd);
        let newer = match (newest.as_deref().map(parse), parse(&installed)) {
            (Some(Some(newest)), Some(installed)) => newest > installed,
            _ => false,
        };
        if newer {
            let spec = match npm.version {
                Some(_) => npm.spec.clone(),
                None => format!("{}@latest", npm.name),
            };
            let _ = self
                .installer
                .npm_install_in(&npm_project(&self.agent_dir), &[spec]);
        }
    }

    fn temporary_git(
        &self,
        source: &str,
        git: &GitSource,
        progress: &mut dyn FnMut(&str),
    ) -> Result<PathBuf, TemporaryError> {
        let prefix = cache_dir(&self.agent_dir).join(format!("git-{}", git.host));
        let target = git_path(&self.agent_dir, git)
            .ok_or_else(|| failed(source, PackageError::OutsideRoot(prefix.clone())))?;
        if target.is_dir() {
            if !self.offline && !self.at_commit(&target, git) {
                progress(&format!("Refreshing {source}..."));
                let _ = self.installer.git_update_checkout(&target, git);
            }
            return Ok(target);
        }
        if self.offline {
            return Err(offline(source));
        }
        progress(&format!("Installing {source}..."));
        self.prepare_cache()
            .and_then(|()| self.installer.git_clone(&target, &prefix, git))
            .map_err(|e| failed(source, e))?;
        Ok(target)
    }

    /// Whether the checkout's ref is a commit hash already checked out (nothing to fetch).
    fn at_commit(&self, target: &Path, git: &GitSource) -> bool {
        let Some(r) = git.git_ref.as_deref() else {
            return false;
        };
        let hex = (7..=64).contains(&r.len()) && r.chars().all(|c| c.is_ascii_hexdigit());
        hex && self.installer.git_head(target).is_some_and(|head| {
            head.to_ascii_lowercase()
                .starts_with(&r.to_ascii_lowercase())
        })
    }

    /// Makes the cache folder, readable by its owner only (as pi does).
    fn prepare_cache(&self) -> Result<(), PackageError> {
        let dir = cache_dir(&self.agent_dir);
        std::fs::create_dir_all(&dir).map_err(|e| PackageError::Io(dir.clone(), e))?;
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))
                .map_err(|e| PackageError::Io(dir.clone(), e))?;
        }
        Ok(())
    }
}

fn parse(version: &str) -> Option<node_semver::Version> {
    node_semver::Version::parse(version).ok()
}

fn failed(package: &str, source: PackageError) -> TemporaryError {
    TemporaryError::Install {
        package: package.to_string(),
        source,
    }
}

fn offline(package: &str) -> TemporaryError {
    TemporaryError::Offline {
        package: package.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_is_laid_out_as_pis() {
        let agent = Path::new("/a");
        let Source::Npm(npm) = Source::parse("npm:@s/tools@1.0.0") else {
            panic!("npm");
        };
        // pi 1.6 installs `-e npm:` packages into `tmp/extensions/npm/f35b2129`.
        assert_eq!(
            npm_path(agent, &npm),
            Path::new("/a/tmp/extensions/npm/f35b2129/node_modules/@s/tools")
        );
        let Source::Git(git) = Source::parse("git:github.com/u/r@v1") else {
            panic!("git");
        };
        let pinned = git_path(agent, &git).expect("inside");
        assert_eq!(
            pinned,
            Path::new("/a/tmp/extensions/git-github.com/8dd28ea3/u/r"),
            "sha256 of `git-github.com-u/r@v1`"
        );
        let Source::Git(unpinned) = Source::parse("git:github.com/u/r") else {
            panic!("git");
        };
        assert_ne!(
            git_path(agent, &unpinned),
            Some(pinned),
            "a ref has its own checkout"
        );
        assert!(is_remote("npm:x") && is_remote("git:github.com/u/r") && !is_remote("./x"));
    }
}
