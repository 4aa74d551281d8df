//! /reload, as pi's: the loaded extensions get `session_shutdown` (reason `reload`) and their
//! processes end; settings, keybindings.json, skills, prompt templates, themes and the context
//! files (AGENTS.md, SYSTEM.md, APPEND_SYSTEM.md) are read again; the extensions are resolved again (`-e`,
//! settings `extensions`, the project's and the agent dir's extension folders) and started
//! with their current code, so new and edited ones load and removed ones are gone; the MCP
//! servers of mcp.json are started again (as pi, whose /reload picks up changed servers);
//! then extensions get `session_start` and `resources_discover` with reason `reload`.

use super::app::{App, AppMsg};
use rho_core::agent_session::ReloadReport;

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
        let session = self.session.clone();
        let tx = self.tx.clone();
        let reloading = self.options.host.reload(session);
        tokio::spawn(async move {
            let report = reloading.await;
            let _ = tx.send(AppMsg::Reloaded(report));
        });
    }

    /// After the session took the new resources: theme, banner, completions and a note.
    pub(super) fn reloaded(&mut self, report: ReloadReport) {
        self.reloading = false;
        self.theme = super::footer::load_theme(&self.session, &self.options);
        self.transcript.set_theme(self.theme.clone());
        self.load_keybindings();
        self.rebuild_header();
        self.editor
            .set_commands(super::commands::completions(&self.session));
        self.bind_shortcuts();
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
