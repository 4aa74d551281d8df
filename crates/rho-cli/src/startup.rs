//! From the command line to a ready [`AgentSession`]. The session file is opened first (a
//! resumed session's folder is the one whose trust and settings count), then the flags and
//! the files are resolved once into a [`StartupPlan`], and the session is built from it:
//! packages, resources and the system prompt, extensions, MCP servers, the registry with the
//! extensions' providers, the model, the sandbox and the tools. Nothing here decides anything
//! the plan already decided.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context as _;
use rho_core::agent_session::{AgentSession, AgentSessionConfig, AuthStatus, CredentialStore};
use rho_core::settings::Settings;
use rho_core::system_prompt::build_system_prompt;
use rho_extension_host::providers::ProviderStreams;
use rho_extension_host::ProviderDef;
use rho_packages::Resolved;
use rho_protocol::rpc::Dialect;
use rho_session::{ModelRef, SessionManager};

use crate::args::Args;
use crate::credentials::{ensure_auth_file, CliCredentials};
use crate::extension_processes::Started;
use crate::extension_providers::ExtensionProviders;
use crate::extensions::ExtensionSetup;
use crate::list_models;
use crate::model_select::Selection;
use crate::plan::{apply_api_key, ModelRequest, RunMode, StartupPlan};
use crate::project::Project;
use crate::resources::{load_resources, Resources};
use crate::tool_names::{is_excluded, ToolSelection, BUILTIN_TOOLS};

/// A built session plus what the user should be told about its setup.
pub struct Startup {
    /// The session.
    pub session: AgentSession,
    /// Non-fatal problems (broken files, unknown models...), for stderr.
    pub warnings: Vec<String>,
    /// How rho runs.
    pub mode: RunMode,
    /// The encoding of the RPC and JSON modes.
    pub dialect: Dialect,
    /// The agent dir, resolved once (`RHO_CODING_AGENT_DIR`, else pi's, else `~/.rho/agent`).
    pub agent_dir: PathBuf,
    /// The project trust of this run when the start-up question's answer was not saved (a
    /// "this session only" answer or a cancel): `/reload` decides with it as with `--approve`.
    pub trust_flag: Option<bool>,
    /// What refreshes the model catalogs in the background (interactive and RPC modes).
    pub catalog: crate::model_catalog::Catalog,
}

/// The `--list-models` output and the warnings met while loading.
pub fn list_models_text(
    args: &Args,
    search: Option<&str>,
) -> anyhow::Result<(String, Vec<String>)> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let agent_dir = crate::plan::agent_dir()?;
    // The trust notice is for sessions; the listing only needs the settings' warnings.
    let project = Project::resolve(args.approve, &agent_dir, &cwd, &mut Vec::new());
    let mut warnings = project.settings(&agent_dir).warnings;
    let mut credentials = crate::plan::load_credentials(&agent_dir, &mut warnings);
    apply_api_key(args, &mut credentials)?;
    let has_auth = |p: &str| credentials.status(p) == AuthStatus::Configured;
    let text = list_models::render(&credentials.models, &has_auth, search, &agent_dir);
    Ok((text, warnings))
}

/// Builds the session the flags describe, for `mode`. Must run inside a tokio runtime.
pub async fn start(args: &Args, mode: RunMode) -> anyhow::Result<Startup> {
    crate::session_open::validate(args)?;
    let agent_dir = crate::plan::agent_dir()?;
    let mut warnings = Vec::new();
    if let Err(e) = ensure_auth_file(&agent_dir) {
        let file = agent_dir.join("auth.json");
        warnings.push(format!("cannot create {}: {e}", file.display()));
    }
    // The global settings, read once: the session dir is looked up with them, trust is
    // decided with them, the question before start-up takes its theme from them, and the
    // project's layers go over them once trusted.
    let global = Settings::load_scopes(&agent_dir, None);
    let dirs = (&global, agent_dir.as_path());
    let store = crate::session_open::open(args, dirs, &mut warnings)?;
    let cwd = PathBuf::from(store.cwd());
    let before = crate::trust_extensions::decide(args, dirs, &cwd, mode, &mut warnings).await;
    let trust_flag = before.trusted.or_else(|| {
        (mode == RunMode::Interactive)
            .then(|| ask_trust(args.approve, dirs, &cwd, &mut warnings))
            .flatten()
    });
    let answered = trust_flag.map(|flag| Args {
        approve: Some(flag),
        ..args.clone()
    });
    let args = answered.as_ref().unwrap_or(args);
    let plan = StartupPlan::resolve(args, mode, (agent_dir, &global), &cwd, warnings)?;
    let mut startup = build(args, plan, store, before.started).await?;
    startup.trust_flag = trust_flag;
    Ok(startup)
}

/// pi's trust question on the terminal, before anything of the project loads (in the global
/// settings' built-in theme; the project's own cannot apply yet).
fn ask_trust(
    approve: Option<bool>,
    (global, agent_dir): (&Settings, &Path),
    cwd: &Path,
    warnings: &mut Vec<String>,
) -> Option<bool> {
    let theme = crate::trust_extensions::startup_theme(global);
    let ask = |question: &str, answers: &[String]| {
        rho_interactive::ask_before_start(question, answers, agent_dir, &theme)
    };
    crate::project::ask_at_start(approve, (global, agent_dir), cwd, &ask, warnings)
}

/// The session `plan` describes, over the opened session file `store`.
/// The extensions asked about project trust before start-up (`preloaded`) go on into it.
async fn build(
    args: &Args,
    mut plan: StartupPlan,
    store: SessionManager,
    preloaded: Option<Started>,
) -> anyhow::Result<Startup> {
    let mut warnings = std::mem::take(&mut plan.warnings);
    let mut config = AgentSessionConfig::new(plan.project.cwd.clone());
    let packages = add_resources(&mut config, args, &plan, &mut warnings);
    let extensions = (&*packages, preloaded);
    config.extensions = start_extensions(args, &plan, extensions, &mut warnings).await?;
    let dirs = (plan.agent_dir.as_path(), plan.project.cwd.as_path());
    let mcp_on = crate::extensions::builtin_on(args, &packages, "mcp");
    let switches = (plan.project.trusted(), mcp_on);
    let registered = crate::mcp::ExtensionServers::of(&config.extensions);
    config.external = crate::mcp::start(args, dirs, switches, registered, &mut warnings);
    let request = (&plan.model, store);
    let catalog = add_model(&mut config, args, plan.credentials, request, &mut warnings).await?;
    config.settings = plan.settings;
    config.permissions = plan.permissions;
    config.sandbox = Some(crate::sandbox_setup::build(plan.sandbox, &mut warnings));
    config.escalate = plan.escalate;
    add_tools(&mut config, args, &plan.tools, &plan.agent_dir)?;
    // pi's `builtin:codemode` off (`-builtin:codemode`, `-ne`) means no codemode tool at all;
    // MCP servers (configured, or registered later) turn it on unless `--exclude-tools` names it.
    let codemode_on = crate::extensions::builtin_on(args, &packages, "codemode");
    let for_mcp =
        codemode_on && !is_excluded(&plan.tools.excluded, rho_codemode::CODEMODE_TOOL_NAME);
    let trusted = plan.project.trusted();
    config.external_servers = crate::mcp::owner(args, dirs, (trusted, mcp_on.then_some(for_mcp)));
    let codemode = (plan.tools.codemode && codemode_on)
        || (for_mcp && config.external.as_ref().is_some_and(|e| e.wants_codemode()));
    let session = AgentSession::new(config);
    if codemode {
        session.activate_codemode();
    }
    Ok(Startup {
        session,
        warnings,
        mode: plan.mode,
        dialect: plan.dialect,
        agent_dir: plan.agent_dir,
        trust_flag: None,
        catalog,
    })
}

/// The installed packages (found or installed), and the skills, prompt templates and system
/// prompt from the folders, the packages and the flags, into `config`.
fn add_resources(
    config: &mut AgentSessionConfig,
    args: &Args,
    plan: &StartupPlan,
    warnings: &mut Vec<String>,
) -> Arc<Resolved> {
    let (agent_dir, project) = (&plan.agent_dir, &plan.project);
    let packages = crate::packages::off_the_workers(|| {
        crate::packages::prepare(args, &plan.settings, agent_dir, project, warnings)
    });
    let resources = (&plan.tools.builtin[..], &*packages);
    let Resources {
        skills,
        templates,
        prompt_options,
    } = load_resources(args, agent_dir, project, resources, warnings);
    config.base_system_prompt = build_system_prompt(&prompt_options);
    config.prompt_options = Some(prompt_options);
    config.skills = skills;
    config.templates = templates;
    packages
}

/// Starts the extensions; a `--name` flag none of them declared stops start-up, as in pi.
async fn start_extensions(
    args: &Args,
    plan: &StartupPlan,
    (packages, preloaded): (&Resolved, Option<Started>),
    warnings: &mut Vec<String>,
) -> anyhow::Result<Vec<rho_extension_host::Extension>> {
    let setup = ExtensionSetup {
        args,
        mode: plan.mode,
        settings: &plan.settings,
        agent_dir: &plan.agent_dir,
        project: &plan.project,
        permissions: &plan.permissions,
        tools: &plan.tools,
        packages,
    };
    let extensions = crate::extensions::start_all(&setup, preloaded, warnings).await;
    if let Some(error) = crate::extensions::unclaimed_flags(args, &extensions) {
        anyhow::bail!("{}", error.trim_start_matches("Error: "));
    }
    Ok(extensions)
}

/// The registry with the extensions' providers, the model `request` chooses over it for the
/// session `store` (recorded in it), and the stream function, into `config`. The model is
/// chosen once extensions registered their providers, so `--provider`, `--model` and the
/// settings' defaults can name an extension's model (as in pi), and after the providers with
/// `refreshModels` restored their stored models (pi awaits that phase too).
async fn add_model(
    config: &mut AgentSessionConfig,
    args: &Args,
    mut credentials: CliCredentials,
    (request, store): (&ModelRequest, SessionManager),
    warnings: &mut Vec<String>,
) -> anyhow::Result<crate::model_catalog::Catalog> {
    let streams = ProviderStreams::default();
    add_extension_providers(&config.extensions, &credentials, &streams, warnings);
    let refreshing: Vec<ProviderDef> = config
        .extensions
        .iter()
        .flat_map(|e| e.providers())
        .filter(|def| def.refresh.is_some())
        .cloned()
        .collect();
    warnings.extend(crate::extension_refresh::restore_all(&credentials, &refreshing).await);
    apply_api_key(args, &mut credentials)?;
    let selection = request.select(&credentials, &store)?;
    warnings.extend(selection.warnings.iter().cloned());
    config.session = record_initial_state(store, &selection)?;
    config.model = selection.model;
    config.thinking_level = selection.thinking;
    config.models = credentials.models.list();
    let credentials = Arc::new(credentials);
    config.stream_fn = stream_with_resolved_headers(credentials.clone());
    // Extensions may register providers that stream in the extension at any time, also
    // those a /reload brings to a session that started without any. Unused, this costs a
    // look into an empty map per request; no process starts for it.
    let bridged = rho_extension_host::providers::bridged_stream_fn;
    config.stream_fn = bridged(config.stream_fn.clone(), streams.clone());
    let providers = Arc::new(ExtensionProviders::new(
        credentials.clone(),
        streams,
        &refreshing,
    ));
    config.model_providers = Some(providers.clone());
    config.credentials = credentials.clone();
    Ok(crate::model_catalog::Catalog::new(credentials, providers))
}

/// The chosen built-in tools, active, and the other built-ins waiting inactive for extensions
/// (pi's setActiveTools) unless the user turned built-ins off; all through the session's
/// shell settings, key scrubbing and sandbox.
fn add_tools(
    config: &mut AgentSessionConfig,
    args: &Args,
    tools: &ToolSelection,
    agent_dir: &std::path::Path,
) -> anyhow::Result<()> {
    let cwd = config.cwd.clone();
    let tools_config = rho_tools::ToolsConfig {
        shell: rho_tools::shell::ShellConfig {
            shell_path: config.settings.shell_path().map(PathBuf::from),
            command_prefix: config.settings.shell_command_prefix().map(str::to_string),
            bin_dir: Some(agent_dir.join("bin")),
            scrub: rho_core::agent_session::key_scrub(
                &config.credentials,
                config.settings.pass_provider_keys_to_tools(),
            ),
            sandbox: config.sandbox.clone(),
            session_env: Some(config.session_env.provider()),
        },
        read: rho_tools::ReadOptions {
            auto_resize_images: config.settings.auto_resize_images(),
            ..Default::default()
        },
    };
    let names: Vec<&str> = tools.builtin.iter().map(String::as_str).collect();
    config.tools = rho_tools::create_tools_with(&names, &cwd, &tools_config)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if !args.no_tools && !args.no_builtin_tools {
        let rest: Vec<&str> = BUILTIN_TOOLS
            .into_iter()
            .filter(|n| !names.contains(n))
            .collect();
        config.inactive_tools = rho_tools::create_tools_with(&rest, &cwd, &tools_config)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    Ok(())
}

/// Puts the providers and virtual models extensions registered while loading into the model
/// registry, their sign-ins into the credential store and the providers whose replies the
/// extension streams into `streams` (see [`crate::extension_providers`]). A bad provider, or a
/// virtual model with a physical model's id, becomes a warning.
fn add_extension_providers(
    extensions: &[rho_extension_host::Extension],
    credentials: &CliCredentials,
    streams: &ProviderStreams,
    warnings: &mut Vec<String>,
) {
    warnings.extend(rho_core::agent_session::register_loaded_models(
        extensions,
        |def| crate::extension_providers::register(credentials, streams, def),
        |model| Ok(credentials.models.add_virtual_model(model)?),
    ));
}

/// `rho_ai::stream` with the model's models.json headers resolved per request (literal, env
/// var name or `!command`, interfaces spec §6.4) and `authHeader` applied. The provider's
/// config is read per request: an extension may register it while the session runs.
fn stream_with_resolved_headers(credentials: Arc<CliCredentials>) -> rho_agent::StreamFn {
    Arc::new(move |model, context, options| {
        let provider = credentials.models.provider(&model.provider);
        let provider = provider.as_ref();
        let has_headers = model.headers.as_ref().is_some_and(|h| !h.is_empty());
        if !has_headers && !provider.is_some_and(|p| p.auth_header) {
            return rho_ai::stream(model, context, options);
        }
        let env = |name: &str| std::env::var(name).ok();
        let headers = rho_ai::models_json::resolve_request_headers(
            model,
            provider,
            options.api_key.as_deref(),
            &env,
            &rho_ai::config_value::run_shell,
        )
        .map_err(rho_ai::ProviderError::Config)?;
        let mut resolved = model.clone();
        resolved.headers = Some(headers);
        rho_ai::stream(&resolved, context, options)
    })
}

/// A new session starts with `model_change` (when a model is selected) and
/// `thinking_level_change`; a resumed one without a thinking entry gets one (§4.4).
fn record_initial_state(
    mut session: SessionManager,
    selection: &Selection,
) -> anyhow::Result<SessionManager> {
    let level = selection.thinking.as_str();
    if !session.branch_state().has_messages {
        let model = selection.model.as_ref().map(|m| ModelRef {
            provider: m.provider.clone(),
            model_id: m.id.clone(),
        });
        session.append_initial_state(model.as_ref(), level)?;
    } else {
        session.ensure_thinking_level(level)?;
    }
    Ok(session)
}
