//! /reload: settings, skills, prompt templates, themes and the context files (AGENTS.md,
//! SYSTEM.md, APPEND_SYSTEM.md) are read again, as pi's /reload does, and extensions are asked
//! for their resources again (`session_start` with reason `reload`). Extension processes keep
//! running: their code is loaded once per start.

use rho_core::settings::Settings;

use super::app::{App, AppMsg};
use crate::startup::{load_resources, Resources, PROJECT_DIR};

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
        let cwd = self.session.cwd().to_path_buf();
        let settings = Settings::load(&self.agent_dir, &cwd.join(PROJECT_DIR));
        let mut warnings = Vec::new();
        let Resources {
            skills,
            templates,
            prompt_options,
        } = load_resources(&self.args, &self.agent_dir, &cwd, &[], &mut warnings);
        let session = self.session.clone();
        let tx = self.tx.clone();
        tokio::spawn(async move {
            session
                .reload_resources(settings, skills, templates, prompt_options)
                .await;
            let _ = tx.send(AppMsg::Reloaded(warnings));
        });
    }

    /// After the session took the new resources: theme, banner, completions and a note.
    pub(super) fn reloaded(&mut self, warnings: Vec<String>) {
        self.theme = super::footer::load_theme(&self.session, &self.args);
        self.transcript.set_theme(self.theme.clone());
        self.rebuild_header();
        self.editor
            .set_commands(super::commands::completions(&self.session));
        for w in warnings {
            self.notice(format!("Warning: {w}"), true);
        }
        self.notice(
            "Reloaded settings, skills, prompts, themes, and context files".into(),
            false,
        );
    }
}
