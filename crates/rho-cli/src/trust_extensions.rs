//! pi 1.6's `project_trust` event at start-up: when the folder has project resources and no
//! `--approve`/`--no-approve` decides, the user's and the command line's extensions (the
//! project's own are not loaded before trust) are loaded on their own, asked in load order,
//! and closed again; the first yes or no decides for this run (saved to trust.json with
//! `remember`), ahead of a saved decision, `defaultProjectTrust` and the built-in question.
//! Handlers get pi's trust context: the folder, the mode, `hasUI` (the terminal only) and
//! four dialogs, which the terminal asks with the start-up selector; elsewhere the dialogs
//! answer nothing and notices go to stderr, as in pi.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use rho_core::trust::{needs_trust, TrustStore};
use rho_extension_host::events::TrustAnswer;
use rho_extension_host::{ExtensionContext, ExtensionRunner, ExtensionUi, NoSession};
use rho_tui::Theme;

use crate::args::Args;
use crate::extensions::{load, sources, PiHost, Told};
use crate::plan::RunMode;
use crate::project::Project;

/// How long a pre-trust extension process gets to end once the question is answered.
const CLOSE_GRACE: Duration = Duration::from_millis(500);

/// Asks the user's and the command line's extensions whether `cwd` is trusted; `Some` when
/// one answered yes or no (saved first when it asked to be remembered). Problems become
/// `warnings`.
pub async fn decide(
    args: &Args,
    agent_dir: &Path,
    cwd: &Path,
    mode: RunMode,
    warnings: &mut Vec<String>,
) -> Option<bool> {
    if args.approve.is_some() || !needs_trust(cwd) {
        return None;
    }
    // The project as it stands before trust: its own settings and extensions unread.
    let project = Project::resolve(Some(false), agent_dir, cwd, &mut Vec::new());
    let settings = project.settings(agent_dir);
    // What this load reports, the load after the decision reports again.
    let mut quiet = Vec::new();
    let packages = crate::packages::off_the_workers(|| {
        crate::packages::prepare(args, &settings, agent_dir, &project, &mut quiet)
    });
    let paths = sources(args, &packages, cwd);
    if paths.is_empty() {
        return None;
    }
    let pi = PiHost {
        agent_dir,
        node_path: settings.raw().get("nodePath").and_then(|v| v.as_str()),
    };
    let interactive = mode == RunMode::Interactive;
    let flags = crate::extensions::flag_values(args);
    // The question is still open: the project counts as untrusted until it is answered.
    let told = Told {
        has_ui: interactive,
        mode: mode.name(),
        project_trusted: false,
    };
    let loaded = load(&paths, cwd, told, flags, &pi, &mut quiet).await;
    let errors = Arc::new(Mutex::new(Vec::new()));
    let sink = Arc::clone(&errors);
    let runner = ExtensionRunner::new(
        loaded,
        Arc::new(move |r| {
            let text = format!(
                "Extension \"{}\" project_trust error: {}",
                r.extension_path, r.error
            );
            sink.lock().unwrap_or_else(|p| p.into_inner()).push(text);
        }),
    );
    let ui = StartupUi {
        interactive,
        agent_dir: agent_dir.to_path_buf(),
    };
    let host = NoSession {
        cwd: cwd.to_path_buf(),
        why: "has not started: project trust is being decided",
    };
    let ctx = ExtensionContext::new(Arc::new(host), Arc::new(ui));
    let answer = runner
        .emit_project_trust(cwd.display().to_string(), &ctx)
        .await;
    for ext in runner.extensions().iter() {
        ext.close(CLOSE_GRACE).await;
    }
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

/// The theme of questions asked before the session starts: the global settings' built-in
/// theme (the project's own cannot apply before trust).
pub fn startup_theme(agent_dir: &Path) -> Theme {
    rho_core::settings::Settings::load_scopes(agent_dir, None)
        .theme()
        .and_then(Theme::builtin)
        .unwrap_or_else(Theme::dark)
}

/// pi's trust-context dialogs: the start-up selector in the terminal, nothing elsewhere.
struct StartupUi {
    interactive: bool,
    agent_dir: PathBuf,
}

impl StartupUi {
    /// The index chosen of `options` under `title`, asked on the terminal.
    fn ask(&self, title: String, options: Vec<String>) -> BoxFuture<'static, Option<usize>> {
        if !self.interactive {
            return Box::pin(async { None });
        }
        let agent_dir = self.agent_dir.clone();
        Box::pin(async move {
            let theme = startup_theme(&agent_dir);
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
