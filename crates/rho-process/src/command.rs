//! The one builder of a child's command line: the program (wrapped by the sandbox when one
//! applies), its own process group, stdin closed unless asked for, the provider keys
//! scrubbed, then the caller's own variables (which win over the scrub).

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;

use rho_sandbox::{Sandbox, SandboxError};

use super::scrub::KeyScrub;
use super::shell::Host;

/// What to run and under which fences.
#[derive(Debug, Clone)]
pub struct ChildSpec {
    program: PathBuf,
    args: Vec<OsString>,
    cwd: Option<PathBuf>,
    env: Vec<(OsString, OsString)>,
    env_removed: Vec<OsString>,
    sandbox: Option<Arc<Sandbox>>,
    scrub: KeyScrub,
    in_terminal: bool,
}

impl ChildSpec {
    /// `program` with no arguments, unsandboxed, the built-in provider keys scrubbed.
    pub fn new(program: impl Into<PathBuf>) -> Self {
        Self {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: Vec::new(),
            env_removed: Vec::new(),
            sandbox: None,
            scrub: KeyScrub::default(),
            in_terminal: false,
        }
    }

    /// Adds arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<OsStr>,
    {
        self.args
            .extend(args.into_iter().map(|a| a.as_ref().to_os_string()));
        self
    }

    /// The working directory.
    pub fn cwd(mut self, cwd: impl AsRef<Path>) -> Self {
        self.cwd = Some(cwd.as_ref().to_path_buf());
        self
    }

    /// Sets a variable (after the scrub, so a configured value is passed as given).
    pub fn env(mut self, key: impl AsRef<OsStr>, value: impl AsRef<OsStr>) -> Self {
        self.env
            .push((key.as_ref().to_os_string(), value.as_ref().to_os_string()));
        self
    }

    /// Removes an inherited variable (before the caller's own variables apply).
    pub fn env_remove(mut self, key: impl AsRef<OsStr>) -> Self {
        self.env_removed.push(key.as_ref().to_os_string());
        self
    }

    /// Runs the program under `sandbox` (`None`: unconfined).
    pub fn sandbox(mut self, sandbox: Option<Arc<Sandbox>>) -> Self {
        self.sandbox = sandbox;
        self
    }

    /// The key scrubbing to apply.
    pub fn scrub(mut self, scrub: KeyScrub) -> Self {
        self.scrub = scrub;
        self
    }

    /// The child shares rho's terminal (`rho install` run from a shell): it stays in rho's
    /// process group, so it may prompt there (git asking for a password) without being
    /// stopped as a background job, and the terminal's Ctrl-C reaches it as it reaches rho.
    /// Such a child has no group of its own to record or end; a timeout ends the child alone.
    pub fn in_terminal(mut self, in_terminal: bool) -> Self {
        self.in_terminal = in_terminal;
        self
    }

    /// Whether the child gets a process group of its own (everything but [`Self::in_terminal`]).
    pub fn own_group(&self) -> bool {
        !self.in_terminal
    }

    /// The program as the caller named it (for messages).
    pub fn program(&self) -> &Path {
        &self.program
    }

    /// The command for a blocking run: own process group (unless [`Self::in_terminal`]),
    /// stdin closed. Fails when the sandbox refuses to run anything.
    pub fn std_command(&self) -> Result<std::process::Command, SandboxError> {
        let mut cmd = match &self.sandbox {
            Some(sandbox) => sandbox.command(&self.program, &self.args)?,
            None => {
                let program = crate::program::resolve(&self.program, &Host::current());
                let mut cmd = std::process::Command::new(program);
                cmd.args(&self.args);
                cmd
            }
        };
        if let Some(cwd) = &self.cwd {
            cmd.current_dir(cwd);
        }
        self.scrub.apply(&mut cmd);
        for key in &self.env_removed {
            cmd.env_remove(key);
        }
        for (key, value) in &self.env {
            cmd.env(key, value);
        }
        cmd.stdin(Stdio::null());
        if self.own_group() {
            crate::platform::own_group(&mut cmd);
        }
        Ok(cmd)
    }

    /// The command, ready for the caller's pipes: own process group, stdin closed, killed
    /// if dropped unawaited. Fails when the sandbox refuses to run anything.
    pub fn command(&self) -> Result<tokio::process::Command, SandboxError> {
        let mut cmd = tokio::process::Command::from(self.std_command()?);
        cmd.kill_on_drop(true);
        Ok(cmd)
    }
}
