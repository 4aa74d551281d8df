//! Extension processes, each started once per run. [`Launcher::start`] starts the extensions
//! of a list of paths in load order: pi extensions all in one node host process
//! (`rho-pi-host`), the others each in its own process; failures become warnings. What it
//! returns ([`Started`]) is not yet the session's: when pi 1.6's `project_trust` is asked at
//! start-up, the user's and the command line's extensions are started with the question still
//! open, asked, and then [`Started::finish`] hands them to the session as pi reuses its
//! pre-trust extensions: each is told the decision, the trusted project's own extensions are
//! started beside them (its pi extensions loaded into the running host, so they share one
//! runtime as in pi), and the set comes out in the final load order.

use std::path::{Path, PathBuf};

use rho_core::settings::Settings;
use rho_extension_host::process::{ProcessExtension, ProcessOptions};
use rho_extension_host::Extension;

use crate::args::Args;
use crate::extensions::{flag_values, program_for};
use crate::pi_supervisor::{Launch, Supervisor};

/// What every extension is told at start (`hello`).
#[derive(Debug, Clone, Copy)]
pub struct Told<'a> {
    /// Whether a UI answers its `ui_*` calls.
    pub has_ui: bool,
    /// How rho runs (`ctx.mode`).
    pub mode: &'a str,
    /// Whether the project's own resources are trusted (`ctx.isProjectTrusted()`).
    pub project_trusted: bool,
}

/// How this run starts extension processes: what `hello` tells them and where the pi host
/// finds node (the settings' `nodePath`).
pub struct Launcher {
    options: ProcessOptions,
    agent_dir: PathBuf,
    node_path: Option<String>,
}

impl Launcher {
    /// The launcher for a session in `cwd`, told `told`, with `settings` in force.
    pub fn new(args: &Args, settings: &Settings, agent_dir: &Path, cwd: &Path, told: Told) -> Self {
        let node_path = settings.raw().get("nodePath").and_then(|v| v.as_str());
        Self {
            options: ProcessOptions {
                cwd: Some(cwd.to_path_buf()),
                has_ui: told.has_ui,
                flags: flag_values(args),
                mode: Some(told.mode.to_string()),
                project_trusted: told.project_trusted,
                ..ProcessOptions::default()
            },
            agent_dir: agent_dir.to_path_buf(),
            node_path: node_path.map(str::to_string),
        }
    }

    /// Starts the extensions of `paths`, in their order (the pi host where the first pi
    /// extension stands).
    pub async fn start(self, paths: Vec<PathBuf>, warnings: &mut Vec<String>) -> Started {
        let mut started = Started {
            launcher: self,
            paths: Vec::new(),
            pi: None,
            others: Vec::new(),
        };
        started.add(&paths, &paths, warnings).await;
        started.paths = paths;
        started
    }
}

/// Extension processes started for a list of paths, not yet handed to a session.
pub struct Started {
    launcher: Launcher,
    /// Every path started, or tried and failed (a failure is not tried again, as in pi).
    paths: Vec<PathBuf>,
    /// The pi host, when one runs.
    pi: Option<PiProcess>,
    /// The other extensions, by path.
    others: Vec<(PathBuf, ProcessExtension)>,
}

/// The running pi host and how to start it again.
struct PiProcess {
    process: ProcessExtension,
    files: HostFiles,
    /// The pi extension paths it holds, in load order.
    paths: Vec<PathBuf>,
}

/// Where the pi host's parts are.
struct HostFiles {
    node: rho_pi_host::Node,
    entry: PathBuf,
    packages: PathBuf,
}

impl Started {
    /// The paths started (or tried), in load order.
    pub fn paths(&self) -> &[PathBuf] {
        &self.paths
    }

    /// The extensions as they stand (no restart of a crashing pi host), in load order: what
    /// `project_trust` is asked of.
    pub fn extensions(&self) -> Vec<Extension> {
        self.ordered(&self.paths, |pi| pi.process.extension())
    }

    /// Hands the extensions to the session of a project trusted or not (`project_trusted`),
    /// whose extension paths are `paths` in load order: those not started yet start now, and
    /// those that were are told the decision when it is not what they were told at start.
    pub async fn finish(
        mut self,
        paths: &[PathBuf],
        project_trusted: bool,
        warnings: &mut Vec<String>,
    ) -> Vec<Extension> {
        if project_trusted != self.launcher.options.project_trusted {
            self.launcher.options.project_trusted = project_trusted;
            self.tell_trust(project_trusted, warnings).await;
        }
        let remaining: Vec<PathBuf> = paths
            .iter()
            .filter(|p| !self.paths.contains(p))
            .cloned()
            .collect();
        self.add(&remaining, paths, warnings).await;
        // The final set may leave out some the host holds (a project setting disabling one).
        self.add_pi(&[], paths, warnings).await;
        let launcher = &self.launcher;
        self.ordered(paths, |pi| {
            let (program, args) = pi.files.command(&launcher.agent_dir, &pi.paths);
            let launch = Launch {
                program,
                args,
                options: pi.files.process_options(&launcher.options),
                files: names(&pi.paths),
            };
            Supervisor::extension(launch, pi.process.clone())
        })
    }

    /// Tells every process the project's trust, decided after they started.
    async fn tell_trust(&mut self, project_trusted: bool, warnings: &mut Vec<String>) {
        let pi = self.pi.as_mut().map(|pi| &mut pi.process);
        let others = self.others.iter_mut().map(|(_, p)| p);
        for process in pi.into_iter().chain(others) {
            if let Err(e) = process.tell_trust(project_trusted).await {
                warnings.push(e.to_string());
            }
        }
    }

    /// Starts the extensions of `new` (in `order`, the final load order): pi extensions into
    /// the running host, else a new one.
    async fn add(&mut self, new: &[PathBuf], order: &[PathBuf], warnings: &mut Vec<String>) {
        let (pi_paths, others): (Vec<PathBuf>, Vec<PathBuf>) = new
            .iter()
            .cloned()
            .partition(|p| rho_pi_host::is_pi_extension(p));
        let mut pi_pending = !pi_paths.is_empty();
        for path in new {
            if pi_pending && pi_paths.first() == Some(path) {
                pi_pending = false;
                self.add_pi(&pi_paths, order, warnings).await;
            }
            if !others.contains(path) {
                continue;
            }
            let (program, args) = program_for(path);
            let options = self.launcher.options.clone();
            match ProcessExtension::spawn(&program, &args, options).await {
                Ok(ext) => self.others.push((path.clone(), ext)),
                Err(e) => warnings.push(e.to_string()),
            }
        }
    }

    /// Loads pi extensions `new` into the running host, which then holds those of `order`
    /// (the final load order) in that order; or starts the host for them.
    async fn add_pi(&mut self, new: &[PathBuf], order: &[PathBuf], warnings: &mut Vec<String>) {
        let Some(pi) = self.pi.as_mut() else {
            if !new.is_empty() {
                self.pi = PiProcess::start(&self.launcher, new, warnings).await;
            }
            return;
        };
        let held: Vec<PathBuf> = order
            .iter()
            .filter(|p| pi.paths.contains(p) || new.contains(p))
            .cloned()
            .collect();
        if held == pi.paths {
            return;
        }
        if held.is_empty() {
            // None of its extensions is in the final set.
            self.pi = None;
            return;
        }
        match pi.process.with_paths(new, &held).await {
            Ok(process) => {
                warnings.extend(process.registration().notices.iter().cloned());
                pi.process = process;
                pi.paths = held;
            }
            Err(e) => warnings.push(format!("pi extensions not loaded ({}): {e}", names(new))),
        }
    }

    /// The extensions in the order of `paths`: the pi host (made by `pi_host`) where the
    /// first of its paths stands, each other one at its path.
    fn ordered(
        &self,
        paths: &[PathBuf],
        pi_host: impl FnOnce(&PiProcess) -> Extension,
    ) -> Vec<Extension> {
        let mut pi_host = Some(pi_host);
        let mut out = Vec::new();
        for path in paths {
            if let Some(pi) = self.pi.as_ref().filter(|pi| pi.paths.first() == Some(path)) {
                out.extend(pi_host.take().map(|make| make(pi)));
            }
            let other = self.others.iter().find(|(p, _)| p == path);
            out.extend(other.map(|(_, process)| process.extension()));
        }
        out
    }
}

impl PiProcess {
    /// Starts the pi host for `paths`; its load notices become warnings.
    async fn start(
        launcher: &Launcher,
        paths: &[PathBuf],
        warnings: &mut Vec<String>,
    ) -> Option<Self> {
        let node = match rho_pi_host::find_node(launcher.node_path.as_deref()) {
            Ok(node) => node,
            Err(e) => {
                warnings.push(format!("pi extensions not loaded ({}): {e}", names(paths)));
                return None;
            }
        };
        let host_dir = launcher.agent_dir.join("pi-host");
        let entry = match rho_pi_host::install_host(&host_dir) {
            Ok(entry) => entry,
            Err(e) => {
                let dir = host_dir.display();
                warnings.push(format!(
                    "pi extensions not loaded ({}): cannot write the host into {dir}: {e}",
                    names(paths)
                ));
                return None;
            }
        };
        let files = HostFiles {
            node,
            entry,
            packages: rho_pi_host::packages_dir(&launcher.agent_dir),
        };
        let (program, args) = files.command(&launcher.agent_dir, paths);
        let options = files.process_options(&launcher.options);
        match ProcessExtension::spawn(&program, &args, options).await {
            Ok(process) => {
                warnings.extend(process.registration().notices.iter().cloned());
                let paths = paths.to_vec();
                Some(Self {
                    process,
                    files,
                    paths,
                })
            }
            Err(e) => {
                warnings.push(format!("pi extensions not loaded ({}): {e}", names(paths)));
                None
            }
        }
    }
}

impl HostFiles {
    /// The program and arguments that start the host for `paths`.
    fn command(&self, agent_dir: &Path, paths: &[PathBuf]) -> (String, Vec<String>) {
        let host = rho_pi_host::HostPaths {
            node: &self.node,
            entry: &self.entry,
            packages: &self.packages,
            agent_dir,
        };
        rho_pi_host::command(&host, paths)
    }

    /// `options` with the host's handshake deadline: loading many extensions takes a while,
    /// the first npm install of pi's packages longer.
    fn process_options(&self, options: &ProcessOptions) -> ProcessOptions {
        let mut options = options.clone();
        options.handshake_timeout = if rho_pi_host::packages_ready(&self.packages) {
            std::time::Duration::from_secs(60)
        } else {
            std::time::Duration::from_secs(600)
        };
        options
    }
}

/// The extension paths, for messages.
fn names(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
