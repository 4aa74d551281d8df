//! Where packages are installed. A declaration installs into the folder of the settings file
//! declaring it, as pi 1.6 lays it out: `<dir>/npm/node_modules/<name>` and
//! `<dir>/git/<host>/<path>`. To use what a pi user installed without reinstalling, a user
//! package is also looked for in pi's agent dir, and a `.rho/` project package in the
//! project's `.pi/`; rho never writes there for a declaration of its own.

use std::path::{Path, PathBuf};

use super::config::{resolve_path, Declared, Scope};
use super::source::{GitSource, NpmSource, Source};

/// The folders to look in, beyond a declaration's own.
#[derive(Debug, Clone)]
pub struct Locations {
    /// pi's agent dir (`PI_CODING_AGENT_DIR`, else `~/.pi/agent`).
    pub pi_agent_dir: PathBuf,
}

impl Locations {
    /// pi's agent dir from the process environment.
    pub fn from_env() -> Locations {
        Locations {
            pi_agent_dir: rho_session::paths::pi_agent_dir_from(&rho_session::paths::process_env),
        }
    }

    /// The package folders for `decl`, its own first.
    pub fn roots(&self, decl: &Declared) -> Vec<PathBuf> {
        let mut roots = vec![decl.dir.clone()];
        let other = match decl.scope {
            Scope::User => Some(self.pi_agent_dir.clone()),
            Scope::Project => decl
                .dir
                .file_name()
                .is_some_and(|n| n == ".rho")
                .then(|| decl.dir.with_file_name(".pi")),
            Scope::Temporary => None,
        };
        roots.extend(other.filter(|o| *o != decl.dir));
        roots
    }

    /// Where `decl`'s package is installed and usable, `None` when it must be installed: a
    /// local path that exists, a git checkout, or an npm package whose version matches the
    /// declared one.
    pub fn installed(&self, decl: &Declared) -> Option<PathBuf> {
        match decl.source() {
            Source::Local(path) => Some(resolve_path(&path, &decl.dir)).filter(|p| p.exists()),
            Source::Npm(npm) => self
                .roots(decl)
                .into_iter()
                .map(|root| npm_path(&root, &npm))
                .find(|p| npm_matches(p, &npm)),
            Source::Git(git) => self
                .roots(decl)
                .into_iter()
                .filter_map(|root| git_path(&root, &git))
                .find(|p| p.is_dir()),
        }
    }
}

/// `<root>/npm`, the npm project packages are installed into.
pub fn npm_root(root: &Path) -> PathBuf {
    root.join("npm")
}

/// `<root>/npm/node_modules/<name>`.
pub fn npm_path(root: &Path, npm: &NpmSource) -> PathBuf {
    npm_root(root).join("node_modules").join(&npm.name)
}

/// `<root>/git`, where repositories are cloned.
pub fn git_root(root: &Path) -> PathBuf {
    root.join("git")
}

/// `<root>/git/<host>/<path>`, `None` if that would leave `<root>/git`.
pub fn git_path(root: &Path, git: &GitSource) -> Option<PathBuf> {
    let base = git_root(root);
    let path = super::config::normalize(&base.join(&git.host).join(&git.path));
    (path.starts_with(&base) && path != base).then_some(path)
}

/// The `version` of the package.json in `dir`.
pub fn installed_version(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("package.json")).ok()?;
    let pkg: serde_json::Value = serde_json::from_str(text.trim_start_matches('\u{feff}')).ok()?;
    pkg.get("version")?.as_str().map(str::to_string)
}

/// Whether the package at `dir` is installed with a version the spec accepts (any version
/// when the spec names none or something that is not a range, such as a tarball path).
pub(crate) fn npm_matches(dir: &Path, npm: &NpmSource) -> bool {
    let Some(installed) = installed_version(dir) else {
        return false;
    };
    let Some(wanted) = npm.version.as_deref() else {
        return true;
    };
    match (
        node_semver::Range::parse(wanted),
        node_semver::Version::parse(&installed),
    ) {
        (Ok(range), Ok(version)) => range.satisfies(&version),
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::Entry;
    use super::*;

    fn decl(source: &str, scope: Scope, dir: &Path) -> Declared {
        Declared {
            entry: Entry {
                source: source.into(),
                filter: None,
            },
            scope,
            dir: dir.to_path_buf(),
        }
    }

    fn npm_install(root: &Path, name: &str, version: &str) {
        let dir = root.join("npm/node_modules").join(name);
        std::fs::create_dir_all(&dir).expect("mkdir");
        let pkg = serde_json::json!({"name": name, "version": version});
        std::fs::write(dir.join("package.json"), pkg.to_string()).expect("write");
    }

    #[test]
    fn a_users_pi_install_is_found_and_rhos_own_comes_first() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (rho, pi) = (tmp.path().join("rho"), tmp.path().join("pi"));
        let locations = Locations {
            pi_agent_dir: pi.clone(),
        };
        let d = decl("npm:@s/tools@^1.2.0", Scope::User, &rho);
        assert_eq!(locations.installed(&d), None);
        npm_install(&pi, "@s/tools", "1.3.0");
        assert_eq!(
            locations.installed(&d),
            Some(pi.join("npm/node_modules/@s/tools"))
        );
        npm_install(&rho, "@s/tools", "1.4.0");
        assert_eq!(
            locations.installed(&d),
            Some(rho.join("npm/node_modules/@s/tools"))
        );
        let newer = decl("npm:@s/tools@2.0.0", Scope::User, &rho);
        assert_eq!(
            locations.installed(&newer),
            None,
            "a version the spec refuses"
        );
    }

    #[test]
    fn project_packages_of_rho_fall_back_to_the_projects_pi_folder() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let project = tmp.path().join("proj");
        let locations = Locations {
            pi_agent_dir: tmp.path().join("pi"),
        };
        let d = decl(
            "git:github.com/u/r@v1",
            Scope::Project,
            &project.join(".rho"),
        );
        let checkout = project.join(".pi/git/github.com/u/r");
        std::fs::create_dir_all(&checkout).expect("mkdir");
        assert_eq!(locations.installed(&d), Some(checkout));
        let pis = decl("git:github.com/u/r", Scope::Project, &project.join(".pi"));
        assert_eq!(locations.roots(&pis), [project.join(".pi")]);
    }

    #[test]
    fn local_paths_resolve_from_their_settings_folder() {
        let tmp = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(tmp.path().join("pkgs/mine")).expect("mkdir");
        let locations = Locations {
            pi_agent_dir: tmp.path().join("pi"),
        };
        let d = decl("../pkgs/mine", Scope::User, &tmp.path().join("agent"));
        assert_eq!(locations.installed(&d), Some(tmp.path().join("pkgs/mine")));
    }
}
