//! Session start: `session_start`, then `resources_discover`, whose skill and prompt paths
//! extend the loaded resources and rebuild the base system prompt (EXT-16); and /reload,
//! which replaces the resources read from disk and starts that again.

use std::path::PathBuf;

use super::AgentSession;
use crate::resources::skills::{load_skills, Skill, SkillSource};
use crate::resources::templates::{load_templates, PromptTemplate};
use crate::settings::Settings;
use crate::system_prompt::SystemPromptOptions;
use rho_extension_host::ExtensionEvent;

impl AgentSession {
    /// Tells extensions the session started (`reason`: `startup`, `new`, `resume`, `fork`,
    /// `reload`) and lets them contribute skills and prompt templates.
    pub async fn start(&self, reason: &str) {
        let ctx = self.ext_ctx();
        let runner = &self.inner.services.extensions;
        let previous = self.with_session(|m| m.path().map(|p| p.display().to_string()));
        runner
            .emit(
                ExtensionEvent::SessionStart {
                    reason: reason.to_string(),
                    previous_session_file: previous.filter(|_| reason != "startup"),
                },
                &ctx,
            )
            .await;
        let discover_reason = if reason == "reload" {
            "reload"
        } else {
            "startup"
        };
        let results = runner
            .emit_collect(
                ExtensionEvent::ResourcesDiscover {
                    cwd: self.cwd().display().to_string(),
                    reason: discover_reason.into(),
                },
                &ctx,
            )
            .await;
        let paths = |key: &str| -> Vec<PathBuf> {
            results
                .iter()
                .filter_map(|r| r.get(key).and_then(|v| v.as_array()))
                .flatten()
                .filter_map(|p| p.as_str().map(|p| self.cwd().join(p)))
                .collect()
        };
        let (skill_paths, prompt_paths) = (paths("skillPaths"), paths("promptPaths"));
        if skill_paths.is_empty() && prompt_paths.is_empty() {
            return;
        }
        self.add_resources(skill_paths, prompt_paths);
    }

    /// /reload: takes settings, skills, prompt templates and the system prompt's parts as
    /// read again from disk (the active tools stay), rebuilds the system prompt, then lets
    /// extensions contribute again (`session_start` and `resources_discover` with reason
    /// `reload`).
    pub async fn reload_resources(
        &self,
        settings: Settings,
        skills: Vec<Skill>,
        templates: Vec<PromptTemplate>,
        mut prompt_options: SystemPromptOptions,
    ) {
        {
            let mut s = self.state();
            if let Some(old) = &s.prompt_options {
                prompt_options.active_tools = old.active_tools.clone();
            }
            s.settings = settings;
            s.skills = skills;
            s.templates = templates;
            s.prompt_options = Some(prompt_options);
        }
        self.rebuild_base_prompt(|_| {});
        self.start("reload").await;
    }

    fn add_resources(&self, skill_paths: Vec<PathBuf>, prompt_paths: Vec<PathBuf>) {
        let sources: Vec<SkillSource> = skill_paths
            .into_iter()
            .map(|path| SkillSource {
                path,
                top_level_md: true,
            })
            .collect();
        let (new_skills, diagnostics) = load_skills(&sources);
        for d in diagnostics {
            self.inner.services.extensions.report(
                &d.path.display().to_string(),
                "resources_discover",
                d.message,
            );
        }
        let (new_templates, _) = load_templates(&prompt_paths);
        let skills = {
            let mut s = self.state();
            for skill in new_skills {
                if !s.skills.iter().any(|k| k.name == skill.name) {
                    s.skills.push(skill);
                }
            }
            for t in new_templates {
                if !s.templates.iter().any(|k| k.name == t.name) {
                    s.templates.push(t);
                }
            }
            s.skills.clone()
        };
        self.rebuild_base_prompt(|options| options.skills = skills);
    }
}
