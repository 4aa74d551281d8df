//! /reload, as pi's: the loaded extensions get `session_shutdown` (reason `reload`) and their
//! processes end; settings, keybindings.json, skills, prompt templates, themes and the context
//! files (AGENTS.md, SYSTEM.md, APPEND_SYSTEM.md) are read again; the extensions are resolved again (`-e`,
//! settings `extensions`, the project's and the agent dir's extension folders) and started
//! with their current code, so new and edited ones load and removed ones are gone; the MCP
//! servers of mcp.json are started again (as pi, whose /reload picks up changed servers);
//! then extensions get `session_start` and `resources_discover` with reason `reload`.

use rho_core::agent_session::ReloadReport;

use super::{Control, ControlMsg, Cx};

impl Control {
    /// Re-reads everything from disk in a task; [`ControlMsg::Reloaded`] finishes on screen.
    pub(super) fn reload_resources(&mut self, cx: &mut Cx) {
        let session = &cx.shared.session;
        if session.is_streaming() {
            return cx.screen.notice(
                "Wait for the current response to finish before reloading.".into(),
                true,
            );
        }
        if session.is_compacting() {
            return cx.screen.notice(
                "Wait for compaction to finish before reloading.".into(),
                true,
            );
        }
        // The old extensions' statuses and widgets go with them (pi's resetExtensionUI).
        cx.ext.clear_chrome();
        self.reloading = true;
        let tx = self.tx.clone();
        let reloading = cx.shared.options.host.reload(session.clone());
        tokio::spawn(async move {
            let report = reloading.await;
            tx.send(ControlMsg::Reloaded(report));
        });
    }

    /// After the session took the new resources: theme, keys, banner, completions,
    /// shortcuts and a note.
    pub(super) fn reloaded(&mut self, report: ReloadReport, cx: &mut Cx) {
        self.reloading = false;
        cx.screen.reload_theme(cx.shared);
        for w in cx.shared.load_keybindings() {
            cx.screen.notice(format!("Warning: {w}"), true);
        }
        cx.screen.rebuild_header(cx.shared);
        cx.screen.refresh_completions(&cx.shared.session);
        cx.ext
            .bind_shortcuts(&cx.shared.session, &cx.shared.keymap, cx.screen);
        for w in report.warnings {
            cx.screen.notice(format!("Warning: {w}"), true);
        }
        if !report.extensions.is_empty() {
            let cwd = cx.shared.session.cwd().to_path_buf();
            let names: Vec<String> = report
                .extensions
                .iter()
                .map(|p| crate::startup_notes::extension_label(p, &cwd))
                .collect();
            cx.screen
                .notice(format!("Loaded extensions: {}", names.join(", ")), false);
        }
        cx.screen.notice(
            "Reloaded extensions, settings, skills, prompts, themes, and context files".into(),
            false,
        );
    }
}
