//! /reload, as pi's: the loaded extensions get `session_shutdown` (reason `reload`) and their
//! processes end; settings, skills, prompt templates, themes and the context files (AGENTS.md,
//! SYSTEM.md, APPEND_SYSTEM.md) are read again; the extensions are resolved again (`-e`,
//! settings `extensions`, the project's and the agent dir's extension folders) and started
//! with their current code, so new and edited ones load and removed ones are gone; the MCP
//! servers of mcp.json are started again (as pi, whose /reload picks up changed servers);
//! then extensions get `session_start` and `resources_discover` with reason `reload`.

use rho_core::settings::Settings;

use super::app::{App, AppMsg};
use crate::extensions::{start_all, ExtensionSetup};
use crate::startup::{load_resources, Resources, PROJECT_DIR};

/// What /reload found, for the screen.
pub struct ReloadReport {
    /// Problems (an extension that failed to start, a bad skill...).
    pub warnings: Vec<String>,
    /// The extensions now loaded, by path.
    pub extensions: Vec<String>,
}

impl App {
    /// Re-reads everything from disk in a task; [`AppMsg::Reloaded`] finishes on screen.
    pub(super) fn reload_resources(&mut self) {
        if self.session.is_streaming() {
            return self.notice(
                "Wait for the current response to finish before reloading.".into(),
                true,
            );
        }
        if self.session.is_compacting() {
            return self.notice(
                "Wait for compaction to finish before reloading.".into(),
                true,
            );
        }
        // The old extensions' statuses and widgets go with them (pi's resetExtensionUI).
        self.statuses = rho_tui::dialogs::StatusBar::new();
        self.widgets = rho_tui::dialogs::WidgetArea::new();
        self.reloading = true;
        let cwd = self.session.cwd().to_path_buf();
        let mut warnings = Vec::new();
        let trust = crate::trust_setup::resolve(
            &self.args,
            &self.agent_dir,
            &cwd,
            cwd.join(PROJECT_DIR),
            &mut warnings,
        );
        let project_dir = trust.project_dir;
        let settings = Settings::load_scopes(&self.agent_dir, project_dir.as_deref());
        let Resources {
            skills,
            templates,
            prompt_options,
        } = load_resources(
            &self.args,
            &self.agent_dir,
            &cwd,
            project_dir.as_deref(),
            &[],
            &mut warnings,
        );
        let session = self.session.clone();
        let tx = self.tx.clone();
        let (args, agent_dir) = (self.args.clone(), self.agent_dir.clone());
        tokio::spawn(async move {
            session.unload_extensions("reload").await;
            let setup = ExtensionSetup {
                args: &args,
                settings: &settings,
                agent_dir: &agent_dir,
                project_dir: project_dir.as_deref(),
                cwd: &cwd,
                permissions: session.permissions(),
            };
            let extensions = start_all(&setup, &mut warnings).await;
            let loaded = extensions.iter().map(|e| e.path.clone()).collect();
            session.load_extensions(extensions);
            let trusted = project_dir.is_some();
            let mcp = crate::mcp::restart(&args, &agent_dir, &cwd, trusted, &mut warnings).await;
            session.set_external(mcp);
            session
                .reload_resources(settings, skills, templates, prompt_options)
                .await;
            let _ = tx.send(AppMsg::Reloaded(ReloadReport {
                warnings,
                extensions: loaded,
            }));
        });
    }

    /// After the session took the new resources: theme, banner, completions and a note.
    pub(super) fn reloaded(&mut self, report: ReloadReport) {
        self.reloading = false;
        self.theme = super::footer::load_theme(&self.session, &self.args);
        self.transcript.set_theme(self.theme.clone());
        self.rebuild_header();
        self.editor
            .set_commands(super::commands::completions(&self.session));
        for w in report.warnings {
            self.notice(format!("Warning: {w}"), true);
        }
        if !report.extensions.is_empty() {
            let cwd = self.session.cwd().to_path_buf();
            let names: Vec<String> = report
                .extensions
                .iter()
                .map(|p| super::startup_notes::extension_label(p, &cwd))
                .collect();
            self.notice(format!("Loaded extensions: {}", names.join(", ")), false);
        }
        self.notice(
            "Reloaded extensions, settings, skills, prompts, themes, and context files".into(),
            false,
        );
    }
}
