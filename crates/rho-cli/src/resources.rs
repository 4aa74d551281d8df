//! Skills, prompt templates and the system prompt's parts (SYSTEM.md, APPEND_SYSTEM.md, the
//! context files), found as the flags say among the resources start-up resolved (the
//! settings' lists, the trusted project's folders, the agent dir, the installed packages; see
//! `packages`) and the command line's paths: read at start and again by /reload.

use std::path::{Path, PathBuf};

use rho_core::resources::context_files::load_context_files;
use rho_core::resources::skills::{load_skills, SkillSource};
use rho_core::resources::templates::load_templates;
use rho_core::system_prompt::{text_or_file, SystemPromptOptions};
use rho_packages::config::resolve_path;
use rho_packages::{Kind, Resolved};

use crate::args::Args;
use crate::project::Project;

/// Skills, prompt templates and the system prompt's parts (SYSTEM.md, APPEND_SYSTEM.md, context
/// files) as the flags and files say now: read at start and again by /reload.
pub struct Resources {
    /// Loaded skills.
    pub skills: Vec<rho_core::resources::skills::Skill>,
    /// Loaded prompt templates.
    pub templates: Vec<rho_core::resources::templates::PromptTemplate>,
    /// What the system prompt is built from.
    pub prompt_options: SystemPromptOptions,
}

/// Reads [`Resources`] for `project` (untrusted: only the agent dir's and the flags'
/// resources load). `resolved` are the settings', folders' and packages' resources in pi's
/// order; the flags' paths load after them. As in pi, `--no-skills` and
/// `--no-prompt-templates` leave out what was discovered or configured, never what the
/// command line names (`--skill`, `--prompt-template`, `-e` packages). Problems found become
/// `warnings`.
pub fn load_resources(
    args: &Args,
    agent_dir: &Path,
    project: &Project,
    (active_tools, resolved): (&[String], &Resolved),
    warnings: &mut Vec<String>,
) -> Resources {
    let cwd = project.cwd.as_path();
    let skills = {
        let sources = skill_sources(resolved, args, cwd);
        let (skills, diags) = load_skills(&sources);
        warnings.extend(
            diags
                .into_iter()
                .map(|d| format!("{}: {}", d.path.display(), d.message)),
        );
        skills
    };
    let templates = {
        let mut sources = resolved.loading(Kind::Prompts, !args.no_prompt_templates);
        sources.extend(args.prompt_templates.iter().map(|p| resolve_path(p, cwd)));
        load_templates(&sources).0
    };
    let prompt_options = SystemPromptOptions {
        custom_base: args
            .system_prompt
            .as_deref()
            .map(|v| text_or_file(v, cwd))
            .or_else(|| read_first(&scoped(project, agent_dir, "SYSTEM.md"))),
        append: if args.append_system_prompt.is_empty() {
            read_first(&scoped(project, agent_dir, "APPEND_SYSTEM.md"))
                .into_iter()
                .collect()
        } else {
            args.append_system_prompt
                .iter()
                .map(|v| text_or_file(v, cwd))
                .collect()
        },
        active_tools: Some(active_tools.to_vec()),
        context_files: if args.no_context_files {
            Vec::new()
        } else {
            load_context_files(agent_dir, cwd)
        },
        skills: skills.clone(),
        cwd: cwd.to_string_lossy().to_string(),
    };
    Resources {
        skills,
        templates,
        prompt_options,
    }
}

/// `name` in the project folders (when trusted: `.rho/`, then pi's `.pi/`, D17) and then in
/// the agent dir, in that order.
fn scoped(project: &Project, agent_dir: &Path, name: &str) -> Vec<PathBuf> {
    project
        .folders()
        .into_iter()
        .chain([agent_dir.to_path_buf()])
        .map(|dir| dir.join(name))
        .collect()
}

/// Where skills come from, first of a name wins, in pi 1.6's order: the `-e` packages', the
/// resolved ones (the project's, the user's, the packages'; none with `--no-skills`), then
/// `--skill` paths (relative to `cwd`).
fn skill_sources(resolved: &Resolved, args: &Args, cwd: &Path) -> Vec<SkillSource> {
    let given = args.skills.iter().map(|p| resolve_path(p, cwd));
    resolved
        .loading(Kind::Skills, !args.no_skills)
        .into_iter()
        .chain(given)
        .map(|path| SkillSource {
            path,
            top_level_md: true,
        })
        .collect()
}

fn read_first(paths: &[PathBuf]) -> Option<String> {
    paths.iter().find_map(|p| std::fs::read_to_string(p).ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prompt templates and SYSTEM.md in `.rho` and `.pi` (`.rho`'s first), and in the agent
    /// dir: the project's load only when the folder is trusted.
    #[test]
    fn the_projects_resources_load_only_when_trusted() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (agent, cwd) = (tmp.path().join("agent"), tmp.path().join("work"));
        for (file, text) in [
            (agent.join("prompts/mine.md"), "Mine"),
            (agent.join("SYSTEM.md"), "agent system"),
            (cwd.join(".rho/prompts/deploy.md"), "Deploy"),
            (cwd.join(".pi/prompts/review.md"), "Review"),
            (cwd.join(".pi/SYSTEM.md"), "pi system"),
            (cwd.join(".rho/SYSTEM.md"), "rho system"),
        ] {
            std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
            std::fs::write(file, text).expect("write");
        }
        let read = |approve: bool| {
            let project = Project::resolve(Some(approve), &agent, &cwd, &mut Vec::new());
            let settings = project.settings(&agent);
            let args = Args::default();
            let resolved =
                crate::packages::prepare(&args, &settings, &agent, &project, &mut Vec::new());
            let found = (&[] as &[String], &*resolved);
            load_resources(&args, &agent, &project, found, &mut Vec::new())
        };
        let names = |r: &Resources| {
            let mut names: Vec<String> = r.templates.iter().map(|t| t.name.clone()).collect();
            names.sort();
            names
        };
        let untrusted = read(false);
        assert_eq!(names(&untrusted), ["mine"]);
        assert_eq!(
            untrusted.prompt_options.custom_base.as_deref(),
            Some("agent system")
        );
        let trusted = read(true);
        assert_eq!(names(&trusted), ["deploy", "mine", "review"]);
        assert_eq!(
            trusted.prompt_options.custom_base.as_deref(),
            Some("rho system")
        );
    }
}
