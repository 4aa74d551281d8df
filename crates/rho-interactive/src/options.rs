//! What the binary hands the interactive mode: the flags and paths it resolved once, and the
//! process-wide services it owns (the MCP servers and the installed packages, which /reload
//! replaces). The mode reads nothing from the command line or the environment itself.

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_ai::models_store::refresh::RefreshError;
use rho_core::agent_session::{AgentSession, ReloadReport};
use rho_mcp::McpManager;
use rho_tui::fullscreen::TuiMode;

/// The binary's side of the interactive mode.
pub trait InteractiveHost: Send + Sync {
    /// /reload: reads settings, packages, resources, extensions and MCP servers again into
    /// `session`.
    fn reload(&self, session: AgentSession) -> BoxFuture<'static, ReloadReport>;
    /// The running MCP servers, for `/mcp` (`None` without any).
    fn mcp(&self) -> Option<Arc<McpManager>>;
    /// The loaded theme file (from `--theme`, the settings' `themes`, the `themes/` folders,
    /// the installed packages) whose theme is called `name`.
    fn theme_file(&self, name: &str) -> Option<PathBuf>;
    /// The llama.cpp router `/llama` manages (`None` when none is configured).
    fn llama_client(&self) -> Option<rho_ai::llama::LlamaClient>;
    /// Reads the router's models again into the session's model list; `Err` says why not.
    fn refresh_llama(&self) -> BoxFuture<'static, Result<(), RefreshError>>;
}

/// Flags and paths as the binary resolved them.
#[derive(Clone)]
pub struct InteractiveOptions {
    /// The agent dir (themes, sessions, trust decisions and auth.json live under it).
    pub agent_dir: PathBuf,
    /// `--session-dir`, named again in the "to resume this session" hint.
    pub session_dir: Option<String>,
    /// `--models`: the patterns Ctrl+P cycles through.
    pub scoped_models: Option<Vec<String>>,
    /// `--use-theme <name>`: this run's theme, over the `theme` setting.
    pub theme: Option<String>,
    /// `--tui-mode` (checked by the binary); `None` leaves it to the settings.
    pub tui_mode: Option<TuiMode>,
    /// `--verbose`: the banner and the loaded resources are shown whatever `quietStartup`
    /// says.
    pub verbose: bool,
    /// `--resume`: the session picker opens first.
    pub resume: bool,
    /// What the binary provides.
    pub host: Arc<dyn InteractiveHost>,
}
