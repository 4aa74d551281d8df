//! A policy bound to the mechanism that enforces it on this machine, and the one place that
//! turns "run this program" into a sandboxed [`std::process::Command`].

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::SandboxError;
use crate::policy::{NetworkAccess, SandboxMode, SandboxPolicy};
use crate::probe::Probe;

/// How the policy is enforced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mechanism {
    /// Nothing to enforce (mode `off`, network on).
    None,
    /// Landlock (and seccomp for the network) applied in the child before `exec`.
    Landlock,
    /// `bwrap` wraps the command.
    Bubblewrap(PathBuf),
    /// macOS `sandbox-exec` with a generated profile.
    Seatbelt,
    /// No mechanism can enforce the mode: commands are refused with this error.
    Refused(SandboxError),
}

/// A session's sandbox.
pub struct Sandbox {
    policy: SandboxPolicy,
    mechanism: Mechanism,
    #[cfg(target_os = "linux")]
    ruleset: Option<landlock::RulesetCreated>,
    #[cfg(target_os = "linux")]
    network_filter: Option<Vec<libc::sock_filter>>,
}

impl std::fmt::Debug for Sandbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sandbox")
            .field("policy", &self.policy)
            .field("mechanism", &self.mechanism)
            .finish()
    }
}

fn unavailable(policy: &SandboxPolicy) -> Mechanism {
    let reason = if cfg!(target_os = "macos") {
        "sandbox-exec was not found".to_string()
    } else if cfg!(windows) {
        "Windows has no sandbox rho can use; permission rules still apply (see /permissions)"
            .to_string()
    } else {
        "this kernel has no Landlock and bubblewrap (bwrap) is not installed".to_string()
    };
    Mechanism::Refused(SandboxError::Unavailable {
        mode: policy.mode.to_string(),
        reason,
    })
}

impl Sandbox {
    /// Binds `policy` to the best mechanism `probe` found: Landlock, else bubblewrap, else a
    /// refusal (never a silent downgrade to no sandbox).
    pub fn new(policy: SandboxPolicy, probe: &Probe) -> Self {
        let mut sandbox = Self {
            mechanism: Mechanism::None,
            #[cfg(target_os = "linux")]
            ruleset: None,
            #[cfg(target_os = "linux")]
            network_filter: None,
            policy,
        };
        sandbox.mechanism = sandbox.choose(probe);
        sandbox
    }

    /// A sandbox that enforces nothing.
    pub fn off() -> Self {
        Self::new(SandboxPolicy::off(), &Probe::nothing())
    }

    #[cfg(target_os = "linux")]
    fn choose(&mut self, probe: &Probe) -> Mechanism {
        let network_off = self.policy.network == NetworkAccess::Off;
        if self.policy.mode == SandboxMode::Off {
            if network_off {
                self.network_filter = Some(crate::seccomp::network_off_program());
                return Mechanism::Landlock;
            }
            return Mechanism::None;
        }
        if probe.landlock_abi.is_some() {
            if let Ok(ruleset) = crate::landlock_rules::build(&self.policy) {
                self.ruleset = Some(ruleset);
                self.network_filter = network_off.then(crate::seccomp::network_off_program);
                return Mechanism::Landlock;
            }
        }
        match &probe.bwrap {
            Some(path) => Mechanism::Bubblewrap(path.clone()),
            None => unavailable(&self.policy),
        }
    }

    #[cfg(not(target_os = "linux"))]
    fn choose(&mut self, _probe: &Probe) -> Mechanism {
        if self.policy.mode == SandboxMode::Off && self.policy.network == NetworkAccess::On {
            return Mechanism::None;
        }
        if cfg!(target_os = "macos") && Path::new(crate::seatbelt::SANDBOX_EXEC).exists() {
            return Mechanism::Seatbelt;
        }
        unavailable(&self.policy)
    }

    /// The policy in force.
    pub fn policy(&self) -> &SandboxPolicy {
        &self.policy
    }

    /// The mechanism enforcing it.
    pub fn mechanism(&self) -> &Mechanism {
        &self.mechanism
    }

    /// The warning to show at startup when the mode is refused.
    pub fn warning(&self) -> Option<String> {
        match &self.mechanism {
            Mechanism::Refused(err) => Some(err.to_string()),
            _ => None,
        }
    }

    /// One line for the user: mode, mechanism and network.
    pub fn describe(&self) -> String {
        let how = match &self.mechanism {
            Mechanism::None if cfg!(windows) => "no sandbox on Windows: permission rules only",
            Mechanism::None => "no sandbox",
            Mechanism::Landlock => "Landlock",
            Mechanism::Bubblewrap(_) => "bubblewrap",
            Mechanism::Seatbelt => "Seatbelt",
            Mechanism::Refused(_) => "refused",
        };
        let net = match self.policy.network {
            NetworkAccess::On => "on",
            NetworkAccess::Off => "off",
        };
        format!("{} ({how}, network {net})", self.policy.mode)
    }

    /// A command that runs `program args…` under the policy.
    pub fn command(&self, program: &Path, args: &[OsString]) -> Result<Command, SandboxError> {
        match &self.mechanism {
            Mechanism::None => {
                let mut cmd = Command::new(program);
                cmd.args(args);
                Ok(cmd)
            }
            Mechanism::Refused(err) => Err(err.clone()),
            Mechanism::Bubblewrap(bwrap) => {
                self.ensure_placeholders();
                let mut cmd = Command::new(bwrap);
                cmd.args(crate::bwrap::args(&self.policy, program, args));
                Ok(cmd)
            }
            Mechanism::Seatbelt => {
                let mut cmd = Command::new(crate::seatbelt::SANDBOX_EXEC);
                cmd.arg("-p")
                    .arg(crate::seatbelt::profile(&self.policy))
                    .arg("--")
                    .arg(program)
                    .args(args);
                Ok(cmd)
            }
            Mechanism::Landlock => self.landlock_command(program, args),
        }
    }

    /// Creates the missing protected folders so they can be mounted read-only (see
    /// [`crate::placeholders`]); done per command, so a repository created meanwhile gets
    /// its hooks folder protected too.
    fn ensure_placeholders(&self) {
        crate::placeholders::ensure(&self.policy.read_only_subpaths, &self.policy.writable_roots);
    }

    #[cfg(target_os = "linux")]
    fn landlock_command(&self, program: &Path, args: &[OsString]) -> Result<Command, SandboxError> {
        use std::os::unix::process::CommandExt;
        let mut ruleset = match &self.ruleset {
            Some(r) => Some(
                r.try_clone()
                    .map_err(|e| SandboxError::Setup(e.to_string()))?,
            ),
            None => None,
        };
        self.ensure_placeholders();
        let mounts = crate::mounts::MountPlan::new(
            &self.policy.read_only_subpaths,
            &self.policy.writable_roots,
        );
        let filter = self.network_filter.clone();
        let mut cmd = Command::new(program);
        cmd.args(args);
        // SAFETY: the closure only makes system calls on data prepared before fork (the
        // ruleset fd, the mount plan's buffers, the filter program); nothing allocates on the
        // success path.
        unsafe {
            cmd.pre_exec(move || {
                if let Some(plan) = &mounts {
                    plan.apply()?;
                }
                if let Some(ruleset) = ruleset.take() {
                    crate::landlock_rules::restrict(ruleset)?;
                }
                if let Some(program) = &filter {
                    crate::seccomp::install(program)?;
                }
                Ok(())
            });
        }
        Ok(cmd)
    }

    #[cfg(not(target_os = "linux"))]
    fn landlock_command(&self, _: &Path, _: &[OsString]) -> Result<Command, SandboxError> {
        Err(SandboxError::Setup("Landlock exists only on Linux".into()))
    }
}
