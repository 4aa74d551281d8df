//! The binary's side of the interactive mode: the flags and paths it resolved, /reload with
//! the flags rho started with, and the process-wide MCP servers and packages.

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_ai::models_store::refresh::RefreshError;
use rho_core::agent_session::{AgentSession, ReloadReport};
use rho_interactive::{InteractiveHost, InteractiveOptions};
use rho_mcp::McpManager;
use rho_tui::fullscreen::TuiMode;

use crate::args::Args;
use crate::plan::RunMode;

/// What the interactive mode reaches in the binary.
struct CliHost {
    args: Args,
    agent_dir: PathBuf,
    catalog: crate::model_catalog::Catalog,
}

impl InteractiveHost for CliHost {
    fn reload(&self, session: AgentSession) -> BoxFuture<'static, ReloadReport> {
        let (args, agent_dir) = (self.args.clone(), self.agent_dir.clone());
        Box::pin(async move {
            let resolved = (agent_dir.as_path(), RunMode::Interactive);
            crate::session_reload::reload(&session, &args, resolved).await
        })
    }

    fn mcp(&self) -> Option<Arc<McpManager>> {
        crate::mcp::running()
    }

    fn theme_file(&self, name: &str) -> Option<PathBuf> {
        crate::packages::theme_file(name, &self.args)
    }

    fn llama_client(&self) -> Option<rho_ai::llama::LlamaClient> {
        self.catalog.llama_client()
    }

    fn refresh_llama(&self) -> BoxFuture<'static, Result<(), RefreshError>> {
        let catalog = self.catalog.clone();
        Box::pin(async move { catalog.refresh_llama().await })
    }
}

/// The interactive mode's options from `args` (whose `--tui-mode` `main` already checked).
pub fn options(
    args: &Args,
    agent_dir: PathBuf,
    catalog: crate::model_catalog::Catalog,
) -> InteractiveOptions {
    InteractiveOptions {
        agent_dir: agent_dir.clone(),
        session_dir: args.session_dir.clone(),
        scoped_models: args.models.clone(),
        theme: args.use_theme.clone(),
        verbose: args.verbose,
        tui_mode: args
            .tui_mode
            .as_deref()
            .and_then(|m| TuiMode::parse(m).ok()),
        resume: args.resume,
        host: Arc::new(CliHost {
            args: args.clone(),
            agent_dir,
            catalog,
        }),
    }
}
