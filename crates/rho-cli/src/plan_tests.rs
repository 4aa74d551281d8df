//! One test per resolution rule of the start-up plan.

use super::*;
use rho_core::trust::TrustStore;

fn args(argv: &[&str]) -> Args {
    crate::args::parse(&argv.iter().map(|s| s.to_string()).collect::<Vec<_>>())
}

fn settings(global: &str) -> Settings {
    match serde_json::from_str(global) {
        Ok(serde_json::Value::Object(map)) => Settings::from_scopes(map, Default::default()),
        _ => Settings::default(),
    }
}

fn permissions(mode: &str) -> Permissions {
    let mode = mode.parse().expect("a permission mode");
    Permissions::from_lists(mode, &[], &[], &[], &mut Vec::new())
}

#[test]
fn the_run_mode_comes_from_the_flags_and_whether_stdin_is_a_terminal() {
    assert_eq!(RunMode::resolve(&args(&[]), true), RunMode::Interactive);
    assert_eq!(RunMode::resolve(&args(&[]), false), RunMode::Print);
    assert_eq!(RunMode::resolve(&args(&["-p", "hi"]), true), RunMode::Print);
    assert_eq!(
        RunMode::resolve(&args(&["--mode", "json"]), true),
        RunMode::Json
    );
    assert_eq!(
        RunMode::resolve(&args(&["--mode", "rpc"]), false),
        RunMode::Rpc
    );
    let names: Vec<_> = [
        RunMode::Interactive,
        RunMode::Print,
        RunMode::Json,
        RunMode::Rpc,
    ]
    .map(|m| (m.name(), m.has_ui()))
    .to_vec();
    assert_eq!(
        names,
        [
            ("tui", true),
            ("print", false),
            ("json", false),
            ("rpc", true)
        ]
    );
}

#[test]
fn the_dialect_flag_wins_and_must_be_valid_while_a_bad_setting_only_warns() {
    let mut warnings = Vec::new();
    let pi073: Dialect = "0.73".parse().expect("a dialect");
    let chosen = choose_dialect(Some("0.73"), Some("1.x"), &mut warnings).expect("valid");
    assert_eq!(chosen, pi073);
    assert!(choose_dialect(Some("ultra"), None, &mut warnings).is_err());
    let chosen = choose_dialect(None, Some("0.73"), &mut warnings).expect("valid");
    assert_eq!(chosen, pi073);
    assert!(warnings.is_empty());
    let chosen = choose_dialect(None, Some("ultra"), &mut warnings).expect("a default");
    assert_eq!(chosen, Dialect::default());
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].starts_with("settings.json rpcDialect:"));
}

#[test]
fn plan_mode_reads_with_every_reader_and_excluded_tools_go() {
    let none = Settings::default();
    let default = choose_tools(&args(&[]), &none, &permissions("default"));
    assert_eq!(default.builtin, ["read", "bash", "edit", "write"]);
    let plan = choose_tools(&args(&[]), &none, &permissions("plan"));
    assert_eq!(plan.builtin, READ_ONLY_TOOLS.map(String::from).to_vec());
    // `--tools` keeps its own list, less what plan mode hides.
    let chosen = choose_tools(
        &args(&["--tools", "read,bash,grep"]),
        &none,
        &permissions("plan"),
    );
    assert_eq!(chosen.builtin, ["read", "grep"]);
    let excluded = choose_tools(&args(&["-xt", "edit"]), &none, &permissions("default"));
    assert_eq!(excluded.builtin, ["read", "bash", "write"]);
    let from_settings = choose_tools(
        &args(&[]),
        &settings(r#"{"defaultTools": ["read", "grep"]}"#),
        &permissions("default"),
    );
    assert_eq!(from_settings.builtin, ["read", "grep"]);
}

#[test]
fn the_model_request_takes_the_flags_over_the_settings() {
    let saved = settings(
        r#"{"enabledModels": ["a/*"], "defaultProvider": "p", "defaultModel": "m", "defaultThinkingLevel": "high"}"#,
    );
    let mut warnings = Vec::new();
    let request = ModelRequest::resolve(&args(&[]), &saved, &mut warnings).expect("valid");
    assert_eq!(request.scope, ["a/*"]);
    assert_eq!(request.default_model, Some(("p".into(), "m".into())));
    assert_eq!(request.default_thinking, ThinkingLevel::High);
    let flagged = args(&["--models", "b/*", "--thinking", "low", "--model", "x"]);
    let request = ModelRequest::resolve(&flagged, &saved, &mut warnings).expect("valid");
    assert_eq!(request.scope, ["b/*"]);
    assert_eq!(request.thinking, Some(ThinkingLevel::Low));
    assert_eq!(request.model.as_deref(), Some("x"));
    assert!(warnings.is_empty(), "{warnings:?}");
    let bad = ModelRequest::resolve(&args(&["--thinking", "lots"]), &saved, &mut warnings)
        .expect("a warning only");
    assert_eq!(bad.thinking, None);
    assert_eq!(warnings.len(), 1, "a bad level is a warning: {warnings:?}");
    let lone = ModelRequest::resolve(&args(&["--provider", "p"]), &saved, &mut warnings);
    assert_eq!(
        lone.expect_err("pi's error").to_string(),
        "--provider requires --model (for example: --provider p --model <pattern>)"
    );
}

#[test]
fn the_api_key_goes_to_the_named_models_provider_else_the_first_scoped_one() {
    let models = &ModelRegistry::with_config(Base::Catalog(None), Default::default(), None);
    let provider = api_key_provider(&args(&["--model", "anthropic/claude-opus-4-5"]), models);
    assert_eq!(provider.expect("a provider"), "anthropic");
    // `groq/*`: pi's catalog has no model whose own id starts `groq/` (as OpenRouter's
    // `openai/...` ids do), so the pattern names the provider alone.
    let scoped = api_key_provider(&args(&["--models", "groq/*"]), models);
    assert_eq!(scoped.expect("a provider"), "groq");
    let refused = api_key_provider(&args(&[]), models).expect_err("no model named");
    assert!(refused
        .to_string()
        .starts_with("--api-key requires a model"));
}

#[test]
fn a_file_where_the_agent_dir_belongs_stops_start_up_with_what_to_do() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let file = tmp.path().join("agent");
    std::fs::write(&file, "").expect("a file");
    let refused = check_agent_dir(&file).expect_err("refused");
    assert!(refused.to_string().contains("is a file, not a directory"));
    let below = check_agent_dir(&file.join("inside")).expect_err("refused");
    assert!(below.to_string().contains("part of its path is a file"));
    assert!(check_agent_dir(&tmp.path().join("missing")).is_ok());
}

/// The plan for a session in a trusted or untrusted folder: its project settings count only
/// when trusted, and the warnings come in the order they were met.
#[test]
fn the_plan_reads_the_projects_settings_only_when_the_folder_is_trusted() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (agent, cwd) = (tmp.path().join("agent"), tmp.path().join("work"));
    std::fs::create_dir_all(cwd.join(".rho")).expect("mkdir");
    std::fs::create_dir_all(&agent).expect("mkdir");
    std::fs::write(agent.join("settings.json"), r#"{"rpcDialect": "0.73"}"#).expect("global");
    std::fs::write(
        cwd.join(".rho/settings.json"),
        r#"{"defaultTools": ["read"], "rpcDialect": "1.x"}"#,
    )
    .expect("project");
    let before = vec!["opened the session".to_string()];
    let global = |agent: &std::path::Path| Settings::load_scopes(agent, None);
    let plan = StartupPlan::resolve(
        &args(&[]),
        RunMode::Print,
        (agent.clone(), &global(&agent)),
        &cwd,
        before.clone(),
    )
    .expect("a plan");
    assert!(!plan.project.trusted());
    assert_eq!(plan.tools.builtin, ["read", "bash", "edit", "write"]);
    assert_eq!(plan.dialect, "0.73".parse().expect("a dialect"));
    assert_eq!(plan.warnings[0], before[0]);
    assert!(plan.warnings[1].contains("this folder is not trusted"));
    assert!(!plan.escalate, "print mode never asks");
    TrustStore::new(&agent)
        .set(&cwd, Some(true))
        .expect("trust the folder");
    let global = global(&agent);
    let plan = StartupPlan::resolve(
        &args(&[]),
        RunMode::Interactive,
        (agent, &global),
        &cwd,
        Vec::new(),
    )
    .expect("a plan");
    assert!(plan.project.trusted());
    assert_eq!(plan.tools.builtin, ["read"]);
    assert_eq!(plan.dialect, "1.x".parse().expect("a dialect"));
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    assert!(plan.escalate);
    assert_eq!(plan.sandbox.mode, rho_sandbox::SandboxMode::WorkspaceWrite);
}
