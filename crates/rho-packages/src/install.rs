//! The npm and git commands that install, update and remove packages, with pi 1.6's
//! arguments: npm packages go into an npm project per package folder (peer dependencies
//! left to the host), git repositories are cloned and their dependencies installed, and an
//! update resets a checkout to its ref's newest commit. Output goes to the terminal for
//! `rho install` and friends, or is captured (its end kept for the error) when a session
//! installs at start-up, where stdout may be the RPC stream and git must not prompt.
//!
//! The commands run through `rho-process`: a captured one in its own process group, recorded
//! so rho's exit (a signal included) ends it; one at the terminal in rho's group, where git
//! may ask for a password and Ctrl-C reaches it as it reaches rho. Neither has a timeout: an
//! install may take minutes.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rho_process::{run_to_end, ChildSpec, KeyScrub, Output, RunError};

use super::locate::{git_path, git_root, npm_root};
use super::source::GitSource;
use super::PackageError;

/// How much of a failed command's output its error keeps.
const OUTPUT_TAIL: usize = 8000;

/// How long pi lets a registry question (`npm view`) take.
const NETWORK_TIMEOUT: Duration = Duration::from_secs(10);

/// Runs the package managers.
#[derive(Debug, Clone)]
pub struct Installer {
    /// The `npmCommand` setting: program and leading arguments (`["npm"]` by default).
    npm: Vec<String>,
    /// Capture output instead of passing it to the terminal.
    capture: bool,
}

/// The package manager behind `npmCommand`, whose arguments differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Manager {
    Npm,
    Pnpm,
    Bun,
    Other,
}

impl Installer {
    /// An installer using `npm_command` (the setting; `None` or empty for `npm`); `capture`
    /// keeps output off the terminal.
    pub fn new(npm_command: Option<Vec<String>>, capture: bool) -> Installer {
        let npm = npm_command
            .filter(|c| c.first().is_some_and(|p| !p.is_empty()))
            .unwrap_or_else(|| vec!["npm".into()]);
        Installer { npm, capture }
    }

    /// pi's reading of `npmCommand`: the program's name, or the one a wrapper runs.
    fn manager(&self) -> Manager {
        let name = |s: &str| {
            let base = Path::new(s)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            match base.trim_end_matches(".cmd").trim_end_matches(".exe") {
                "npm" => Manager::Npm,
                "pnpm" => Manager::Pnpm,
                "bun" => Manager::Bun,
                _ => Manager::Other,
            }
        };
        let args = &self.npm[1..];
        if let Some(i) = args.iter().rposition(|a| a == "--") {
            return args.get(i + 1).map_or(name(&self.npm[0]), |a| name(a));
        }
        let direct = name(&self.npm[0]);
        if direct != Manager::Other {
            return direct;
        }
        args.iter()
            .map(|a| name(a))
            .find(|m| *m != Manager::Other)
            .unwrap_or(direct)
    }

    fn npm_command(&self, args: Vec<String>, cwd: Option<&Path>) -> Result<(), PackageError> {
        let mut all: Vec<String> = self.npm[1..].to_vec();
        all.extend(args);
        self.run(&self.npm[0], &all, cwd)
    }

    /// Runs a command to its end; its output reaches the terminal, or is captured.
    fn run(&self, program: &str, args: &[String], cwd: Option<&Path>) -> Result<(), PackageError> {
        let mut spec = command(program, args, cwd).in_terminal(!self.capture);
        let shown = || format!("{program} {}", args.join(" "));
        if !self.capture {
            let status = run_to_end(&spec, Output::Inherited, None)
                .map_err(run_error)?
                .status;
            return match status.code() {
                Some(0) => Ok(()),
                code => Err(PackageError::Failed(
                    shown(),
                    status_text(code),
                    String::new(),
                )),
            };
        }
        spec = spec.env("GIT_TERMINAL_PROMPT", "0");
        if std::env::var_os("GIT_SSH_COMMAND").is_none() {
            spec = spec.env("GIT_SSH_COMMAND", "ssh -o BatchMode=yes");
        }
        let out = run_to_end(&spec, Output::Captured, None).map_err(run_error)?;
        if out.status.success() {
            return Ok(());
        }
        let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.push_str(&String::from_utf8_lossy(&out.stderr));
        let text = text.trim();
        let cut = text
            .char_indices()
            .rev()
            .nth(OUTPUT_TAIL)
            .map_or(0, |(i, _)| i);
        let mut tail = format!(":\n{}", &text[cut..]);
        if text.is_empty() {
            tail.clear();
        }
        if program == "git" && needs_credentials(text) {
            tail.push_str("\ngit cannot ask for a password or passphrase while rho starts. Set up a git credential helper or an ssh agent, or install the package once from the shell with `rho install <source>`.");
        }
        Err(PackageError::Failed(
            shown(),
            status_text(out.status.code()),
            tail,
        ))
    }

    /// A command's stdout, trimmed (always captured).
    fn read(&self, program: &str, args: &[&str], cwd: &Path) -> Result<String, PackageError> {
        self.read_within(program, args, cwd, None)
    }

    /// [`Self::read`], the command ended after `timeout` (then an error).
    fn read_within(
        &self,
        program: &str,
        args: &[&str],
        cwd: &Path,
        timeout: Option<Duration>,
    ) -> Result<String, PackageError> {
        let spec = command(program, args, Some(cwd)).env("GIT_TERMINAL_PROMPT", "0");
        let out = run_to_end(&spec, Output::Captured, timeout).map_err(run_error)?;
        if !out.status.success() {
            let shown = format!("{program} {}", args.join(" "));
            let err = String::from_utf8_lossy(&out.stderr).trim().to_string();
            return Err(PackageError::Failed(
                shown,
                status_text(out.status.code()),
                format!(": {err}"),
            ));
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    }

    /// `npm install <specs>` into `<root>/npm` (made an npm project first).
    pub fn npm_install(&self, root: &Path, specs: &[String]) -> Result<(), PackageError> {
        self.npm_install_in(&npm_root(root), specs)
    }

    /// `npm install <specs>` into the npm project `dir` (made one first).
    pub fn npm_install_in(&self, dir: &Path, specs: &[String]) -> Result<(), PackageError> {
        let dir = dir.to_path_buf();
        ensure_npm_project(&dir)?;
        // npm writes broken nested lock paths when --prefix goes through a symbolic link.
        let prefix = std::fs::canonicalize(&dir)
            .unwrap_or(dir)
            .display()
            .to_string();
        let mut args = vec!["install".to_string()];
        args.extend(specs.iter().cloned());
        let tail: &[&str] = match self.manager() {
            Manager::Bun => &["--cwd", &prefix, "--omit=peer"],
            Manager::Pnpm => &[
                "--prefix",
                &prefix,
                "--config.auto-install-peers=false",
                "--config.strict-peer-dependencies=false",
                "--config.strict-dep-builds=false",
            ],
            _ => &[
                "--prefix",
                &prefix,
                "--legacy-peer-deps",
                "--no-audit",
                "--no-fund",
            ],
        };
        args.extend(tail.iter().map(|s| s.to_string()));
        self.npm_command(args, None)
    }

    /// `npm uninstall <name>` from `<root>/npm`; nothing when that project does not exist.
    pub fn npm_uninstall(&self, root: &Path, name: &str) -> Result<(), PackageError> {
        let Ok(dir) = std::fs::canonicalize(npm_root(root)) else {
            return Ok(());
        };
        let prefix = dir.display().to_string();
        let args: Vec<&str> = match self.manager() {
            Manager::Bun => vec!["uninstall", name, "--cwd", &prefix],
            Manager::Pnpm => vec!["uninstall", name, "--prefix", &prefix],
            _ => vec![
                "uninstall",
                name,
                "--prefix",
                &prefix,
                "--legacy-peer-deps",
                "--no-audit",
                "--no-fund",
            ],
        };
        self.npm_command(args.into_iter().map(String::from).collect(), None)
    }

    /// The newest version the registry has of `spec` (`npm view <spec> version --json`,
    /// given up after pi's 10 seconds), the newest `range` accepts when it answers a list;
    /// `None` when npm cannot say (offline, unknown package, a tarball spec).
    pub fn latest_npm_version(
        &self,
        spec: &str,
        range: Option<&str>,
        cwd: &Path,
    ) -> Option<String> {
        let mut args: Vec<&str> = self.npm[1..].iter().map(String::as_str).collect();
        args.extend_from_slice(&["view", spec, "version", "--json"]);
        let out = self
            .read_within(&self.npm[0], &args, cwd, Some(NETWORK_TIMEOUT))
            .ok()?;
        newest_version(&out, range)
    }

    /// The global npm folder (`npm root -g`), where pi 0.x installed packages.
    pub fn global_npm_root(&self) -> Option<PathBuf> {
        let program = &self.npm[0];
        let mut args: Vec<&str> = self.npm[1..].iter().map(String::as_str).collect();
        let bun = self.manager() == Manager::Bun;
        let ask: &[&str] = if bun {
            &["pm", "bin", "-g"]
        } else {
            &["root", "-g"]
        };
        args.extend_from_slice(ask);
        let out = self.read(program, &args, Path::new(".")).ok()?;
        let path = PathBuf::from(out);
        Some(if bun {
            path.parent()?.join("install/global/node_modules")
        } else {
            path
        })
    }

    /// The dependency install a cloned repository gets.
    fn install_dependencies(&self, dir: &Path) -> Result<(), PackageError> {
        if !dir.join("package.json").is_file() {
            return Ok(());
        }
        let args: &[&str] = match self.manager() {
            Manager::Bun => &["install", "--omit=dev", "--omit=peer"],
            Manager::Pnpm => &[
                "install",
                "--prod",
                "--config.auto-install-peers=false",
                "--config.strict-peer-dependencies=false",
                "--config.strict-dep-builds=false",
            ],
            Manager::Npm => &[
                "install",
                "--omit=dev",
                "--legacy-peer-deps",
                "--no-audit",
                "--no-fund",
            ],
            Manager::Other => &["install"],
        };
        self.npm_command(args.iter().map(|s| s.to_string()).collect(), Some(dir))
    }

    /// Clones `git` into `<root>/git/<host>/<path>` (checking out its ref and installing its
    /// dependencies), or brings an existing checkout to its ref.
    pub fn git_install(&self, root: &Path, git: &GitSource) -> Result<(), PackageError> {
        let target = checkout(root, git)?;
        let base = git_root(root);
        if target.exists() {
            return self.git_update_checkout(&target, git);
        }
        ensure_gitignore(&base)?;
        self.git_clone(&target, &base, git)
    }

    /// Clones `git` into `target` (checking out its ref and installing its dependencies); a
    /// clone that fails leaves no folders behind up to `base`.
    pub fn git_clone(
        &self,
        target: &Path,
        base: &Path,
        git: &GitSource,
    ) -> Result<(), PackageError> {
        let target = target.to_path_buf();
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent).map_err(|e| PackageError::Io(parent.into(), e))?;
        }
        let _ = std::fs::remove_file(marker(&target));
        let cloned = (|| {
            let target_text = target.display().to_string();
            self.run(
                "git",
                &["clone".into(), git.repo.clone(), target_text],
                None,
            )?;
            if let Some(r) = &git.git_ref {
                self.run("git", &["checkout".into(), r.clone()], Some(&target))?;
            }
            self.install_dependencies(&target)
        })();
        if cloned.is_err() {
            let _ = std::fs::remove_dir_all(&target);
            prune_empty(&target, base);
        }
        cloned
    }

    /// Fetches the checkout's ref (its tracked branch without one) and resets to it when it
    /// moved; a reset that did not finish (its marker left) is completed.
    pub fn git_update(&self, root: &Path, git: &GitSource) -> Result<(), PackageError> {
        let target = checkout(root, git)?;
        if !target.exists() {
            return self.git_install(root, git);
        }
        self.git_update_checkout(&target, git)
    }

    /// Brings the existing checkout `target` to its ref's newest commit (see
    /// [`Self::git_update`]).
    pub fn git_update_checkout(&self, target: &Path, git: &GitSource) -> Result<(), PackageError> {
        let target = target.to_path_buf();
        let (fetch, wanted) = match &git.git_ref {
            Some(r) => (
                vec!["fetch".into(), "origin".into(), r.clone()],
                "FETCH_HEAD".to_string(),
            ),
            None => self.upstream(&target),
        };
        self.run("git", &fetch, Some(&target))?;
        let head = self.read("git", &["rev-parse", "HEAD"], &target)?;
        let commit = format!("{wanted}^{{commit}}");
        let goal = self.read("git", &["rev-parse", &commit], &target)?;
        let marker = marker(&target);
        if head == goal {
            if marker.exists() {
                return self.clean_and_install(&target, &marker);
            }
            return self.repair_dependencies(&target);
        }
        std::fs::write(&marker, "").map_err(|e| PackageError::Io(marker.clone(), e))?;
        self.run(
            "git",
            &["reset".into(), "--hard".into(), commit],
            Some(&target),
        )?;
        self.clean_and_install(&target, &marker)
    }

    /// What to fetch and reset to for a checkout without a ref: its upstream branch, else
    /// the remote's default branch.
    fn upstream(&self, dir: &Path) -> (Vec<String>, String) {
        let fetch = |branch: &str| {
            [
                "fetch",
                "--prune",
                "--no-tags",
                "origin",
                &format!("+refs/heads/{branch}:refs/remotes/origin/{branch}"),
            ]
            .map(String::from)
            .to_vec()
        };
        let tracked = self
            .read("git", &["rev-parse", "--abbrev-ref", "@{upstream}"], dir)
            .ok();
        if let Some(branch) = tracked.as_deref().and_then(|t| t.strip_prefix("origin/")) {
            if !branch.is_empty() {
                return (fetch(branch), "@{upstream}".into());
            }
        }
        let _ = self.read("git", &["remote", "set-head", "origin", "-a"], dir);
        let head = self
            .read("git", &["symbolic-ref", "refs/remotes/origin/HEAD"], dir)
            .unwrap_or_default();
        match head.strip_prefix("refs/remotes/origin/") {
            Some(branch) if !branch.is_empty() => (fetch(branch), "origin/HEAD".into()),
            _ => (
                [
                    "fetch",
                    "--prune",
                    "--no-tags",
                    "origin",
                    "+HEAD:refs/remotes/origin/HEAD",
                ]
                .map(String::from)
                .to_vec(),
                "origin/HEAD".into(),
            ),
        }
    }

    /// `git clean -fdx` and the dependencies again; the marker goes once both succeeded.
    fn clean_and_install(&self, dir: &Path, marker: &Path) -> Result<(), PackageError> {
        let cleaned = self
            .run("git", &["clean".into(), "-fdx".into()], Some(dir))
            .is_ok();
        self.install_dependencies(dir)?;
        if cleaned {
            let _ = std::fs::remove_file(marker);
        }
        Ok(())
    }

    /// Installs the dependencies again when one named in package.json is missing.
    fn repair_dependencies(&self, dir: &Path) -> Result<(), PackageError> {
        let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else {
            return Ok(());
        };
        let pkg: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
        let modules = dir.join("node_modules");
        let missing = pkg
            .get("dependencies")
            .and_then(|d| d.as_object())
            .is_some_and(|deps| {
                deps.keys().any(|name| {
                    let path = super::config::normalize(&modules.join(name));
                    path.starts_with(&modules) && !path.exists()
                })
            });
        if missing {
            self.install_dependencies(dir)?;
        }
        Ok(())
    }

    /// Deletes the checkout and the folders it leaves empty.
    pub fn git_remove(&self, root: &Path, git: &GitSource) -> Result<(), PackageError> {
        let target = checkout(root, git)?;
        if target.exists() {
            std::fs::remove_dir_all(&target).map_err(|e| PackageError::Io(target.clone(), e))?;
        }
        let _ = std::fs::remove_file(marker(&target));
        prune_empty(&target, &git_root(root));
        Ok(())
    }

    /// The commit checked out at `dir`.
    pub fn git_head(&self, dir: &Path) -> Option<String> {
        self.read("git", &["rev-parse", "HEAD"], dir).ok()
    }
}

/// What `npm view <spec> version --json` printed, read as pi reads it: one version, or of a
/// list the newest (within `range`, when given and valid).
fn newest_version(json: &str, range: Option<&str>) -> Option<String> {
    use node_semver::{Range, Version};
    match serde_json::from_str::<serde_json::Value>(json).ok()? {
        serde_json::Value::String(v) => Some(v),
        serde_json::Value::Array(list) => {
            let range = range.and_then(|r| Range::parse(r).ok());
            list.iter()
                .filter_map(|v| v.as_str().and_then(|s| Version::parse(s).ok()))
                .filter(|v| range.as_ref().is_none_or(|r| r.satisfies(v)))
                .max()
                .map(|v| v.to_string())
        }
        _ => None,
    }
}

/// `program args` in `cwd` with the user's whole environment (npm and git need their tokens).
fn command(program: &str, args: &[impl AsRef<std::ffi::OsStr>], cwd: Option<&Path>) -> ChildSpec {
    let spec = ChildSpec::new(program)
        .args(args)
        .scrub(KeyScrub::keep_all());
    match cwd {
        Some(dir) => spec.cwd(dir),
        None => spec,
    }
}

/// A program that could not start is named with the hint to install it.
fn run_error(err: RunError) -> PackageError {
    match err {
        RunError::Spawn { program, source } => PackageError::Spawn(program, source),
        other => PackageError::Run(other),
    }
}

fn status_text(code: Option<i32>) -> String {
    code.map_or_else(|| "a signal".into(), |c| format!("code {c}"))
}

/// git or ssh failed because it would have had to ask for credentials.
fn needs_credentials(output: &str) -> bool {
    let lower = output.to_ascii_lowercase();
    [
        "terminal prompts disabled",
        "could not read username",
        "could not read password",
        "permission denied (publickey",
        "host key verification failed",
        "passphrase",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

fn checkout(root: &Path, git: &GitSource) -> Result<PathBuf, PackageError> {
    git_path(root, git).ok_or_else(|| PackageError::OutsideRoot(git_root(root)))
}

/// pi's marker of an update whose reset happened but whose clean-up did not finish.
fn marker(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.pi-update-incomplete"))
}

/// Makes `dir` an npm project that version control and cloud sync leave alone.
fn ensure_npm_project(dir: &Path) -> Result<(), PackageError> {
    ensure_gitignore(dir)?;
    let manifest = dir.join("package.json");
    if !manifest.exists() {
        std::fs::write(
            &manifest,
            "{\n  \"name\": \"rho-extensions\",\n  \"private\": true\n}\n",
        )
        .map_err(|e| PackageError::Io(manifest.clone(), e))?;
    }
    Ok(())
}

fn ensure_gitignore(dir: &Path) -> Result<(), PackageError> {
    std::fs::create_dir_all(dir).map_err(|e| PackageError::Io(dir.into(), e))?;
    let file = dir.join(".gitignore");
    if !file.exists() {
        std::fs::write(&file, "*\n!.gitignore\n").map_err(|e| PackageError::Io(file.clone(), e))?;
    }
    Ok(())
}

/// Removes the empty folders between `target` and `root` (exclusive).
fn prune_empty(target: &Path, root: &Path) {
    let mut dir = target.parent();
    while let Some(d) = dir.filter(|d| d.starts_with(root) && *d != root) {
        if std::fs::remove_dir(d).is_err() && d.exists() {
            break;
        }
        dir = d.parent();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_manager_is_read_from_npm_command_as_pi_reads_it() {
        let of = |argv: &[&str]| {
            Installer::new(Some(argv.iter().map(|s| s.to_string()).collect()), true).manager()
        };
        assert_eq!(of(&["npm"]), Manager::Npm);
        assert_eq!(of(&["/usr/local/bin/pnpm.cmd"]), Manager::Pnpm);
        assert_eq!(of(&["mise", "exec", "--", "bun"]), Manager::Bun);
        assert_eq!(of(&["corepack", "pnpm"]), Manager::Pnpm);
        assert_eq!(of(&["yarn"]), Manager::Other);
        assert_eq!(Installer::new(Some(vec![]), true).manager(), Manager::Npm);
    }

    #[test]
    fn a_failed_command_names_itself_and_keeps_the_end_of_its_output() {
        let installer = Installer::new(None, true);
        let err = installer
            .run("sh", &["-c".into(), "echo boom >&2; exit 3".into()], None)
            .expect_err("fails");
        assert_eq!(
            err.to_string(),
            "sh -c echo boom >&2; exit 3 failed with code 3:\nboom"
        );
        let missing = installer
            .run("rho-no-such-program", &[], None)
            .expect_err("cannot start");
        assert!(
            missing
                .to_string()
                .starts_with("cannot run rho-no-such-program: "),
            "{missing}"
        );
    }

    #[test]
    fn npm_views_answer_is_read_as_pi_reads_it() {
        assert_eq!(
            newest_version("\"1.4.0\"\n", None).as_deref(),
            Some("1.4.0")
        );
        let list = r#"["1.0.0", "1.2.0", "2.0.0", "not-a-version"]"#;
        assert_eq!(newest_version(list, None).as_deref(), Some("2.0.0"));
        assert_eq!(
            newest_version(list, Some("^1.0.0")).as_deref(),
            Some("1.2.0")
        );
        assert_eq!(newest_version("{\"error\": {}}", None), None);
        assert_eq!(newest_version("", None), None);
    }

    #[test]
    fn pruning_stops_at_the_root_and_at_a_folder_in_use() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path().join("git");
        let target = root.join("host/user/repo");
        std::fs::create_dir_all(&target).expect("mkdir");
        std::fs::create_dir_all(root.join("host/other")).expect("mkdir");
        std::fs::remove_dir(&target).expect("rm");
        prune_empty(&target, &root);
        assert!(!root.join("host/user").exists());
        assert!(root.join("host/other").exists());
    }
}
