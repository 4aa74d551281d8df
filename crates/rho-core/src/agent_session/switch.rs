//! Replacing the session with extension events around it: `session_before_switch` /
//! `session_before_fork` (may cancel), `session_shutdown` for the old one, `session_start`
//! for the new one (EXT-3, EXT-4).

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;

use super::{lock, AgentSession, SessionError};
use rho_extension_host::{ExtensionEvent, NewSession, SessionAction, SessionSetup};
use rho_session::{LoadWarning, SessionManager};

/// What opening a session file did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Opened {
    /// An extension cancelled the switch.
    pub cancelled: bool,
    /// What loading tolerated (skipped lines, broken cycles), each naming file and line: the
    /// user should learn that the file is damaged even though it opened.
    pub warnings: Vec<LoadWarning>,
}

/// Why the session is being replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SwitchReason {
    /// A new, empty session.
    New,
    /// Another session file was opened.
    Resume,
    /// Forked at an entry (`position`: `before` or `at`).
    Fork {
        /// The entry forked from.
        entry_id: String,
        /// `before` (fork) or `at` (clone).
        position: String,
    },
}

impl SwitchReason {
    fn name(&self) -> &'static str {
        match self {
            SwitchReason::New => "new",
            SwitchReason::Resume => "resume",
            SwitchReason::Fork { .. } => "fork",
        }
    }
}

impl AgentSession {
    /// Asks extensions, then replaces the store. Returns `true` when an extension cancelled.
    pub async fn switch_session(&self, next: SessionManager, reason: SwitchReason) -> bool {
        self.switch_session_with(next, reason, None).await
    }

    /// [`Self::switch_session`], running `setup` with the new session after the old one shut
    /// down and before the new one replaces it and starts (pi's order: `session_shutdown`,
    /// `setup`, `session_start`, then the caller's `withSession`).
    async fn switch_session_with(
        &self,
        mut next: SessionManager,
        reason: SwitchReason,
        setup: Option<SessionSetup>,
    ) -> bool {
        let ctx = self.ext_ctx();
        let runner = &self.inner.services.extensions;
        let target = next.path().map(|p| p.display().to_string());
        let before = match &reason {
            SwitchReason::Fork { entry_id, position } => ExtensionEvent::SessionBeforeFork {
                entry_id: entry_id.clone(),
                position: position.clone(),
            },
            other => ExtensionEvent::SessionBeforeSwitch {
                reason: other.name().into(),
                target_session_file: target.clone(),
            },
        };
        if runner
            .emit_session_before(before, &ctx)
            .await
            .is_some_and(|r| r.cancel)
        {
            return true;
        }
        let previous = self.with_session(|m| m.path().map(|p| p.display().to_string()));
        runner
            .emit(
                ExtensionEvent::SessionShutdown {
                    reason: reason.name().into(),
                    target_session_file: target,
                },
                &ctx,
            )
            .await;
        if let Some(setup) = setup {
            let (prepared, outcome) = super::session_setup::prepare(next, &setup).await;
            next = prepared;
            if let Err(e) = outcome {
                runner.report(setup.path(), "session_setup", e.to_string());
            }
        }
        self.replace_session(next).await;
        runner
            .emit(
                ExtensionEvent::SessionStart {
                    reason: reason.name().into(),
                    previous_session_file: previous,
                },
                &self.ext_ctx(),
            )
            .await;
        false
    }
}

impl AgentSession {
    /// A fresh session file beside the current one (in memory when there is none), with
    /// `parent` as its `parentSession`. Returns `true` when an extension cancelled.
    pub async fn new_session(&self, parent: Option<&str>) -> bool {
        let options = NewSession {
            parent_session: parent.map(str::to_string),
            setup: None,
        };
        self.new_session_with(options).await
    }

    /// [`Self::new_session`] with an extension's `setup` filling it before it starts.
    pub async fn new_session_with(&self, options: NewSession) -> bool {
        let fresh = self.fresh_session(options.parent_session.as_deref(), true);
        self.switch_session_with(fresh, SwitchReason::New, options.setup)
            .await
    }

    /// [`Self::new_session`] as pi 0.73.1 starts one (its RPC dialect): without the model and
    /// thinking level entries, so the new session has no entry until something is said.
    pub async fn new_session_without_state(&self, parent: Option<&str>) -> bool {
        let fresh = self.fresh_session(parent, false);
        self.switch_session_with(fresh, SwitchReason::New, None)
            .await
    }

    /// A fresh session beside the current one (in memory when there is none), continuing
    /// `parent`; with `record_state`, started as pi 1.6 starts every new session, like
    /// start-up: the model and thinking level first (so a resume restores them), then what a
    /// setup appends.
    fn fresh_session(&self, parent: Option<&str>, record_state: bool) -> SessionManager {
        let (dir, cwd) = self.with_session(|s| {
            (
                s.path().and_then(Path::parent).map(Path::to_path_buf),
                s.cwd().to_string(),
            )
        });
        let mut fresh = match dir {
            Some(dir) => SessionManager::create(&dir, &cwd),
            None => SessionManager::in_memory(&cwd),
        };
        if let Some(parent) = parent {
            fresh = fresh.with_parent_session(parent);
        }
        if record_state {
            let model = self.model().map(|m| rho_session::ModelRef {
                provider: m.provider,
                model_id: m.id,
            });
            // A fresh session writes nothing before its first assistant message: these go
            // to memory only and cannot fail on the disk.
            let _ = fresh.append_initial_state(model.as_ref(), self.thinking_level().as_str());
        }
        fresh
    }

    /// Opens the session file at `path` (created when missing) and switches to it. A file
    /// whose working directory no longer exists is refused with both paths named.
    pub async fn open_session(&self, path: &Path) -> Result<Opened, SessionError> {
        self.open_session_checked(path, true).await
    }

    /// Opens the session file at `path` although its working directory is gone, continuing it
    /// here (pi's "Continue in <cwd>": its header keeps the old folder, so the question comes
    /// again next time).
    pub async fn open_session_here(&self, path: &Path) -> Result<Opened, SessionError> {
        self.open_session_checked(path, false).await
    }

    /// Copies the session at `path` into a new session of this folder (a new id, the original
    /// kept, pi's "Fork into <cwd>") and switches to it; returns the new id with the result.
    pub async fn fork_session_here(&self, path: &Path) -> Result<(Opened, String), SessionError> {
        let cwd = self.cwd().to_string_lossy().into_owned();
        let source = SessionManager::open(path)?;
        let dir = self
            .with_session(|s| s.path().and_then(Path::parent).map(Path::to_path_buf))
            .or_else(|| path.parent().map(Path::to_path_buf))
            .unwrap_or_default();
        let fork = source.fork(&dir, &cwd, rho_session::ForkScope::All)?;
        let id = fork.session_id().to_string();
        let warnings = source.warnings().to_vec();
        let cancelled = self.switch_session(fork, SwitchReason::Resume).await;
        Ok((
            Opened {
                cancelled,
                warnings,
            },
            id,
        ))
    }

    async fn open_session_checked(&self, path: &Path, check: bool) -> Result<Opened, SessionError> {
        let cwd = self.cwd().to_string_lossy().into_owned();
        let manager = SessionManager::open_or_create(path, &cwd)?;
        if check {
            if let Err(source) = manager.check_cwd_exists() {
                return Err(SessionError::SessionCwdGone {
                    source: Box::new(source),
                    session: path.to_path_buf(),
                    cwd,
                });
            }
        }
        let warnings = manager.warnings().to_vec();
        let cancelled = self.switch_session(manager, SwitchReason::Resume).await;
        Ok(Opened {
            cancelled,
            warnings,
        })
    }

    /// Carries out extension commands' session actions (CMD-8) from now on: every mode binds
    /// them, as pi's do; unbound (an SDK session) they resolve at once with `cancelled: false`.
    pub fn bind_session_actions(&self) {
        self.inner
            .services
            .actions_bound
            .store(true, Ordering::Release);
    }

    /// Sets what an extension command's `ctx.reload()` runs: the mode's /reload.
    pub fn set_reloader(&self, reloader: Reloader) {
        *lock(&self.inner.services.reload.run) = Some(reloader);
    }

    /// Runs the reload a command asked for with `ctx.reload()`, once the command returned: the
    /// reload ends the extension processes, the caller's among them, so it cannot run while
    /// the call is still being answered (pi: code after `await ctx.reload()` runs in the old
    /// version, and later commands and events use the new one).
    pub(crate) async fn run_requested_reload(&self) {
        if !self
            .inner
            .services
            .reload
            .requested
            .swap(false, Ordering::AcqRel)
        {
            return;
        }
        let reloader = lock(&self.inner.services.reload.run).clone();
        if let Some(reloader) = reloader {
            reloader(self.clone()).await;
        }
    }

    /// Runs one session action for an extension command; `Ok(cancelled)`.
    pub(crate) async fn run_session_action(
        &self,
        action: SessionAction,
    ) -> Result<bool, SessionError> {
        if !self.inner.services.actions_bound.load(Ordering::Acquire) {
            return Ok(false);
        }
        match action {
            SessionAction::NewSession(options) => Ok(self.new_session_with(options).await),
            SessionAction::Fork(id) => Ok(self.fork(&id).await?.cancelled),
            SessionAction::ForkAt(id) => Ok(self.fork_at(&id).await?.cancelled),
            SessionAction::NavigateTree(id) => {
                let options = super::NavigateTreeOptions::default();
                Ok(self.navigate_tree(&id, options).await?.cancelled)
            }
            SessionAction::SwitchSession(path) => {
                Ok(self.open_session(Path::new(&path)).await?.cancelled)
            }
            SessionAction::Reload => {
                self.inner
                    .services
                    .reload
                    .requested
                    .store(true, Ordering::Release);
                Ok(false)
            }
        }
    }
}

/// What a /reload found: what the user is told afterwards.
#[derive(Debug, Default)]
pub struct ReloadReport {
    /// Problems (an extension that failed to start, a bad skill...).
    pub warnings: Vec<String>,
    /// The extensions now loaded, by path.
    pub extensions: Vec<String>,
}

/// The mode's /reload, run for an extension command's `ctx.reload()` with the session.
pub type Reloader = Arc<dyn Fn(AgentSession) -> BoxFuture<'static, ()> + Send + Sync>;

/// What `ctx.reload()` runs and whether a command asked for it.
#[derive(Default)]
pub struct ReloadHook {
    run: Mutex<Option<Reloader>>,
    requested: AtomicBool,
}
