//! pi 1.6's `project_trust` event at start-up: when the folder has project resources and no
//! `--approve`/`--no-approve` decides, the user's and the command line's extensions (the
//! project's own are not loaded before trust) are started with the project untrusted and
//! asked in load order; the first yes or no decides for this run (saved to trust.json with
//! `remember`), ahead of a saved decision, `defaultProjectTrust` and the built-in question.
//! As pi reuses its pre-trust extensions, the ones started here go on into the session
//! ([`Started::finish`] tells them the decision and adds the trusted project's own).
//! Handlers get pi's trust context: the folder, the mode, `hasUI` (the terminal only) and
//! four dialogs, which the terminal asks with the start-up selector; elsewhere the dialogs
//! answer nothing and notices go to stderr, as in pi.

use std::path::Path;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use rho_core::settings::Settings;
use rho_core::trust::{needs_trust, TrustStore};
use rho_extension_host::events::TrustAnswer;
use rho_extension_host::{ExtensionContext, ExtensionRunner, ExtensionUi, NoSession};
use rho_tui::Theme;

use crate::args::Args;
use crate::extension_processes::{Started, Told};
use crate::plan::RunMode;
use crate::project::Project;

/// What was decided before start-up, and the extensions that were asked.
#[derive(Default)]
pub struct BeforeStart {
    /// An extension's yes or no, when one answered.
    pub trusted: Option<bool>,
    /// The extensions asked, running, for the session to take over.
    pub started: Option<Started>,
}

/// The theme of questions asked before the session starts: the `global` settings' built-in
/// theme (the project's own cannot apply before trust).
pub fn startup_theme(global: &Settings) -> Theme {
    global
        .theme()
        .and_then(Theme::builtin)
        .unwrap_or_else(Theme::dark)
}

/// Starts the user's and the command line's extensions and asks them whether `cwd` is
/// trusted; `trusted` is `Some` when one answered yes or no (saved first when it asked to be
/// remembered). `global` is the global settings: before trust, all that counts. Problems
/// become `warnings`.
pub async fn decide(
    args: &Args,
    (global, agent_dir): (&Settings, &Path),
    cwd: &Path,
    mode: RunMode,
    warnings: &mut Vec<String>,
) -> BeforeStart {
    if args.approve.is_some() || !needs_trust(cwd) {
        return BeforeStart::default();
    }
    // The project as it stands before trust: its own settings and extensions unread.
    let project = Project::untrusted(cwd);
    // What preparing the packages reports, start-up's preparing reports again.
    let packages = crate::packages::off_the_workers(|| {
        crate::packages::prepare(args, global, agent_dir, &project, &mut Vec::new())
    });
    // The question is still open: the project counts as untrusted until it is answered.
    let told = Told {
        has_ui: mode.has_ui(),
        mode: mode.name(),
        project_trusted: false,
    };
    let launch = crate::extensions::launch(args, &packages, global, agent_dir, cwd, told, warnings);
    let started = launch.await;
    if started.paths().is_empty() {
        return BeforeStart::default();
    }
    let theme = startup_theme(global);
    BeforeStart {
        trusted: ask(&started, agent_dir, cwd, mode, theme, warnings).await,
        started: Some(started),
    }
}

/// Emits `project_trust` to the `started` extensions; the first yes or no, saved first when
/// it asked to be remembered.
async fn ask(
    started: &Started,
    agent_dir: &Path,
    cwd: &Path,
    mode: RunMode,
    theme: Theme,
    warnings: &mut Vec<String>,
) -> Option<bool> {
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&errors);
    let runner = ExtensionRunner::new(
        started.extensions(),
        Arc::new(move |r| {
            let text = format!(
                "Extension \"{}\" project_trust error: {}",
                r.extension_path, r.error
            );
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(text);
        }),
    );
    let ui = StartupUi {
        interactive: mode == RunMode::Interactive,
        agent_dir: agent_dir.to_path_buf(),
        theme: Arc::new(theme),
    };
    let host = NoSession {
        cwd: cwd.to_path_buf(),
        why: "has not started: project trust is being decided",
    };
    let ctx = ExtensionContext::new(Arc::new(host), Arc::new(ui));
    let answer = runner
        .emit_project_trust(cwd.display().to_string(), &ctx)
        .await;
    warnings.extend(errors.lock().unwrap_or_else(|p| p.into_inner()).drain(..));
    let answer = answer?;
    let trusted = answer.trusted == TrustAnswer::Yes;
    if answer.remember {
        if let Err(e) = TrustStore::new(agent_dir).set(cwd, Some(trusted)) {
            warnings.push(e.to_string());
        }
    }
    Some(trusted)
}

/// pi's trust-context dialogs: the start-up selector in the terminal, nothing elsewhere.
struct StartupUi {
    interactive: bool,
    agent_dir: std::path::PathBuf,
    theme: Arc<Theme>,
}

impl StartupUi {
    /// The index chosen of `options` under `title`, asked on the terminal.
    fn ask(&self, title: String, options: Vec<String>) -> BoxFuture<'static, Option<usize>> {
        if !self.interactive {
            return Box::pin(async { None });
        }
        let (agent_dir, theme) = (self.agent_dir.clone(), Arc::clone(&self.theme));
        Box::pin(async move {
            let ask =
                move || rho_interactive::ask_before_start(&title, &options, &agent_dir, &theme);
            tokio::task::spawn_blocking(ask).await.ok()?.ok()?
        })
    }
}

impl ExtensionUi for StartupUi {
    fn has_ui(&self) -> bool {
        self.interactive
    }

    fn select(&self, title: String, options: Vec<String>) -> BoxFuture<'static, Option<String>> {
        let answer = self.ask(title, options.clone());
        Box::pin(async move { answer.await.and_then(|i| options.get(i).cloned()) })
    }

    fn confirm(&self, title: String, message: String) -> BoxFuture<'static, bool> {
        let options = vec!["Yes".to_string(), "No".to_string()];
        let answer = self.ask(format!("{title}\n{message}"), options);
        Box::pin(async move { answer.await == Some(0) })
    }

    fn notify(&self, message: String, _kind: String) {
        // pi shows a trust handler's notices on stderr outside the terminal, and drops
        // them in it (the screen is not up yet).
        if !self.interactive {
            eprintln!("{message}");
        }
    }
}
