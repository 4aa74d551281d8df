//! The command line and the files resolved once, before anything starts: the run mode, the
//! agent dir, the session's folder and the trust decision for it, the settings layers, the
//! model registry and credentials, the tools, permission rules, sandbox policy, the RPC
//! dialect and what the model choice starts from. Each rule is a small function here, tested
//! on its own; start-up (`startup`) then builds the session from the [`StartupPlan`] without
//! deciding anything again, and the front-ends get what they need of it (`RpcOptions`,
//! `InteractiveOptions`).

use std::path::{Path, PathBuf};

use anyhow::bail;
use rho_ai::catalog::select::scope_models;
use rho_ai::registry::{Base, ModelRegistry};
use rho_ai::ThinkingLevel;
use rho_core::agent_session::{AuthStatus, CredentialStore};
use rho_core::permissions::{PermissionMode, Permissions, READ_ONLY_TOOLS};
use rho_core::settings::Settings;
use rho_protocol::rpc::Dialect;
use rho_sandbox::SandboxPolicy;
use rho_session::SessionManager;

use crate::args::{Args, Mode};
use crate::credentials::CliCredentials;
use crate::model_select::{resolve_cli_model, select, Selection, SelectionInput};
use crate::project::Project;
use crate::tool_names::{active_tools, default_tools, is_excluded, ToolSelection};

/// How rho runs, chosen once from `--mode`, `-p` and whether stdin is a terminal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunMode {
    /// The interactive screen.
    Interactive,
    /// Print mode: `-p`, or text mode with piped stdin.
    Print,
    /// `--mode json`.
    Json,
    /// `--mode rpc`.
    Rpc,
}

impl RunMode {
    /// The mode `args` select; without `--mode` and `-p`, the interactive screen needs a
    /// terminal on stdin (piped input means print mode, as in pi).
    pub fn resolve(args: &Args, stdin_is_tty: bool) -> Self {
        match args.mode.unwrap_or_default() {
            Mode::Rpc => Self::Rpc,
            Mode::Json => Self::Json,
            Mode::Text if args.print || !stdin_is_tty => Self::Print,
            Mode::Text => Self::Interactive,
        }
    }

    /// pi's name for it (`ctx.mode`): `tui` for the interactive screen.
    pub fn name(self) -> &'static str {
        match self {
            Self::Interactive => "tui",
            Self::Print => "print",
            Self::Json => "json",
            Self::Rpc => "rpc",
        }
    }

    /// Whether someone answers extension UI requests (the screen, an RPC client).
    pub fn has_ui(self) -> bool {
        matches!(self, Self::Interactive | Self::Rpc)
    }
}

/// The agent dir (`RHO_CODING_AGENT_DIR`, else pi's, else `~/.rho/agent`), checked.
///
/// Settings, models.json, auth.json and sessions all live in it: when a file stands where it
/// should be, nothing can be read or saved and every later error would be misleading
/// ("Unknown provider"), so rho stops here and says what to do.
pub fn agent_dir() -> anyhow::Result<PathBuf> {
    let dir = rho_session::paths::agent_dir();
    check_agent_dir(&dir)?;
    Ok(dir)
}

fn check_agent_dir(dir: &Path) -> anyhow::Result<()> {
    let fix = "move it away, or set RHO_CODING_AGENT_DIR to a directory";
    match std::fs::metadata(dir) {
        Ok(meta) if !meta.is_dir() => bail!(
            "The agent directory {} is a file, not a directory: {fix}",
            dir.display()
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => bail!(
            "The agent directory {} cannot exist: part of its path is a file, not a directory ({e}): {fix}",
            dir.display()
        ),
        _ => Ok(()),
    }
}

/// Everything start-up decided, for a session working in [`Project::cwd`].
pub struct StartupPlan {
    /// How rho runs.
    pub mode: RunMode,
    /// The agent dir.
    pub agent_dir: PathBuf,
    /// The session's folder and whether its project resources load.
    pub project: Project,
    /// The global settings with the trusted project's layers over them.
    pub settings: Settings,
    /// models.json and the credential sources (`--api-key` joins once extensions registered
    /// their providers: [`apply_api_key`]).
    pub credentials: CliCredentials,
    /// The encoding of the RPC and JSON modes.
    pub dialect: Dialect,
    /// The permission rules and mode.
    pub permissions: Permissions,
    /// The tools the flags, settings and permissions leave.
    pub tools: ToolSelection,
    /// Where commands may write and whether they reach the network.
    pub sandbox: SandboxPolicy,
    /// Whether a blocked command may be offered to run once unsandboxed.
    pub escalate: bool,
    /// What the model choice starts from.
    pub model: ModelRequest,
    /// Non-fatal problems met so far, in order, for stderr.
    pub warnings: Vec<String>,
}

impl StartupPlan {
    /// Resolves everything for a session working in `cwd` (the session's own folder, which a
    /// resumed session may have elsewhere). `warnings` are those met before (opening the
    /// session); `global` the global settings, read once before. A bad flag value is an
    /// error; a bad setting is a warning and the default.
    pub fn resolve(
        args: &Args,
        mode: RunMode,
        (agent_dir, global): (PathBuf, &Settings),
        cwd: &Path,
        mut warnings: Vec<String>,
    ) -> anyhow::Result<Self> {
        let project = Project::resolve_over(args.approve, global, &agent_dir, cwd, &mut warnings);
        let settings = project.settings_over(global);
        warnings.extend(settings.warnings.iter().cloned());
        let credentials = load_credentials(&agent_dir, &mut warnings);
        let dialect = choose_dialect(
            args.rpc_dialect.as_deref(),
            settings.rpc_dialect(),
            &mut warnings,
        )?;
        let permissions = crate::permissions_setup::build(args, &settings, &mut warnings)?;
        let tools = choose_tools(args, &settings, &permissions);
        let model = ModelRequest::resolve(args, &settings, &mut warnings)?;
        let sandbox =
            crate::sandbox_setup::policy(args, &settings, cwd, &agent_dir, &mut warnings)?;
        let escalate = crate::sandbox_setup::escalate(mode, &settings);
        Ok(Self {
            mode,
            agent_dir,
            project,
            settings,
            credentials,
            dialect,
            permissions,
            tools,
            sandbox,
            escalate,
            model,
            warnings,
        })
    }
}

/// models.json (over the built-in catalog) and auth.json; problems become warnings.
pub fn load_credentials(agent_dir: &Path, warnings: &mut Vec<String>) -> CliCredentials {
    let store = crate::model_catalog::store(agent_dir);
    let models = ModelRegistry::load(&agent_dir.join("models.json"), Base::Catalog(Some(store)));
    if let Some(e) = models.error() {
        warnings.push(e.to_string());
    }
    CliCredentials::load(agent_dir, None, models, warnings)
}

/// `--rpc-dialect` (a bad value is an error) over the setting `rpcDialect` (a bad value is a
/// warning and the default).
fn choose_dialect(
    flag: Option<&str>,
    setting: Option<&str>,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Dialect> {
    if let Some(flag) = flag {
        return flag
            .parse()
            .map_err(|e| anyhow::anyhow!("--rpc-dialect: {e}"));
    }
    Ok(match setting.map(str::parse::<Dialect>) {
        Some(Ok(dialect)) => dialect,
        Some(Err(e)) => {
            warnings.push(format!("settings.json rpcDialect: {e}"));
            Dialect::default()
        }
        None => Dialect::default(),
    })
}

/// The flags' and `defaultTools`' selection; in plan mode without `--tools` every reader
/// instead of the default set's one; the built-ins the permission rules hide or
/// `--exclude-tools` names taken out.
fn choose_tools(args: &Args, settings: &Settings, permissions: &Permissions) -> ToolSelection {
    let mut tools = active_tools(args, default_tools(settings).as_deref());
    if permissions.mode == PermissionMode::Plan && args.tools.is_none() && !tools.builtin.is_empty()
    {
        tools.builtin = READ_ONLY_TOOLS.map(String::from).to_vec();
    }
    let excluded = tools.excluded.clone();
    tools
        .builtin
        .retain(|name| permissions.exposes(name) && !is_excluded(&excluded, name));
    tools
}

/// What the model choice starts from (interfaces spec §6.5): the flags and the settings. The
/// registry, which providers have keys and the resumed session join it once extensions
/// registered their providers ([`ModelRequest::select`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// `--provider`.
    pub provider: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--thinking` (a bad value was a warning and is dropped).
    pub thinking: Option<ThinkingLevel>,
    /// `--models`, else settings `enabledModels`.
    pub scope: Vec<String>,
    /// Settings `defaultProvider` / `defaultModel`.
    pub default_model: Option<(String, String)>,
    /// Settings `defaultThinkingLevel`.
    pub default_thinking: ThinkingLevel,
}

impl ModelRequest {
    /// Reads the flags and the settings. `--provider` without `--model` is pi's error.
    fn resolve(
        args: &Args,
        settings: &Settings,
        warnings: &mut Vec<String>,
    ) -> anyhow::Result<Self> {
        if let (Some(provider), None) = (&args.provider, &args.model) {
            bail!(
                "--provider requires --model (for example: --provider {provider} --model <pattern>)"
            );
        }
        let thinking = args.thinking.as_deref().and_then(|t| {
            rho_core::agent_session::parse_level(t)
                .map_err(|e| warnings.push(e.to_string()))
                .ok()
        });
        Ok(Self {
            provider: args.provider.clone(),
            model: args.model.clone(),
            thinking,
            scope: args
                .models
                .clone()
                .unwrap_or_else(|| settings.string_list("enabledModels")),
            default_model: settings
                .default_provider()
                .zip(settings.default_model())
                .map(|(p, m)| (p.to_string(), m.to_string())),
            default_thinking: settings.default_thinking_level(),
        })
    }

    /// Runs the §6.5 chain against these credentials and this session (whose model and
    /// thinking level count when it is resumed).
    pub fn select(
        &self,
        credentials: &CliCredentials,
        session: &SessionManager,
    ) -> anyhow::Result<Selection> {
        let branch = session.branch_state();
        let resumed = branch.has_messages;
        // A virtual model's selection holds while it is registered; otherwise the physical
        // model that answered last (pi's `getBranchSelection`).
        let registry = &credentials.models;
        let is_virtual = |m: &&rho_session::context::ModelRef| {
            registry
                .find(&m.provider, &m.model_id)
                .is_some_and(|found| found.is_virtual())
        };
        let session_model = (branch.model_change.as_ref().filter(is_virtual))
            .or(branch.model.as_ref())
            .filter(|_| resumed)
            .map(|m| (m.provider.as_str(), m.model_id.as_str()));
        let session_thinking = branch
            .has_thinking_level_change
            .then(|| ThinkingLevel::parse(&branch.thinking_level))
            .flatten();
        let has_auth = |p: &str| credentials.status(p) == AuthStatus::Configured;
        Ok(select(&SelectionInput {
            models: &credentials.models,
            has_auth: &has_auth,
            cli_provider: self.provider.as_deref(),
            cli_model: self.model.as_deref(),
            cli_thinking: self.thinking,
            scope: Some(&self.scope),
            session_model,
            session_thinking,
            default_model: self
                .default_model
                .as_ref()
                .map(|(p, m)| (p.as_str(), m.as_str())),
            default_thinking: self.default_thinking,
        })?)
    }
}

/// `--api-key` applies to the provider of the model named by `--model` (or the first
/// `--models` match), as pi does; extension providers count once registered.
pub fn apply_api_key(args: &Args, credentials: &mut CliCredentials) -> anyhow::Result<()> {
    if let Some(key) = &args.api_key {
        let provider = api_key_provider(args, &credentials.models)?;
        credentials.explicit = Some((provider, key.clone()));
    }
    Ok(())
}

fn api_key_provider(args: &Args, models: &ModelRegistry) -> anyhow::Result<String> {
    // An inline key goes to whichever provider is selected: stored credentials do not choose.
    let cli = resolve_cli_model(
        models,
        None,
        args.provider.as_deref(),
        args.model.as_deref(),
    )?;
    if let Some(choice) = cli {
        return Ok(choice.model.provider);
    }
    let patterns: Vec<&str> = args.models.iter().flatten().map(String::as_str).collect();
    let (scoped, _) = scope_models(&models.all(), &patterns);
    match scoped.into_iter().next() {
        Some(choice) => Ok(choice.model.provider),
        None => bail!("--api-key requires a model to be specified via --model, --provider/--model, or --models"),
    }
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
