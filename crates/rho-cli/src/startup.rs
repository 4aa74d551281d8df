//! From flags and files to a ready [`AgentSession`]: agent dir, settings, models.json,
//! credentials, model and thinking level, resources, system prompt and the session store.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context as _};
use rho_ai::catalog::builtin_models;
use rho_ai::catalog::select::resolve_model;
use rho_ai::models_json::load_models;
use rho_ai::ThinkingLevel;
use rho_core::agent_session::{AgentSession, AgentSessionConfig};
use rho_core::resources::context_files::load_context_files;
use rho_core::resources::skills::{load_skills, SkillSource};
use rho_core::resources::templates::load_templates;
use rho_core::session::paths::{agent_dir, process_env, resolve_session_dir};
use rho_core::session::SessionManager;
use rho_core::settings::Settings;
use rho_core::system_prompt::{build_system_prompt, text_or_file, SystemPromptOptions};

use crate::args::Args;
use crate::credentials::CliCredentials;

/// The project config directory name (pi uses `.pi`).
pub const PROJECT_DIR: &str = ".rho";

/// A built session plus what the user should be told about its setup.
pub struct Startup {
    /// The session.
    pub session: AgentSession,
    /// Non-fatal problems (broken files, unknown models...), for stderr.
    pub warnings: Vec<String>,
}

/// Builds the session the flags describe. Must run inside a tokio runtime.
pub fn build_session(args: &Args) -> anyhow::Result<Startup> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let agent_dir = agent_dir();
    let project_dir = cwd.join(PROJECT_DIR);
    let settings = Settings::load(&agent_dir, &project_dir);
    let mut warnings = settings.warnings.clone();
    let models = load_models(&agent_dir.join("models.json"), builtin_models());
    if let Some(e) = &models.error {
        warnings.push(e.to_string());
    }
    let (model, suffix_level) = select_model(args, &settings, &models.models, &mut warnings)?;
    let explicit = match (&args.api_key, &model) {
        (Some(key), Some(m)) => Some((m.provider.clone(), key.clone())),
        (Some(_), None) => bail!("--api-key requires a model to be specified via --model, --provider/--model, or --models"),
        _ => None,
    };
    let credentials = CliCredentials::load(&agent_dir, explicit, models, &mut warnings);
    let thinking = args
        .thinking
        .as_deref()
        .and_then(|t| {
            let level = ThinkingLevel::parse(t);
            if level.is_none() {
                warnings.push(format!("Invalid thinking level \"{t}\"; ignored"));
            }
            level
        })
        .or(suffix_level)
        .unwrap_or_else(|| settings.default_thinking_level());
    let cwd_str = cwd.to_string_lossy().to_string();
    let session = open_session(args, &settings, &agent_dir, &cwd, &cwd_str)?;
    let skills = if args.no_skills {
        Vec::new()
    } else {
        let (skills, diags) = load_skills(&skill_sources(&agent_dir, &project_dir, args));
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
        let mut sources = vec![project_dir.join("prompts"), agent_dir.join("prompts")];
        sources.extend(args.prompt_templates.iter().map(PathBuf::from));
        load_templates(&sources).0
    };
    let tools: Vec<String> = Vec::new();
    let prompt_options = SystemPromptOptions {
        custom_base: args
            .system_prompt
            .as_deref()
            .map(|v| text_or_file(v, &cwd))
            .or_else(|| read_first(&[project_dir.join("SYSTEM.md"), agent_dir.join("SYSTEM.md")])),
        append: if args.append_system_prompt.is_empty() {
            read_first(&[
                project_dir.join("APPEND_SYSTEM.md"),
                agent_dir.join("APPEND_SYSTEM.md"),
            ])
            .into_iter()
            .collect()
        } else {
            args.append_system_prompt
                .iter()
                .map(|v| text_or_file(v, &cwd))
                .collect()
        },
        active_tools: Some(tools),
        context_files: if args.no_context_files {
            Vec::new()
        } else {
            load_context_files(&agent_dir, &cwd)
        },
        skills: skills.clone(),
        cwd: cwd_str.clone(),
        date: today(),
    };
    let mut config = AgentSessionConfig::new(cwd.clone());
    config.base_system_prompt = build_system_prompt(&prompt_options);
    config.session = session;
    config.settings = settings;
    config.model = model;
    config.thinking_level = thinking;
    config.skills = skills;
    config.templates = templates;
    config.credentials = Arc::new(credentials);
    Ok(Startup {
        session: AgentSession::new(config),
        warnings,
    })
}

/// `--model` (with `--provider`), else settings `defaultProvider`/`defaultModel`.
fn select_model(
    args: &Args,
    settings: &Settings,
    models: &[rho_ai::Model],
    warnings: &mut Vec<String>,
) -> anyhow::Result<(Option<rho_ai::Model>, Option<ThinkingLevel>)> {
    if let Some(pattern) = &args.model {
        let Some(choice) = resolve_model(models, args.provider.as_deref(), pattern) else {
            bail!("Model \"{pattern}\" not found. Use --list-models to see available models.");
        };
        warnings.extend(choice.warning);
        return Ok((Some(choice.model), choice.thinking));
    }
    if let (Some(p), Some(id)) = (settings.default_provider(), settings.default_model()) {
        if let Some(m) = models.iter().find(|m| m.provider == p && m.id == id) {
            return Ok((Some(m.clone()), None));
        }
    }
    Ok((None, None))
}

fn open_session(
    args: &Args,
    settings: &Settings,
    agent_dir: &Path,
    cwd: &Path,
    cwd_str: &str,
) -> anyhow::Result<SessionManager> {
    if args.no_session {
        return Ok(SessionManager::in_memory(cwd_str));
    }
    let dir = resolve_session_dir(
        args.session_dir.as_deref().map(Path::new),
        settings.session_dir(),
        agent_dir,
        cwd_str,
        cwd,
        &process_env,
    );
    if let Some(target) = &args.session {
        let path = if Path::new(target).exists() {
            PathBuf::from(target)
        } else {
            rho_core::session::find_session(target, &dir, agent_dir)
                .map(|f| f.path)
                .with_context(|| format!("No session found matching \"{target}\""))?
        };
        return SessionManager::open(&path)
            .with_context(|| format!("cannot open session {}", path.display()));
    }
    if args.continue_session {
        if let Some(path) = rho_core::session::most_recent_session(&dir) {
            return SessionManager::open(&path)
                .with_context(|| format!("cannot open session {}", path.display()));
        }
    }
    Ok(SessionManager::create(&dir, cwd_str))
}

fn skill_sources(agent_dir: &Path, project_dir: &Path, args: &Args) -> Vec<SkillSource> {
    let mut sources = vec![
        SkillSource {
            path: project_dir.join("skills"),
            top_level_md: true,
        },
        SkillSource {
            path: agent_dir.join("skills"),
            top_level_md: true,
        },
    ];
    sources.extend(args.skills.iter().map(|p| SkillSource {
        path: PathBuf::from(p),
        top_level_md: true,
    }));
    sources
}

fn read_first(paths: &[PathBuf]) -> Option<String> {
    paths.iter().find_map(|p| std::fs::read_to_string(p).ok())
}

/// Today's date (UTC), `YYYY-MM-DD`.
fn today() -> String {
    let iso = rho_core::session::time::now_iso();
    iso.get(..10).unwrap_or(&iso).to_string()
}
