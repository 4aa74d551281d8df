//! settings.json: global (`<agentDir>/settings.json`) overlaid by project
//! (`<cwd>/.rho/settings.json`) as pi 1.6 does it: objects merge recursively, anything else
//! replaces. A broken file counts as `{}` with a
//! warning and is never written over.

use std::path::{Path, PathBuf};

pub use rho_agent::QueueMode;
use rho_ai::ThinkingLevel;
use serde_json::{Map, Value};

/// The effective settings: the merged JSON plus where each scope lives.
#[derive(Debug, Clone, Default)]
pub struct Settings {
    merged: Map<String, Value>,
    /// The global scope alone: settings a project must not change (`sandbox`).
    global: Map<String, Value>,
    /// The project scope alone: `permissions` lists are joined across scopes, not replaced.
    project: Map<String, Value>,
    global_path: Option<PathBuf>,
    /// Problems found while reading (unparsable files), for the user.
    pub warnings: Vec<String>,
    global_broken: bool,
}

fn lookup<'a>(map: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let mut cur = map.get(parts.next()?)?;
    for p in parts {
        cur = cur.get(p)?;
    }
    Some(cur)
}

impl Settings {
    /// Reads both scopes. Missing files are empty; broken ones are `{}` plus a warning.
    pub fn load(agent_dir: &Path, project_dir: &Path) -> Settings {
        Self::load_scopes(agent_dir, Some(project_dir))
    }

    /// Like [`Settings::load`]; `None` skips the project files (an untrusted project). The
    /// project's `.pi/settings.json` is read too, under `.rho/`'s (D17).
    pub fn load_scopes(agent_dir: &Path, project_dir: Option<&Path>) -> Settings {
        let folders = crate::resources::project_dirs::folders_of(project_dir);
        Self::load_layers(agent_dir, &folders)
    }

    /// [`Settings::load`] with several project folders, highest precedence first (`.rho/`
    /// over `.pi/`, D17): each is merged over the next as project over global.
    pub fn load_layers(agent_dir: &Path, project_dirs: &[PathBuf]) -> Settings {
        let global_path = agent_dir.join("settings.json");
        let mut warnings = Vec::new();
        let (global, global_broken) = read_scope(&global_path, &mut warnings);
        let mut s = Settings::from_scopes(global, Map::new());
        s.global_path = Some(global_path);
        s.global_broken = global_broken;
        s.warnings = warnings;
        s.with_project_layers(project_dirs)
    }

    /// The global scope of these settings with the project folders `project_dirs` read over
    /// it (as [`Settings::load_layers`]): start-up reads the global file once, before the
    /// project's trust is known, and the trusted project's layers after.
    pub fn with_project_layers(&self, project_dirs: &[PathBuf]) -> Settings {
        let mut warnings = self.warnings.clone();
        let mut project = Map::new();
        for dir in project_dirs.iter().rev() {
            let (layer, _) = read_scope(&dir.join("settings.json"), &mut warnings);
            project = Settings::from_scopes(project, layer).merged;
        }
        let mut s = Settings::from_scopes(self.global.clone(), project);
        s.global_path = self.global_path.clone();
        s.global_broken = self.global_broken;
        s.warnings = warnings;
        s
    }

    /// Merges two scopes (global, then project over it) after migrating both: objects merge
    /// recursively, anything else replaces (pi 1.6's `deepMergeObjects`).
    pub fn from_scopes(global: Map<String, Value>, project: Map<String, Value>) -> Settings {
        let (global, project) = (migrate(global), migrate(project));
        let mut merged = global.clone();
        deep_merge(&mut merged, project.clone());
        if let Some(tools) = merged_default_tools(&global, &project) {
            merged.insert("defaultTools".into(), tools);
        }
        Settings {
            merged,
            global,
            project,
            ..Default::default()
        }
    }

    /// A value from the global file only, ignoring the project's (`sandbox.*`: a folder must
    /// not be able to switch off the sandbox that protects the user from it).
    pub fn global_value(&self, path: &str) -> Option<&Value> {
        lookup(&self.global, path)
    }

    /// A string list from both scopes, global first (`permissions.allow` and friends).
    pub fn joined_list(&self, path: &str) -> Vec<String> {
        [&self.global, &self.project]
            .into_iter()
            .filter_map(|scope| lookup(scope, path).and_then(Value::as_array))
            .flatten()
            .filter_map(|v| v.as_str().map(str::to_string))
            .collect()
    }

    /// The raw merged JSON.
    pub fn raw(&self) -> &Map<String, Value> {
        &self.merged
    }

    fn get(&self, path: &str) -> Option<&Value> {
        lookup(&self.merged, path)
    }

    fn bool_or(&self, path: &str, default: bool) -> bool {
        self.get(path).and_then(Value::as_bool).unwrap_or(default)
    }

    fn u64_or(&self, path: &str, default: u64) -> u64 {
        self.get(path).and_then(Value::as_u64).unwrap_or(default)
    }

    fn str(&self, path: &str) -> Option<&str> {
        self.get(path).and_then(Value::as_str)
    }

    /// `codemode.mode` (`"on"` unless `"only"`) and `codemode.inlineBudget` (estimated tokens,
    /// a finite number from 0; pi's default 3000 otherwise).
    pub fn codemode(&self) -> rho_codemode::Presentation {
        let mut p = rho_codemode::Presentation::default();
        if self.str("codemode.mode") == Some("only") {
            p.mode = rho_codemode::Mode::Only;
        }
        if let Some(budget) = self
            .get("codemode.inlineBudget")
            .and_then(Value::as_f64)
            .filter(|b| b.is_finite() && *b >= 0.0)
        {
            p.inline_budget = budget as usize;
        }
        p
    }

    /// `passProviderKeysToTools` (rho only, default false): whether tool processes (bash,
    /// `!cmd`) inherit the LLM provider key variables from rho's environment.
    pub fn pass_provider_keys_to_tools(&self) -> bool {
        self.bool_or("passProviderKeysToTools", false)
    }

    /// `retry.provider.timeoutMs`: the whole-request limit of a provider call, streaming
    /// included (`None`: the provider default, 10 minutes; 0 also means the default).
    pub fn provider_timeout(&self) -> Option<std::time::Duration> {
        self.get("retry.provider.timeoutMs")
            .and_then(Value::as_u64)
            .filter(|&ms| ms > 0)
            .map(std::time::Duration::from_millis)
    }

    /// `thinkingBudgets`: token budgets for `minimal`, `low`, `medium` and `high` on the APIs
    /// that take a budget (a level not given keeps the provider's default).
    pub fn thinking_budgets(&self) -> rho_ai::options::ThinkingBudgets {
        let level = |name: &str| {
            self.get(&format!("thinkingBudgets.{name}"))
                .and_then(Value::as_f64)
                .filter(|n| n.is_finite() && *n >= 0.0)
                .map(|n| n as u64)
        };
        rho_ai::options::ThinkingBudgets {
            minimal: level("minimal"),
            low: level("low"),
            medium: level("medium"),
            high: level("high"),
        }
    }

    /// `httpIdleTimeoutMs`: the longest wait for response headers or the next stream event
    /// (`None`: the default, 5 minutes). `0` or `"disabled"` turn it off.
    pub fn http_idle_timeout(&self) -> Option<std::time::Duration> {
        /// "Never" without overflowing deadline arithmetic (about 136 years).
        const NEVER: std::time::Duration = std::time::Duration::from_secs(u32::MAX as u64);
        match self.get("httpIdleTimeoutMs") {
            Some(Value::String(s)) if s == "disabled" => Some(NEVER),
            Some(v) => match v.as_u64() {
                Some(0) => Some(NEVER),
                Some(ms) => Some(std::time::Duration::from_millis(ms)),
                None => None,
            },
            None => None,
        }
    }

    /// `defaultProvider`.
    pub fn default_provider(&self) -> Option<&str> {
        self.str("defaultProvider")
    }
    /// `defaultModel`.
    pub fn default_model(&self) -> Option<&str> {
        self.str("defaultModel")
    }
    /// `defaultThinkingLevel` (unset → `medium`).
    pub fn default_thinking_level(&self) -> ThinkingLevel {
        self.chosen_thinking_level()
            .unwrap_or(ThinkingLevel::Medium)
    }
    /// `defaultThinkingLevel` when the settings set one (pi 1.x keeps the current level on
    /// a model switch otherwise).
    pub fn chosen_thinking_level(&self) -> Option<ThinkingLevel> {
        self.str("defaultThinkingLevel")
            .and_then(ThinkingLevel::parse)
    }
    /// pi 1.x's `modelThinkingLevels["<provider>/<id>"]`: the level a model starts with.
    pub fn model_thinking_level(&self, provider: &str, id: &str) -> Option<ThinkingLevel> {
        let levels = self.get("modelThinkingLevels")?;
        levels[format!("{provider}/{id}").as_str()]
            .as_str()
            .and_then(ThinkingLevel::parse)
    }
    /// `steeringMode`.
    pub fn steering_mode(&self) -> QueueMode {
        self.str("steeringMode")
            .and_then(QueueMode::parse)
            .unwrap_or_default()
    }
    /// `followUpMode`.
    pub fn follow_up_mode(&self) -> QueueMode {
        self.str("followUpMode")
            .and_then(QueueMode::parse)
            .unwrap_or_default()
    }
    /// `compaction.enabled` (true).
    pub fn compaction_enabled(&self) -> bool {
        self.bool_or("compaction.enabled", true)
    }
    /// `compaction.reserveTokens` (16384).
    pub fn compaction_reserve_tokens(&self) -> u64 {
        self.u64_or("compaction.reserveTokens", 16_384)
    }
    /// `compaction.keepRecentTokens` (20000).
    pub fn compaction_keep_recent_tokens(&self) -> u64 {
        self.u64_or("compaction.keepRecentTokens", 20_000)
    }
    /// `branchSummary.reserveTokens` (16384).
    pub fn branch_summary_reserve_tokens(&self) -> u64 {
        self.u64_or("branchSummary.reserveTokens", 16_384)
    }
    /// `branchSummary.skipPrompt` (false): `/tree` does not ask whether to summarize the
    /// branch being left, and does not.
    pub fn branch_summary_skip_prompt(&self) -> bool {
        self.bool_or("branchSummary.skipPrompt", false)
    }
    /// The `retry.*` settings (RETRY-1), parsed by `rho_ai::retry`.
    pub fn retry(&self) -> rho_ai::retry::RetrySettings {
        let retry = self.merged.get("retry").cloned().unwrap_or(Value::Null);
        rho_ai::retry::RetrySettings::from_settings(&serde_json::json!({ "retry": retry }))
    }
    /// The `compaction.*` settings (COMP-1).
    pub fn compaction(&self) -> rho_compaction::CompactionSettings {
        self.compaction_for(None)
    }
    /// The `compaction.*` settings for `model`: each of `reserveTokens` and
    /// `keepRecentTokens` from `compaction.modelOverrides["<provider>/<id>"]`, else the
    /// ordinary setting, else the default (pi 1.6); `enabled` stays global.
    pub fn compaction_for(
        &self,
        model: Option<&rho_ai::Model>,
    ) -> rho_compaction::CompactionSettings {
        let key = model.map(|m| format!("{}/{}", m.provider, m.id));
        let overridden = |field: &str| {
            key.as_ref().and_then(|k| {
                self.get("compaction.modelOverrides")?
                    .get(k.as_str())?
                    .get(field)?
                    .as_u64()
            })
        };
        rho_compaction::CompactionSettings {
            enabled: self.compaction_enabled(),
            reserve_tokens: overridden("reserveTokens")
                .unwrap_or_else(|| self.compaction_reserve_tokens()),
            keep_recent_tokens: overridden("keepRecentTokens")
                .unwrap_or_else(|| self.compaction_keep_recent_tokens()),
        }
    }
    /// `quietStartup`: `(hide the banner, hide the loaded-resource listing)`: `true` hides
    /// both, `"header"` only the listing (pi 1.6).
    pub fn quiet_startup(&self) -> (bool, bool) {
        match self.get("quietStartup") {
            Some(Value::Bool(true)) => (true, true),
            Some(Value::String(s)) if s == "header" => (false, true),
            _ => (false, false),
        }
    }
    /// `httpProxy` of the global settings only (a project must not reroute the user's
    /// traffic): applied as `HTTP_PROXY`/`HTTPS_PROXY` when those are unset.
    pub fn http_proxy(&self) -> Option<&str> {
        self.global_value("httpProxy")
            .and_then(Value::as_str)
            .filter(|p| !p.trim().is_empty())
    }
    /// `autocompleteMaxVisible` (5): the autocomplete entries shown at once (the editor
    /// keeps it within pi's 3 to 20).
    pub fn autocomplete_max_visible(&self) -> u64 {
        self.u64_or("autocompleteMaxVisible", 5)
    }
    /// `editorPaddingX` (0): the editor's horizontal padding in cells (the editor keeps it
    /// within pi's 0 to 3).
    pub fn editor_padding_x(&self) -> u64 {
        self.u64_or("editorPaddingX", 0)
    }
    /// `hideThinkingBlock` (false).
    pub fn hide_thinking_block(&self) -> bool {
        self.bool_or("hideThinkingBlock", false)
    }
    /// `shellPath`.
    pub fn shell_path(&self) -> Option<&str> {
        self.str("shellPath")
    }
    /// `shellCommandPrefix`.
    pub fn shell_command_prefix(&self) -> Option<&str> {
        self.str("shellCommandPrefix")
    }
    /// `rpcDialect`: the pi release whose RPC and JSON event shapes rho speaks.
    pub fn rpc_dialect(&self) -> Option<&str> {
        self.str("rpcDialect")
    }
    /// `sessionDir`.
    pub fn session_dir(&self) -> Option<&str> {
        self.str("sessionDir")
    }
    /// `images.autoResize` (true): `read` shrinks images over 2000×2000 before they reach a
    /// model.
    pub fn auto_resize_images(&self) -> bool {
        self.bool_or("images.autoResize", true)
    }
    /// `images.blockImages` (false).
    pub fn block_images(&self) -> bool {
        self.bool_or("images.blockImages", false)
    }
    /// `enableSkillCommands` (true).
    pub fn enable_skill_commands(&self) -> bool {
        self.bool_or("enableSkillCommands", true)
    }
    /// `theme`.
    pub fn theme(&self) -> Option<&str> {
        self.str("theme")
    }
    /// `externalEditor`: the command Ctrl+G runs (a blank value counts as unset).
    pub fn external_editor(&self) -> Option<&str> {
        self.str("externalEditor").filter(|s| !s.trim().is_empty())
    }
    /// `doubleEscapeAction`: what Escape twice on an empty editor opens (`tree`, pi's default;
    /// `fork`; `none`).
    pub fn double_escape_action(&self) -> &str {
        match self.str("doubleEscapeAction") {
            Some(action @ ("fork" | "none")) => action,
            _ => "tree",
        }
    }
    /// `treeFilterMode`: the filter `/tree` opens with (`default`, `no-tools`, `user-only`,
    /// `labeled-only`, `all`; pi's default `default`).
    pub fn tree_filter_mode(&self) -> &str {
        match self.str("treeFilterMode") {
            Some(mode @ ("no-tools" | "user-only" | "labeled-only" | "all")) => mode,
            _ => "default",
        }
    }
    /// A string array setting (`extensions`, `skills`, `prompts`, `themes`, `enabledModels`).
    pub fn string_list(&self, key: &str) -> Vec<String> {
        self.get(key)
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(|v| v.as_str().map(str::to_string))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Sets a top-level key in the global file: the file is re-read and merged key by key so
    /// concurrent edits to other keys survive; the in-memory view is updated too. Refuses to
    /// write over a global file that failed to parse.
    pub fn set_global(&mut self, key: &str, value: Value) -> Result<(), SettingsError> {
        self.merged.insert(key.to_string(), value.clone());
        let Some(path) = self.global_path.clone() else {
            return Ok(());
        };
        if self.global_broken {
            return Err(SettingsError::Broken(path));
        }
        set_in_file(&path, key, value)
    }
}

/// Sets top-level `key` in the settings file `path` (created when missing): the file is
/// re-read so concurrent edits to other keys survive, and only this key's text changes.
/// Refuses to write over a file that is not a JSON object.
pub fn set_in_file(path: &Path, key: &str, value: Value) -> Result<(), SettingsError> {
    let text = match std::fs::read_to_string(path) {
        Ok(current) => {
            if serde_json::from_str::<Map<String, Value>>(&current).is_err() {
                return Err(SettingsError::Broken(path.to_path_buf()));
            }
            // The user's text with only this key changed; a valid object the editor
            // cannot place a key in is written anew.
            crate::settings_edit::set_top_level(&current, key, &value)
                .unwrap_or_else(|| rewritten(&current, key, value))
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => rewritten("{}", key, value),
        Err(e) => return Err(SettingsError::Write(path.to_path_buf(), e)),
    };
    let write_error = |e| SettingsError::Write(path.to_path_buf(), e);
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(write_error)?;
    }
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text)
        .and_then(|_| std::fs::rename(&tmp, path))
        .map_err(write_error)
}

/// pi 1.6's `defaultTools` across layers: a project list of only `+name`/`-name` entries is
/// appended to the user's (it edits that selection); any other replaces it.
fn merged_default_tools(
    global: &Map<String, Value>,
    project: &Map<String, Value>,
) -> Option<Value> {
    let (Some(Value::Array(base)), Some(Value::Array(over))) =
        (global.get("defaultTools"), project.get("defaultTools"))
    else {
        return None;
    };
    let edits_only = over.iter().all(|e| {
        e.as_str()
            .is_some_and(|t| t.starts_with('+') || t.starts_with('-'))
    });
    edits_only.then(|| Value::Array(base.iter().chain(over).cloned().collect()))
}

/// `over` merged into `base`: objects key by key, recursively; anything else replaces.
fn deep_merge(base: &mut Map<String, Value>, over: Map<String, Value>) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(Value::Object(b)), Value::Object(o)) => deep_merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// One settings file's object, `{}` when it is missing or unusable (its warning comes from
/// [`Settings::load`]): for what is read per file rather than merged (`packages`).
pub fn file_scope(path: &Path) -> Map<String, Value> {
    read_scope(path, &mut Vec::new()).0
}

/// `text` (a JSON object) re-serialized with `key` set, ending in a newline.
fn rewritten(text: &str, key: &str, value: Value) -> String {
    let mut map: Map<String, Value> = serde_json::from_str(text).unwrap_or_default();
    map.insert(key.to_string(), value);
    serde_json::to_string_pretty(&map).unwrap_or_else(|_| "{}".into()) + "\n"
}

/// Why settings could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// The file on disk is not valid JSON; it is left alone.
    #[error("{0} is not valid JSON; fix or delete it before rho can save settings")]
    Broken(PathBuf),
    /// The write failed.
    #[error("cannot write {0}: {1}")]
    Write(PathBuf, #[source] std::io::Error),
}

/// A settings.json text that is not a JSON object.
#[derive(Debug, thiserror::Error)]
#[error("invalid JSON ({0})")]
pub struct InvalidSettings(#[source] serde_json::Error);

fn read_scope(path: &Path, warnings: &mut Vec<String>) -> (Map<String, Value>, bool) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Map::new(), false),
        Err(e) => {
            // An unreadable file (permissions, a directory, not UTF-8) must not pass silently:
            // the user's settings would be ignored without a word (issue 17 #6).
            warnings.push(format!(
                "{}: cannot read ({e}); using defaults",
                path.display()
            ));
            return (Map::new(), true);
        }
    };
    match parse_scope(&text) {
        Ok(m) => (m, false),
        Err(e) => {
            warnings.push(format!("{}: {e}; using defaults", path.display()));
            (Map::new(), true)
        }
    }
}

/// Parses one settings.json text: a JSON object, else an error naming what is wrong.
pub fn parse_scope(text: &str) -> Result<Map<String, Value>, InvalidSettings> {
    serde_json::from_str::<Map<String, Value>>(text).map_err(InvalidSettings)
}

/// pi's read-time migrations: `queueMode` → `steeringMode`; boolean `websockets` → `transport`;
/// object `skills` → `enableSkillCommands` + array; `retry.maxDelayMs` →
/// `retry.provider.maxRetryDelayMs`.
fn migrate(mut m: Map<String, Value>) -> Map<String, Value> {
    if let Some(q) = m.remove("queueMode") {
        m.entry("steeringMode").or_insert(q);
    }
    if let Some(Value::Bool(ws)) = m.get("websockets").cloned() {
        m.remove("websockets");
        m.entry("transport")
            .or_insert_with(|| Value::String(if ws { "websocket" } else { "sse" }.into()));
    }
    if let Some(Value::Object(skills)) = m.get("skills").cloned() {
        m.remove("skills");
        if let Some(e) = skills.get("enableSkillCommands") {
            m.entry("enableSkillCommands").or_insert(e.clone());
        }
        let dirs = skills
            .get("customDirectories")
            .cloned()
            .unwrap_or(Value::Array(vec![]));
        m.insert("skills".into(), dirs);
    }
    if let Some(Value::Object(retry)) = m.get_mut("retry") {
        if let Some(d) = retry.remove("maxDelayMs") {
            let provider = retry
                .entry("provider")
                .or_insert_with(|| Value::Object(Map::new()));
            if let Value::Object(p) = provider {
                p.entry("maxRetryDelayMs").or_insert(d);
            }
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().expect("object")
    }

    /// Start-up reads the global file once and the trusted project's layers later: the same
    /// settings as reading both at once, the global file's problems reported once.
    #[test]
    fn project_layers_over_global_settings_read_before() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (agent, rho, pi) = (
            tmp.path().join("a"),
            tmp.path().join(".rho"),
            tmp.path().join(".pi"),
        );
        for (dir, text) in [
            (
                &agent,
                r#"{"theme": "light", "queueMode": "all", "permissions": {"allow": ["g"]}}"#,
            ),
            (
                &rho,
                r#"{"theme": "dark", "permissions": {"allow": ["r"]}}"#,
            ),
            (&pi, "not json"),
        ] {
            std::fs::create_dir_all(dir).expect("mkdir");
            std::fs::write(dir.join("settings.json"), text).expect("write");
        }
        let layers = [rho.clone(), pi.clone()];
        let global = Settings::load_scopes(&agent, None);
        assert_eq!(global.theme(), Some("light"));
        let over = global.with_project_layers(&layers);
        let both = Settings::load_layers(&agent, &layers);
        assert_eq!(over.raw(), both.raw());
        assert_eq!(over.theme(), Some("dark"));
        assert_eq!(over.joined_list("permissions.allow"), ["g", "r"]);
        assert_eq!(over.global_value("theme"), Some(&json!("light")));
        assert_eq!(over.warnings, both.warnings);
        assert_eq!(over.warnings.len(), 1, "{:?}", over.warnings);
    }

    #[test]
    fn project_objects_merge_one_level_and_scalars_replace() {
        let s = Settings::from_scopes(
            obj(
                json!({"compaction": {"enabled": false, "reserveTokens": 100}, "skills": ["a"], "theme": "light"}),
            ),
            obj(json!({"compaction": {"reserveTokens": 200}, "skills": ["b"]})),
        );
        assert!(!s.compaction_enabled());
        assert_eq!(s.compaction_reserve_tokens(), 200);
        assert_eq!(s.string_list("skills"), ["b"]);
        assert_eq!(s.theme(), Some("light"));
    }

    /// pi 1.6: objects merge recursively, so a global model override survives a project's
    /// other overrides; an override beats the ordinary value field by field.
    #[test]
    fn compaction_model_overrides_resolve_field_by_field() {
        let s = Settings::from_scopes(
            obj(
                json!({"compaction": {"reserveTokens": 100, "modelOverrides": {
                "p/big": {"reserveTokens": 400000}}}}),
            ),
            obj(
                json!({"compaction": {"keepRecentTokens": 5, "modelOverrides": {
                "p/other": {"keepRecentTokens": 7}}}}),
            ),
        );
        let model = |id: &str| -> rho_ai::Model {
            serde_json::from_value(json!({"id": id, "name": id, "api": "openai-completions",
                "provider": "p", "baseUrl": "http://x"}))
            .expect("model")
        };
        let big = s.compaction_for(Some(&model("big")));
        assert_eq!((big.reserve_tokens, big.keep_recent_tokens), (400_000, 5));
        let other = s.compaction_for(Some(&model("other")));
        assert_eq!((other.reserve_tokens, other.keep_recent_tokens), (100, 7));
        let plain = s.compaction_for(Some(&model("small")));
        assert_eq!((plain.reserve_tokens, plain.keep_recent_tokens), (100, 5));
        assert_eq!(s.compaction(), plain);
    }

    #[test]
    fn a_projects_tool_edits_apply_to_the_users_default_tools() {
        let merged = |user: Value, project: Value| {
            Settings::from_scopes(obj(user), obj(project)).raw()["defaultTools"].clone()
        };
        assert_eq!(
            merged(
                json!({"defaultTools": ["read", "+grep"]}),
                json!({"defaultTools": ["-read", "+ls"]})
            ),
            json!(["read", "+grep", "-read", "+ls"])
        );
        assert_eq!(
            merged(
                json!({"defaultTools": ["read"]}),
                json!({"defaultTools": ["bash"]})
            ),
            json!(["bash"])
        );
        assert_eq!(
            merged(json!({}), json!({"defaultTools": ["+ls"]})),
            json!(["+ls"])
        );
    }

    #[test]
    fn switches_default_as_in_pi() {
        let d = Settings::default();
        assert!(!d.branch_summary_skip_prompt() && d.auto_resize_images());
        let s = Settings::from_scopes(
            obj(json!({"branchSummary": {"skipPrompt": true}, "images": {"autoResize": false}})),
            obj(json!({"images": {"blockImages": true}})),
        );
        assert!(s.branch_summary_skip_prompt());
        assert!(
            !s.auto_resize_images(),
            "the project's images object merges, not replaces"
        );
        assert!(s.block_images());
    }

    #[test]
    fn quiet_startup_and_the_proxy_read_as_pi_reads_them() {
        let s = |v: Value, p: Value| Settings::from_scopes(obj(v), obj(p));
        assert_eq!(
            s(json!({"quietStartup": true}), json!({})).quiet_startup(),
            (true, true)
        );
        assert_eq!(
            s(json!({"quietStartup": "header"}), json!({})).quiet_startup(),
            (false, true)
        );
        assert_eq!(Settings::default().quiet_startup(), (false, false));
        let proxy = s(json!({"httpProxy": "http://p:3128"}), json!({}));
        assert_eq!(proxy.http_proxy(), Some("http://p:3128"));
        let project = s(json!({}), json!({"httpProxy": "http://evil:1"}));
        assert_eq!(project.http_proxy(), None, "agent-dir settings only");
    }

    #[test]
    fn defaults_when_unset() {
        let s = Settings::default();
        assert!(s.compaction_enabled());
        assert_eq!(s.compaction_reserve_tokens(), 16_384);
        assert_eq!(s.compaction_keep_recent_tokens(), 20_000);
        assert_eq!(s.retry().max_retries, 3);
        assert_eq!(s.retry().base_delay_ms, 2000);
        assert_eq!(s.default_thinking_level(), ThinkingLevel::Medium);
        assert_eq!(s.steering_mode(), QueueMode::OneAtATime);
    }

    #[test]
    fn migrations_on_read() {
        let s = Settings::from_scopes(
            obj(json!({"queueMode": "all", "websockets": true,
                       "skills": {"enableSkillCommands": false, "customDirectories": ["~/s"]},
                       "retry": {"maxDelayMs": 5}})),
            Map::new(),
        );
        assert_eq!(s.steering_mode(), QueueMode::All);
        assert_eq!(s.raw()["transport"], "websocket");
        assert!(!s.enable_skill_commands());
        assert_eq!(s.string_list("skills"), ["~/s"]);
        assert_eq!(s.retry().max_retry_delay_ms, 5);
    }

    #[test]
    fn broken_file_warns_and_is_never_overwritten() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let agent = tmp.path().join("agent");
        std::fs::create_dir_all(&agent).expect("mkdir");
        std::fs::write(agent.join("settings.json"), "{ not json").expect("write");
        let mut s = Settings::load(&agent, &tmp.path().join(".rho"));
        assert_eq!(s.warnings.len(), 1);
        assert!(matches!(
            s.set_global("theme", json!("dark")),
            Err(SettingsError::Broken(_))
        ));
        assert_eq!(
            std::fs::read_to_string(agent.join("settings.json")).expect("read"),
            "{ not json"
        );
    }

    #[test]
    fn unreadable_file_warns_naming_it_and_is_never_overwritten() {
        // Issue 17 #6: a settings.json that exists but cannot be read (here a directory; root
        // ignores permission bits) must give a warning, not silently fall back to defaults.
        let tmp = tempfile::tempdir().expect("tempdir");
        let agent = tmp.path().join("agent");
        std::fs::create_dir_all(agent.join("settings.json")).expect("mkdir");
        let mut s = Settings::load(&agent, &tmp.path().join(".rho"));
        assert_eq!(s.warnings.len(), 1, "{:?}", s.warnings);
        assert!(s.warnings[0].contains("settings.json: cannot read ("));
        assert!(s.set_global("theme", json!("dark")).is_err());
        assert!(agent.join("settings.json").is_dir());
    }

    #[test]
    fn global_writes_keep_concurrent_edits() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let agent = tmp.path().to_path_buf();
        let mut s = Settings::load(&agent, &tmp.path().join(".rho"));
        std::fs::write(agent.join("settings.json"), r#"{"theme":"light"}"#).expect("write");
        s.set_global("defaultModel", json!("gpt-5"))
            .expect("writes");
        let on_disk: Value = serde_json::from_str(
            &std::fs::read_to_string(agent.join("settings.json")).expect("read"),
        )
        .expect("json");
        assert_eq!(on_disk, json!({"theme": "light", "defaultModel": "gpt-5"}));
        assert_eq!(s.default_model(), Some("gpt-5"));
    }

    /// Issue 18.7: a user's file keeps its key order, indentation and untouched values;
    /// only the key set changes.
    #[test]
    fn global_writes_keep_the_users_order_and_formatting() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let agent = tmp.path().to_path_buf();
        let file = agent.join("settings.json");
        let original = "{\n    \"theme\": \"light\",\n    \"packages\": [\"a\",  \"b\"],\n    \"defaultModel\": \"m1\",\n    \"compaction\": {\"enabled\": true}\n}\n";
        std::fs::write(&file, original).expect("write");
        let mut s = Settings::load(&agent, &tmp.path().join(".rho"));
        s.set_global("defaultModel", json!("m2")).expect("writes");
        let changed = original.replace("\"m1\"", "\"m2\"");
        assert_eq!(std::fs::read_to_string(&file).expect("read"), changed);
        s.set_global("steeringMode", json!("all")).expect("writes");
        let added = changed.replace(
            "{\"enabled\": true}\n}",
            "{\"enabled\": true},\n    \"steeringMode\": \"all\"\n}",
        );
        assert_eq!(std::fs::read_to_string(&file).expect("read"), added);
        s.set_global("retry", json!({"enabled": false, "maxRetries": 2}))
            .expect("writes");
        let nested = added.replace(
            "\"all\"\n}",
            "\"all\",\n    \"retry\": {\n      \"enabled\": false,\n      \"maxRetries\": 2\n    }\n}",
        );
        assert_eq!(std::fs::read_to_string(&file).expect("read"), nested);
    }
}
