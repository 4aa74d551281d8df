//! /reload as every mode runs it (the interactive `/reload`, an extension command's
//! `ctx.reload()`): the loaded extensions get `session_shutdown` (reason `reload`) and their
//! processes end; settings, packages (a missing one installed), skills, prompt templates,
//! themes and the context files are read again; the extensions are resolved again and
//! started with their current code; the MCP servers of mcp.json are started again; then
//! extensions get `session_start` and `resources_discover` with reason `reload`.

use std::path::Path;
use std::sync::Arc;

use rho_core::agent_session::{AgentSession, Reloader};
use rho_core::settings::Settings;

use crate::args::Args;
use crate::extensions::{start_all, ExtensionSetup};
use crate::startup::{load_resources, Resources, PROJECT_DIR};

/// What a reload found.
pub struct ReloadReport {
    /// Problems (an extension that failed to start, a bad skill...).
    pub warnings: Vec<String>,
    /// The extensions now loaded, by path.
    pub extensions: Vec<String>,
}

/// Reloads everything from disk into `session`.
pub async fn reload(session: &AgentSession, args: &Args, agent_dir: &Path) -> ReloadReport {
    let cwd = session.cwd().to_path_buf();
    let mut warnings = Vec::new();
    let trust =
        crate::trust_setup::resolve(args, agent_dir, &cwd, cwd.join(PROJECT_DIR), &mut warnings);
    let project_dir = trust.project_dir;
    let settings = Settings::load_scopes(agent_dir, project_dir.as_deref());
    let project = project_dir.as_deref();
    let packages = crate::packages::off_the_workers(|| {
        crate::packages::prepare(args, &settings, agent_dir, &cwd, project, &mut warnings)
    });
    let Resources {
        skills,
        templates,
        prompt_options,
    } = load_resources(
        args,
        agent_dir,
        &cwd,
        project,
        (&[], &packages),
        &mut warnings,
    );
    session.unload_extensions("reload").await;
    let setup = ExtensionSetup {
        args,
        settings: &settings,
        agent_dir,
        project_dir: project_dir.as_deref(),
        cwd: &cwd,
        permissions: session.permissions(),
        packages: &packages,
    };
    let extensions = start_all(&setup, &mut warnings).await;
    let loaded = extensions.iter().map(|e| e.path.clone()).collect();
    session.load_extensions(extensions);
    let trusted = project_dir.is_some();
    let mcp = crate::mcp::restart(args, agent_dir, &cwd, trusted, &mut warnings).await;
    session.set_external(mcp);
    session
        .reload_resources(settings, skills, templates, prompt_options)
        .await;
    ReloadReport {
        warnings,
        extensions: loaded,
    }
}

/// `ctx.reload()` outside the interactive mode: the same reload, its warnings on stderr.
pub fn headless_reloader(args: &Args) -> Reloader {
    let args = args.clone();
    Arc::new(move |session| {
        let args = args.clone();
        Box::pin(async move {
            // As the interactive /reload: not under a running turn or compaction (pi's
            // "cannot reload while the agent is running").
            if session.is_streaming() || session.is_compacting() {
                eprintln!("Warning: ctx.reload() ignored: wait for the agent to finish");
                return;
            }
            let agent_dir = rho_session::paths::agent_dir();
            for w in reload(&session, &args, &agent_dir).await.warnings {
                eprintln!("Warning: {w}");
            }
        })
    })
}
