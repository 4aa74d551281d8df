//! /reload as every mode runs it (the interactive `/reload`, an extension command's
//! `ctx.reload()`): the loaded extensions get `session_shutdown` (reason `reload`) and their
//! processes end; settings, packages (a missing one installed), skills, prompt templates,
//! themes and the context files are read again; the extensions are resolved again and
//! started with their current code; the MCP servers of mcp.json are started again; then
//! extensions get `session_start` and `resources_discover` with reason `reload`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rho_core::agent_session::{AgentSession, ReloadReport, Reloader};

use crate::args::Args;
use crate::extensions::{builtin_on, start_all, ExtensionSetup};
use crate::plan::RunMode;
use crate::project::Project;
use crate::resources::{load_resources, Resources};
use crate::tool_names::{active_tools, default_tools};

/// Reloads everything from disk into `session` (for `mode`): the folder's trust is decided
/// again (`/trust` changes it), then what start-up read is read again.
pub async fn reload(
    session: &AgentSession,
    args: &Args,
    (agent_dir, mode): (&Path, RunMode),
) -> ReloadReport {
    let mut warnings = Vec::new();
    let project = Project::resolve(args.approve, agent_dir, session.cwd(), &mut warnings);
    let cwd = project.cwd.clone();
    let settings = project.settings(agent_dir);
    let packages = crate::packages::off_the_workers(|| {
        crate::packages::prepare(args, &settings, agent_dir, &project, &mut warnings)
    });
    let Resources {
        skills,
        templates,
        prompt_options,
    } = load_resources(args, agent_dir, &project, (&[], &packages), &mut warnings);
    session.unload_extensions("reload").await;
    let tools = active_tools(args, default_tools(&settings).as_deref());
    let setup = ExtensionSetup {
        args,
        mode,
        settings: &settings,
        agent_dir,
        project: &project,
        permissions: session.permissions(),
        tools: &tools,
        packages: &packages,
    };
    let extensions = start_all(&setup, None, &mut warnings).await;
    let loaded = extensions.iter().map(|e| e.path.clone()).collect();
    warnings.extend(session.load_extensions(extensions));
    let switches = (project.trusted(), builtin_on(args, &packages, "mcp"));
    let mcp = crate::mcp::restart(args, (agent_dir, &cwd), switches, &mut warnings).await;
    session.set_external(mcp);
    session
        .reload_resources(settings, skills, templates, prompt_options)
        .await;
    ReloadReport {
        warnings,
        extensions: loaded,
    }
}

/// `ctx.reload()` outside the interactive mode: the same reload (with the agent dir and mode
/// start-up resolved), its warnings on stderr.
pub fn headless_reloader(args: &Args, agent_dir: PathBuf, mode: RunMode) -> Reloader {
    let args = args.clone();
    Arc::new(move |session| {
        let (args, agent_dir) = (args.clone(), agent_dir.clone());
        Box::pin(async move {
            // As the interactive /reload: not under a running turn or compaction (pi's
            // "cannot reload while the agent is running").
            if session.is_streaming() || session.is_compacting() {
                eprintln!("Warning: ctx.reload() ignored: wait for the agent to finish");
                return;
            }
            for w in reload(&session, &args, (&agent_dir, mode)).await.warnings {
                eprintln!("Warning: {w}");
            }
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_core::agent_session::AgentSessionConfig;

    #[tokio::test]
    async fn reload_reads_prompts_context_files_and_settings_again() {
        let agent = tempfile::tempdir().expect("agent dir");
        let project = tempfile::tempdir().expect("project");
        let cwd = project.path();
        let mut config = AgentSessionConfig::new(cwd);
        config.prompt_options = Some(rho_core::system_prompt::SystemPromptOptions::default());
        let session = AgentSession::new(config);
        std::fs::create_dir_all(cwd.join(".rho/prompts")).expect("mkdir");
        std::fs::write(
            cwd.join(".rho/prompts/deploy.md"),
            "---\ndescription: Ship it\n---\nDeploy $1",
        )
        .expect("write prompt");
        std::fs::write(cwd.join("AGENTS.md"), "Always run the linter.").expect("write AGENTS.md");
        std::fs::write(agent.path().join("settings.json"), r#"{"theme":"light"}"#)
            .expect("settings");
        // Project prompts need a trusted folder (what /trust saves).
        rho_core::trust::TrustStore::new(agent.path())
            .set(cwd, Some(true))
            .expect("trust");
        assert!(session.templates().is_empty());

        let report = reload(&session, &Args::default(), (agent.path(), RunMode::Print)).await;

        assert!(report.warnings.is_empty(), "{:?}", report.warnings);
        assert!(session.templates().iter().any(|t| t.name == "deploy"));
        assert!(session.system_prompt().contains("Always run the linter."));
        assert_eq!(
            session.with_settings(|s| s.theme().map(str::to_string)),
            Some("light".into())
        );
    }
}
