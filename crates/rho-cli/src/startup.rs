//! From flags and files to a ready [`AgentSession`]: agent dir, settings, models.json,
//! credentials, model and thinking level, resources, system prompt and the session store.

use rho_core::permissions::{PermissionMode, READ_ONLY_TOOLS};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context as _};
use rho_ai::catalog::select::scope_models;
use rho_ai::registry::{Base, ModelRegistry};
use rho_ai::ThinkingLevel;
use rho_core::agent_session::{AgentSession, AgentSessionConfig, AuthStatus, CredentialStore};
use rho_core::resources::agents_skills::{
    agents_sources, project_agents_skills, user_agents_skills,
};
use rho_core::resources::context_files::load_context_files;
use rho_core::resources::project_dirs::folders_of;
use rho_core::resources::skills::{load_skills, SkillSource};
use rho_core::resources::templates::load_templates;
use rho_core::settings::Settings;
use rho_core::system_prompt::{build_system_prompt, text_or_file, SystemPromptOptions};
use rho_packages::{Kind, Resolved};
use rho_protocol::rpc::Dialect;
use rho_session::paths::agent_dir;
use rho_session::{ModelRef, SessionManager};

use crate::args::Args;
use crate::credentials::{ensure_auth_file, CliCredentials};
use crate::list_models;
use crate::model_select::{resolve_cli_model, select, Selection, SelectionInput};
use crate::session_open;
use crate::tool_names::active_tools;

/// The project config directory name (pi uses `.pi`).
pub const PROJECT_DIR: &str = ".rho";

/// A built session plus what the user should be told about its setup.
pub struct Startup {
    /// The session.
    pub session: AgentSession,
    /// Non-fatal problems (broken files, unknown models...), for stderr.
    pub warnings: Vec<String>,
    /// The encoding of the RPC and JSON modes.
    pub dialect: Dialect,
    /// The agent dir, resolved once (`RHO_CODING_AGENT_DIR`, else pi's, else `~/.rho/agent`).
    pub agent_dir: PathBuf,
    /// What refreshes the model catalogs in the background (interactive and RPC modes).
    pub catalog: crate::model_catalog::Catalog,
}

/// `--rpc-dialect` (a bad value is an error) over the setting `rpcDialect` (a bad value is a
/// warning and the default).
fn choose_dialect(
    args: &Args,
    settings: &Settings,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Dialect> {
    if let Some(flag) = &args.rpc_dialect {
        return flag
            .parse()
            .map_err(|e| anyhow::anyhow!("--rpc-dialect: {e}"));
    }
    Ok(match settings.rpc_dialect().map(str::parse::<Dialect>) {
        Some(Ok(dialect)) => dialect,
        Some(Err(e)) => {
            warnings.push(format!("settings.json rpcDialect: {e}"));
            Dialect::default()
        }
        None => Dialect::default(),
    })
}

/// Settings, models.json and credentials for one working directory.
struct Registry {
    settings: Settings,
    credentials: CliCredentials,
    warnings: Vec<String>,
}

/// Loads settings, models.json and auth.json (`--api-key` is applied by [`apply_api_key`]
/// once every provider is known).
fn load_registry(agent_dir: &Path, project_dir: Option<&Path>) -> Registry {
    let settings = Settings::load_scopes(agent_dir, project_dir);
    let mut warnings = settings.warnings.clone();
    let store = crate::model_catalog::store(agent_dir);
    let models = ModelRegistry::load(&agent_dir.join("models.json"), Base::Catalog(Some(store)));
    if let Some(e) = models.error() {
        warnings.push(e.to_string());
    }
    let credentials = CliCredentials::load(agent_dir, None, models, &mut warnings);
    Registry {
        settings,
        credentials,
        warnings,
    }
}

/// `--api-key` applies to the provider of the model named by `--model` (or the first
/// `--models` match), as pi does; extension providers count once registered.
fn apply_api_key(args: &Args, credentials: &mut CliCredentials) -> anyhow::Result<()> {
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

/// Settings, models.json, auth.json and sessions all live in the agent dir: when a file
/// stands where it should be, nothing can be read or saved and every later error would be
/// misleading ("Unknown provider"), so rho stops here and says what to do.
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

/// The `--list-models` output and the warnings met while loading.
pub fn list_models_text(
    args: &Args,
    search: Option<&str>,
) -> anyhow::Result<(String, Vec<String>)> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let agent_dir = agent_dir();
    check_agent_dir(&agent_dir)?;
    let trust = crate::trust_setup::resolve(
        args,
        &agent_dir,
        &cwd,
        cwd.join(PROJECT_DIR),
        &mut Vec::new(),
    );
    let mut reg = load_registry(&agent_dir, trust.project_dir.as_deref());
    apply_api_key(args, &mut reg.credentials)?;
    let has_auth = |p: &str| reg.credentials.status(p) == AuthStatus::Configured;
    let text = list_models::render(&reg.credentials.models, &has_auth, search, &agent_dir);
    Ok((text, reg.warnings))
}

/// Builds the session the flags describe. Must run inside a tokio runtime.
pub async fn build_session(args: &Args) -> anyhow::Result<Startup> {
    session_open::validate(args)?;
    let mut cwd = std::env::current_dir().context("cannot read the current directory")?;
    let agent_dir = agent_dir();
    check_agent_dir(&agent_dir)?;
    let mut early_warnings = Vec::new();
    if let Err(e) = ensure_auth_file(&agent_dir) {
        early_warnings.push(format!(
            "cannot create {}: {e}",
            agent_dir.join("auth.json").display()
        ));
    }
    let settings = Settings::load(&agent_dir, &cwd.join(PROJECT_DIR));
    let mut session = session_open::open_session(args, &settings, &agent_dir, &cwd)?;
    if let Some(name) = &args.name {
        let name = name.trim();
        if name.is_empty() {
            anyhow::bail!("--name requires a non-empty value");
        }
        session.append_session_info(name)?;
    }
    // Skipped bad lines and broken parent cycles: the user should know the file is damaged.
    early_warnings.extend(session.warnings().iter().map(ToString::to_string));
    let session_cwd = PathBuf::from(session.cwd());
    if session_cwd != cwd {
        cwd = session_cwd;
    }
    let trust = crate::trust_setup::resolve(
        args,
        &agent_dir,
        &cwd,
        cwd.join(PROJECT_DIR),
        &mut early_warnings,
    );
    let project_dir = trust.project_dir.clone();
    let Registry {
        settings,
        mut credentials,
        mut warnings,
    } = load_registry(&agent_dir, project_dir.as_deref());
    warnings.splice(0..0, early_warnings);
    let dialect = choose_dialect(args, &settings, &mut warnings)?;
    let mut tools = active_tools(args, crate::tool_names::default_tools(&settings).as_deref());
    let permissions = crate::permissions_setup::build(args, &settings, &mut warnings)?;
    if permissions.mode == PermissionMode::Plan && args.tools.is_none() && !tools.builtin.is_empty()
    {
        // Plan mode looks around with every reader instead of the default set's one.
        tools.builtin = READ_ONLY_TOOLS.map(String::from).to_vec();
    }
    let excluded = tools.excluded.clone();
    tools.builtin.retain(|name| {
        permissions.exposes(name) && !crate::tool_names::is_excluded(&excluded, name)
    });
    let packages = crate::packages::off_the_workers(|| {
        let project = project_dir.as_deref();
        crate::packages::prepare(args, &settings, &agent_dir, &cwd, project, &mut warnings)
    });
    let Resources {
        skills,
        templates,
        prompt_options,
    } = load_resources(
        args,
        &agent_dir,
        &cwd,
        project_dir.as_deref(),
        (&tools.builtin, &packages),
        &mut warnings,
    );
    let mut config = AgentSessionConfig::new(cwd.clone());
    config.base_system_prompt = build_system_prompt(&prompt_options);
    config.prompt_options = Some(prompt_options.clone());
    config.settings = settings;
    config.skills = skills;
    config.templates = templates;
    let setup = crate::extensions::ExtensionSetup {
        args,
        settings: &config.settings,
        agent_dir: &agent_dir,
        project_dir: project_dir.as_deref(),
        cwd: &cwd,
        permissions: &permissions,
        packages: &packages,
    };
    config.extensions = crate::extensions::start_all(&setup, &mut warnings).await;
    if let Some(error) = crate::extensions::unclaimed_flags(args, &config.extensions) {
        anyhow::bail!("{}", error.trim_start_matches("Error: "));
    }
    config.external =
        crate::mcp::start(args, &agent_dir, &cwd, project_dir.is_some(), &mut warnings);
    let streams = add_extension_providers(&config.extensions, &mut credentials, &mut warnings);
    // The model is chosen once extensions registered their providers, so `--provider`,
    // `--model` and the settings' defaults can name an extension's model (as in pi).
    apply_api_key(args, &mut credentials)?;
    let selection = choose_model(
        args,
        &config.settings,
        &credentials,
        &session,
        &mut warnings,
    )?;
    record_initial_state(&mut session, &selection)?;
    config.session = session;
    config.model = selection.model;
    config.thinking_level = selection.thinking;
    config.stream_fn = rho_extension_host::providers::bridged_stream_fn(
        stream_with_resolved_headers(credentials.models.providers().clone()),
        streams,
    );
    config.models = credentials.models.list();
    let credentials = Arc::new(credentials);
    let catalog = crate::model_catalog::Catalog::new(credentials.clone());
    config.credentials = credentials;
    let names: Vec<&str> = tools.builtin.iter().map(String::as_str).collect();
    config.permissions = permissions;
    let sandbox =
        crate::sandbox_setup::build(args, &config.settings, &cwd, &agent_dir, &mut warnings)?;
    config.sandbox = Some(sandbox.clone());
    config.escalate = crate::sandbox_setup::escalate(args, &config.settings);
    let tools_config = rho_tools::ToolsConfig {
        shell: rho_tools::process::ShellConfig {
            shell_path: config.settings.shell_path().map(PathBuf::from),
            command_prefix: config.settings.shell_command_prefix().map(str::to_string),
            bin_dir: Some(agent_dir.join("bin")),
            scrub: rho_core::agent_session::key_scrub(
                &config.credentials,
                config.settings.pass_provider_keys_to_tools(),
            ),
            sandbox: Some(sandbox),
        },
        ..Default::default()
    };
    config.tools = rho_tools::create_tools_with(&names, &cwd, &tools_config)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    // The other built-ins wait inactive for extensions (pi's setActiveTools), unless the user
    // turned built-ins off.
    if !args.no_tools && !args.no_builtin_tools {
        let rest: Vec<&str> = crate::tool_names::BUILTIN_TOOLS
            .into_iter()
            .filter(|n| !names.contains(n))
            .collect();
        config.inactive_tools = rho_tools::create_tools_with(&rest, &cwd, &tools_config)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
    }
    let codemode = tools.codemode
        || (config.external.as_ref().is_some_and(|e| e.wants_codemode())
            && !crate::tool_names::is_excluded(&tools.excluded, rho_codemode::CODEMODE_TOOL_NAME));
    let session = AgentSession::new(config);
    if codemode {
        session.activate_codemode();
    }
    Ok(Startup {
        session,
        warnings,
        dialect,
        agent_dir,
        catalog,
    })
}

/// Puts the providers extensions registered into the model registry (the user's models.json
/// entry of the same name overrides `baseUrl`, `apiKey` and `headers`); returns those whose
/// replies the extension streams. A bad provider becomes a warning.
fn add_extension_providers(
    extensions: &[rho_extension_host::Extension],
    credentials: &mut CliCredentials,
    warnings: &mut Vec<String>,
) -> std::collections::HashMap<String, rho_extension_host::ProviderStream> {
    use rho_extension_host::providers::{provider_config, provider_models};
    let mut streams = std::collections::HashMap::new();
    for def in extensions.iter().flat_map(|e| e.providers()) {
        let user = credentials.models.provider(&def.name);
        let config = match provider_config(def, user) {
            Ok(c) => c,
            Err(e) => {
                warnings.push(format!(
                    "extension provider {} not registered: {e}",
                    def.name
                ));
                continue;
            }
        };
        let models = provider_models(&def.name, &config);
        credentials
            .models
            .replace_provider(&def.name, models, config);
        if let Some(stream) = &def.stream {
            streams.insert(def.name.clone(), stream.clone());
        }
    }
    streams
}

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

/// Reads [`Resources`] for `cwd`; `project_dir` is `None` for an untrusted project (only the
/// agent dir's and the flags' resources load). `packages` are the installed packages'
/// resources, which load after the folders' and before the flags'. Problems found become
/// `warnings`.
pub fn load_resources(
    args: &Args,
    agent_dir: &Path,
    cwd: &Path,
    project_dir: Option<&Path>,
    (active_tools, packages): (&[String], &Resolved),
    warnings: &mut Vec<String>,
) -> Resources {
    let skills = if args.no_skills {
        Vec::new()
    } else {
        let sources = skill_sources(agent_dir, project_dir, packages, args);
        let (skills, diags) = load_skills(&sources);
        warnings.extend(
            diags
                .into_iter()
                .map(|d| format!("{}: {}", d.path.display(), d.message)),
        );
        skills
    };
    let templates = if args.no_prompt_templates {
        Vec::new()
    } else {
        let mut sources = scoped(project_dir, agent_dir, "prompts");
        sources.extend(packages.enabled(Kind::Prompts));
        sources.extend(args.prompt_templates.iter().map(PathBuf::from));
        load_templates(&sources).0
    };
    let prompt_options = SystemPromptOptions {
        custom_base: args
            .system_prompt
            .as_deref()
            .map(|v| text_or_file(v, cwd))
            .or_else(|| read_first(&scoped(project_dir, agent_dir, "SYSTEM.md"))),
        append: if args.append_system_prompt.is_empty() {
            read_first(&scoped(project_dir, agent_dir, "APPEND_SYSTEM.md"))
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

/// `rho_ai::stream` with the model's models.json headers resolved per request (literal, env
/// var name or `!command`, interfaces spec §6.4) and `authHeader` applied.
fn stream_with_resolved_headers(
    providers: std::collections::BTreeMap<String, rho_ai::models_json::ProviderConfig>,
) -> rho_agent::StreamFn {
    Arc::new(move |model, context, options| {
        let provider = providers.get(&model.provider);
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

/// Runs the §6.5 chain against this session and these credentials.
fn choose_model(
    args: &Args,
    settings: &Settings,
    credentials: &CliCredentials,
    session: &SessionManager,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Selection> {
    let cli_thinking = args.thinking.as_deref().and_then(|t| {
        rho_core::agent_session::parse_level(t)
            .map_err(|e| warnings.push(e.to_string()))
            .ok()
    });
    let context = session.build_context();
    let resumed = !context.messages.is_empty();
    let session_model = context
        .model
        .as_ref()
        .filter(|_| resumed)
        .map(|m| (m.provider.as_str(), m.model_id.as_str()));
    let session_thinking = context
        .has_thinking_level_change
        .then(|| ThinkingLevel::parse(&context.thinking_level))
        .flatten();
    let scope = args
        .models
        .clone()
        .unwrap_or_else(|| settings.string_list("enabledModels"));
    let has_auth = |p: &str| credentials.status(p) == AuthStatus::Configured;
    let selection = select(&SelectionInput {
        models: &credentials.models,
        has_auth: &has_auth,
        cli_provider: args.provider.as_deref(),
        cli_model: args.model.as_deref(),
        cli_thinking,
        scope: Some(&scope),
        session_model,
        session_thinking,
        default_model: settings.default_provider().zip(settings.default_model()),
        default_thinking: settings.default_thinking_level(),
    })?;
    warnings.extend(selection.warnings.iter().cloned());
    Ok(selection)
}

/// A new session starts with `model_change` (when a model is selected) and
/// `thinking_level_change`; a resumed one without a thinking entry gets one (§4.4).
fn record_initial_state(session: &mut SessionManager, selection: &Selection) -> anyhow::Result<()> {
    let level = selection.thinking.as_str();
    if session.build_context().messages.is_empty() {
        let model = selection.model.as_ref().map(|m| ModelRef {
            provider: m.provider.clone(),
            model_id: m.id.clone(),
        });
        session.append_initial_state(model.as_ref(), level)?;
    } else {
        session.ensure_thinking_level(level)?;
    }
    Ok(())
}

/// `name` in the project folders (when trusted: `.rho/`, then pi's `.pi/`, D17) and then in
/// the agent dir, in that order.
fn scoped(project_dir: Option<&Path>, agent_dir: &Path, name: &str) -> Vec<PathBuf> {
    folders_of(project_dir)
        .into_iter()
        .chain([agent_dir.to_path_buf()])
        .map(|dir| dir.join(name))
        .collect()
}

/// Where skills come from, first of a name wins, in pi 1.6's order: the trusted project's
/// folders, its `.agents/skills` up to the repository root, the agent dir, the user's
/// `~/.agents/skills`, the packages' skills, then `--skill` paths.
fn skill_sources(
    agent_dir: &Path,
    project_dir: Option<&Path>,
    packages: &Resolved,
    args: &Args,
) -> Vec<SkillSource> {
    let own = |paths: Vec<PathBuf>| {
        paths.into_iter().map(|path| SkillSource {
            path,
            top_level_md: true,
        })
    };
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(PathBuf::from);
    let cwd = project_dir.and_then(Path::parent);
    let project = folders_of(project_dir)
        .into_iter()
        .map(|d| d.join("skills"));
    let mut sources: Vec<SkillSource> = own(project.collect()).collect();
    if let Some(cwd) = cwd {
        sources.extend(agents_sources(project_agents_skills(cwd, home.as_deref())));
    }
    sources.extend(own(vec![agent_dir.join("skills")]));
    sources.extend(agents_sources(home.as_deref().map(user_agents_skills)));
    sources.extend(own(packages.enabled(Kind::Skills)));
    sources.extend(args.skills.iter().map(|p| SkillSource {
        path: PathBuf::from(p),
        top_level_md: true,
    }));
    sources
}

fn read_first(paths: &[PathBuf]) -> Option<String> {
    paths.iter().find_map(|p| std::fs::read_to_string(p).ok())
}
