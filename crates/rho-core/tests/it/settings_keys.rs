//! Every key of pi 1.6's `docs/settings.md` that rho reads in the session's settings, one test
//! per key (or per group of one object): the default when unset, pi's meaning when set, and
//! the project's value over the user's where pi merges them. Keys read elsewhere (the
//! interactive screen, packages, project trust) are tested where they are read; the README's
//! settings table names those and the keys that do not apply.

use rho_ai::retry::RetrySettings;
use rho_ai::ThinkingLevel;
use rho_core::settings::Settings;
use rho_protocol::agent::QueueMode;
use serde_json::{json, Map, Value};

fn scope(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// The user's settings only.
fn user(value: Value) -> Settings {
    Settings::from_scopes(scope(value), Map::new())
}

/// The user's settings with a project's over them.
fn layered(global: Value, project: Value) -> Settings {
    Settings::from_scopes(scope(global), scope(project))
}

fn unset() -> Settings {
    user(json!({}))
}

#[test]
fn default_provider_and_default_model() {
    assert_eq!(
        (unset().default_provider(), unset().default_model()),
        (None, None)
    );
    let s = layered(
        json!({"defaultProvider": "anthropic", "defaultModel": "claude-sonnet-4-5"}),
        json!({"defaultModel": "claude-opus-4-1"}),
    );
    assert_eq!(s.default_provider(), Some("anthropic"));
    assert_eq!(s.default_model(), Some("claude-opus-4-1"));
}

#[test]
fn default_thinking_level() {
    assert_eq!(unset().default_thinking_level(), ThinkingLevel::Medium);
    assert_eq!(unset().chosen_thinking_level(), None);
    let s = user(json!({"defaultThinkingLevel": "max"}));
    assert_eq!(s.default_thinking_level(), ThinkingLevel::Max);
    let bad = user(json!({"defaultThinkingLevel": "loud"}));
    assert_eq!(bad.default_thinking_level(), ThinkingLevel::Medium);
}

#[test]
fn model_thinking_levels() {
    let s = user(json!({"modelThinkingLevels": {"anthropic/claude-sonnet-4-5": "high"}}));
    assert_eq!(
        s.model_thinking_level("anthropic", "claude-sonnet-4-5"),
        Some(ThinkingLevel::High)
    );
    assert_eq!(s.model_thinking_level("openai", "claude-sonnet-4-5"), None);
    assert_eq!(unset().model_thinking_level("anthropic", "x"), None);
}

#[test]
fn thinking_budgets() {
    assert_eq!(unset().thinking_budgets(), Default::default());
    let s = user(json!({"thinkingBudgets": {"minimal": 500, "high": 30000, "low": -1}}));
    let b = s.thinking_budgets();
    assert_eq!(
        (b.minimal, b.low, b.medium, b.high),
        (Some(500), None, None, Some(30_000))
    );
    assert_eq!(
        b.for_level(ThinkingLevel::Medium),
        8192,
        "pi's default for a level not set"
    );
}

#[test]
fn enabled_models_and_the_resource_lists() {
    assert!(unset().string_list("enabledModels").is_empty());
    let s = user(json!({
        "enabledModels": ["anthropic/*", "gpt-5*"],
        "extensions": ["ext.ts", "-builtin:mcp"],
        "skills": ["../skills", "!**/draft/**"],
        "prompts": ["prompts"],
        "themes": ["themes/dark.json"],
    }));
    assert_eq!(s.string_list("enabledModels"), ["anthropic/*", "gpt-5*"]);
    assert_eq!(s.string_list("extensions"), ["ext.ts", "-builtin:mcp"]);
    assert_eq!(s.string_list("skills"), ["../skills", "!**/draft/**"]);
    assert_eq!(s.string_list("prompts"), ["prompts"]);
    assert_eq!(s.string_list("themes"), ["themes/dark.json"]);
}

#[test]
fn hide_thinking_block() {
    assert!(!unset().hide_thinking_block());
    assert!(user(json!({"hideThinkingBlock": true})).hide_thinking_block());
}

#[test]
fn steering_mode_and_follow_up_mode() {
    assert_eq!(unset().steering_mode(), QueueMode::OneAtATime);
    assert_eq!(unset().follow_up_mode(), QueueMode::OneAtATime);
    let s = user(json!({"steeringMode": "all", "followUpMode": "all"}));
    assert_eq!(
        (s.steering_mode(), s.follow_up_mode()),
        (QueueMode::All, QueueMode::All)
    );
}

#[test]
fn codemode_mode_and_inline_budget() {
    let default = unset().codemode();
    assert_eq!(format!("{:?}", default.mode), "On");
    assert_eq!(default.inline_budget, 3000);
    let s = user(json!({"codemode": {"mode": "only", "inlineBudget": 120}})).codemode();
    assert_eq!(format!("{:?}", s.mode), "Only");
    assert_eq!(s.inline_budget, 120);
}

#[test]
fn session_dir() {
    assert_eq!(unset().session_dir(), None);
    assert_eq!(
        user(json!({"sessionDir": "./sessions"})).session_dir(),
        Some("./sessions")
    );
}

#[test]
fn compaction_enabled_reserve_and_keep_recent_tokens() {
    let c = unset().compaction();
    assert_eq!(
        (c.enabled, c.reserve_tokens, c.keep_recent_tokens),
        (true, 16_384, 20_000)
    );
    let s = layered(
        json!({"compaction": {"enabled": false, "reserveTokens": 1000}}),
        json!({"compaction": {"keepRecentTokens": 500}}),
    );
    let c = s.compaction();
    assert_eq!(
        (c.enabled, c.reserve_tokens, c.keep_recent_tokens),
        (false, 1000, 500),
        "a project's compaction object merges into the user's (pi 1.6)"
    );
}

#[test]
fn branch_summary_reserve_tokens_and_skip_prompt() {
    assert_eq!(unset().branch_summary_reserve_tokens(), 16_384);
    assert!(!unset().branch_summary_skip_prompt());
    let s = user(json!({"branchSummary": {"reserveTokens": 4000, "skipPrompt": true}}));
    assert_eq!(s.branch_summary_reserve_tokens(), 4000);
    assert!(s.branch_summary_skip_prompt());
}

#[test]
fn quiet_startup() {
    assert_eq!(unset().quiet_startup(), (false, false));
    assert_eq!(
        user(json!({"quietStartup": true})).quiet_startup(),
        (true, true)
    );
    assert_eq!(
        user(json!({"quietStartup": "header"})).quiet_startup(),
        (false, true)
    );
}

#[test]
fn theme() {
    assert_eq!(unset().theme(), None);
    assert_eq!(user(json!({"theme": "light"})).theme(), Some("light"));
}

#[test]
fn images_auto_resize_and_block_images() {
    assert!(unset().auto_resize_images());
    assert!(!unset().block_images());
    let s = user(json!({"images": {"autoResize": false, "blockImages": true}}));
    assert!(!s.auto_resize_images());
    assert!(s.block_images());
}

#[test]
fn http_proxy_only_from_the_agent_dir() {
    assert_eq!(unset().http_proxy(), None);
    let s = layered(json!({}), json!({"httpProxy": "http://project-proxy:1"}));
    assert_eq!(
        s.http_proxy(),
        None,
        "a project cannot reroute the user's traffic"
    );
    let s = user(json!({"httpProxy": "http://proxy:3128"}));
    assert_eq!(s.http_proxy(), Some("http://proxy:3128"));
}

#[test]
fn http_idle_timeout_ms() {
    use std::time::Duration;
    assert_eq!(unset().http_idle_timeout(), None);
    let s = user(json!({"httpIdleTimeoutMs": 1500}));
    assert_eq!(s.http_idle_timeout(), Some(Duration::from_millis(1500)));
    for off in [json!(0), json!("disabled")] {
        let never = user(json!({ "httpIdleTimeoutMs": off })).http_idle_timeout();
        assert!(never.is_some_and(|d| d > Duration::from_secs(86_400 * 365)));
    }
}

#[test]
fn retry_enabled_max_retries_base_delay_and_max_agent_delay() {
    assert_eq!(unset().retry(), RetrySettings::default());
    let r = user(json!({"retry": {
        "enabled": false, "maxRetries": 5, "baseDelayMs": 10, "maxAgentDelayMs": 700
    }}))
    .retry();
    assert_eq!(
        (
            r.enabled,
            r.max_retries,
            r.base_delay_ms,
            r.max_agent_delay_ms
        ),
        (false, 5, 10, 700)
    );
}

#[test]
fn retry_provider_timeout_max_retries_and_max_retry_delay() {
    use std::time::Duration;
    assert_eq!(unset().provider_timeout(), None);
    let s = user(json!({"retry": {"provider": {
        "timeoutMs": 2500, "maxRetries": 2, "maxRetryDelayMs": 0
    }}}));
    assert_eq!(s.provider_timeout(), Some(Duration::from_millis(2500)));
    let r = s.retry();
    assert_eq!((r.provider_max_retries, r.max_retry_delay_ms), (2, 0));
    assert_eq!(unset().retry().provider_max_retries, 0);
}

#[test]
fn shell_path_and_shell_command_prefix() {
    assert_eq!(
        (unset().shell_path(), unset().shell_command_prefix()),
        (None, None)
    );
    let s = user(json!({"shellPath": "/bin/zsh", "shellCommandPrefix": "set -e"}));
    assert_eq!(s.shell_path(), Some("/bin/zsh"));
    assert_eq!(s.shell_command_prefix(), Some("set -e"));
}

#[test]
fn enable_skill_commands() {
    assert!(unset().enable_skill_commands());
    assert!(!user(json!({"enableSkillCommands": false})).enable_skill_commands());
}

#[test]
fn autocomplete_max_visible_and_editor_padding_x() {
    assert_eq!(unset().autocomplete_max_visible(), 5);
    assert_eq!(unset().editor_padding_x(), 0);
    let s = user(json!({"autocompleteMaxVisible": 12, "editorPaddingX": 2}));
    assert_eq!(
        (s.autocomplete_max_visible(), s.editor_padding_x()),
        (12, 2)
    );
}
