//! `mcpServers` configuration as pi 1.6 reads it: user servers in `<agent dir>/mcp.json`, project
//! servers in `<project>/.mcp.json` (Claude Code's file), `<project>/.pi/mcp.json` and
//! `<project>/.rho/mcp.json`, later files winning. A project entry replaces a user entry of the
//! same name; a project entry without `command`/`url`/`type` only overrides `enabled`,
//! `exposure` and `toolExposure`. Invalid entries are reported and skipped.

use std::path::{Path, PathBuf};

use crate::error::{ConfigError, ExposureError};
use crate::naming::namespace;
use crate::ordered::Json;

/// Default per-request timeout, seconds.
pub const DEFAULT_TIMEOUT_SECS: f64 = 60.0;

pub(crate) const OVERRIDE_KEYS: [&str; 3] = ["enabled", "exposure", "toolExposure"];

/// How a server's tools reach the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exposure {
    /// Declared to the model like a built-in tool.
    Direct,
    /// Declared once `tool_search` loads it.
    Deferred,
    /// pi's default: callable from `codemode` scripts, not declared, and loadable by
    /// `tool_search` too.
    Codemode,
    /// Registered, never reachable.
    Hidden,
}

impl Exposure {
    /// Parses a configured value (`codemode-deferred` is an alias of `codemode`).
    pub fn parse(text: &str) -> Option<Exposure> {
        match text {
            "direct" => Some(Exposure::Direct),
            "deferred" => Some(Exposure::Deferred),
            "codemode" | "codemode-deferred" => Some(Exposure::Codemode),
            "hidden" => Some(Exposure::Hidden),
            _ => None,
        }
    }

    /// The configured name.
    pub fn as_str(self) -> &'static str {
        match self {
            Exposure::Direct => "direct",
            Exposure::Deferred => "deferred",
            Exposure::Codemode => "codemode",
            Exposure::Hidden => "hidden",
        }
    }

    /// Reachable through `tool_search` and codemode scripts without being declared.
    pub fn is_searchable(self) -> bool {
        matches!(self, Exposure::Deferred | Exposure::Codemode)
    }
}

/// How rho talks to a server.
#[derive(Debug, Clone, PartialEq)]
pub enum Transport {
    /// A child process speaking JSON-RPC lines on stdin/stdout.
    Stdio {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        cwd: Option<String>,
    },
    /// Streamable HTTP.
    Http {
        url: String,
        headers: Vec<(String, String)>,
        /// `oauth` settings (a registered client, the redirect, scopes).
        oauth: Option<crate::oauth::settings::OAuthSettings>,
    },
}

/// Where a server entry was read from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    User,
    Project,
    /// Registered by an extension for this session (pi's `registerMcpServer`); `source` is
    /// the extension's file, and nothing about it is saved.
    Extension,
}

impl Scope {
    /// The scope as pi's listings name it (`/mcp`, `rho mcp list --json`, the status).
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::User => "global",
            Scope::Project => "project",
            Scope::Extension => "extension",
        }
    }
}

/// One validated server entry.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerConfig {
    pub name: String,
    pub transport: Transport,
    pub timeout_secs: f64,
    pub enabled: bool,
    pub description: Option<String>,
    pub exposure: Exposure,
    /// `toolExposure` in file order: exact names win, then the first matching pattern.
    pub tool_exposure: Vec<(String, Exposure)>,
    /// The file that defines it.
    pub source: PathBuf,
    /// The project file that overrides it, if any.
    pub override_source: Option<PathBuf>,
    pub scope: Scope,
    /// The entry as written (for overrides).
    raw: Json,
}

impl ServerConfig {
    /// The exposure of one server tool.
    pub fn tool_exposure(&self, tool: &str) -> Exposure {
        if let Some((_, e)) = self.tool_exposure.iter().find(|(k, _)| k == tool) {
            return *e;
        }
        self.tool_exposure
            .iter()
            .find(|(k, _)| k.contains('*') && pattern_matches(k, tool))
            .map(|(_, e)| *e)
            .unwrap_or(self.exposure)
    }

    /// The first line of the description, for listings.
    pub fn summary(&self) -> Option<&str> {
        self.description
            .as_deref()
            .and_then(|d| d.trim().lines().next())
    }
}

/// Every server plus the problems met while reading.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpConfig {
    pub servers: Vec<ServerConfig>,
    pub errors: Vec<String>,
    /// `autoEnableCodemode` beside `mcpServers` (a later file wins): `false` keeps servers
    /// with `codemode` exposure from turning the `codemode` tool on.
    pub auto_enable_codemode: Option<bool>,
}

impl McpConfig {
    /// True when no file names any server (nothing MCP runs).
    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }
}

/// The files read, in order: user, then project files (later ones win).
pub fn config_files(agent_dir: &Path, cwd: &Path) -> Vec<(PathBuf, Scope)> {
    vec![
        (agent_dir.join("mcp.json"), Scope::User),
        (cwd.join(".mcp.json"), Scope::Project),
        (cwd.join(".pi").join("mcp.json"), Scope::Project),
        (cwd.join(".rho").join("mcp.json"), Scope::Project),
    ]
}

/// Loads every configured server. Missing files are fine; broken ones are reported.
pub fn load(agent_dir: &Path, cwd: &Path) -> McpConfig {
    load_trusted(agent_dir, cwd, true)
}

/// Loads the user's servers and, only when the project is trusted, the project's: a folder the
/// user has not trusted must not start processes of its choosing.
pub fn load_trusted(agent_dir: &Path, cwd: &Path, project_trusted: bool) -> McpConfig {
    let mut config = McpConfig::default();
    for (path, scope) in config_files(agent_dir, cwd) {
        if project_trusted || scope == Scope::User {
            read_file(&path, scope, &mut config);
        }
    }
    config
}

fn read_file(path: &Path, scope: Scope, config: &mut McpConfig) {
    let Ok(text) = std::fs::read_to_string(path) else {
        return;
    };
    let shown = path.display();
    let parsed = match Json::parse(text.trim_start_matches('\u{feff}')) {
        Ok(p) => p,
        Err(e) => {
            config.errors.push(format!("{shown}: {e}"));
            return;
        }
    };
    if let Some(Json::Bool(b)) = parsed.get("autoEnableCodemode") {
        config.auto_enable_codemode = Some(*b);
    }
    let servers = match parsed.get("mcpServers") {
        None if parsed.as_object().is_some() => return,
        Some(Json::Object(entries)) if parsed.as_object().is_some() => entries.clone(),
        _ => {
            config.errors.push(format!(
                "{shown}: expected an object with an \"mcpServers\" object"
            ));
            return;
        }
    };
    for (name, value) in servers {
        if let Err(e) = add_entry(&name, value, path, scope, config) {
            config.errors.push(format!("{shown}: {e}"));
        }
    }
}

fn add_entry(
    name: &str,
    value: Json,
    path: &Path,
    scope: Scope,
    config: &mut McpConfig,
) -> Result<(), ConfigError> {
    if scope == Scope::Project && is_override(&value) {
        let Some(base) = config.servers.iter_mut().find(|s| s.name == name) else {
            return Err(ConfigError::NothingToOverride(name.to_string()));
        };
        let entries = value.as_object().unwrap_or_default();
        if entries
            .iter()
            .any(|(k, _)| !OVERRIDE_KEYS.contains(&k.as_str()))
        {
            return Err(ConfigError::OverrideKey(name.to_string()));
        }
        let mut merged = base.raw.clone();
        for (k, v) in entries {
            merged.set(k, v.clone());
        }
        let mut updated = validate(name, merged, &base.source, base.scope)?;
        updated.override_source = Some(path.to_path_buf());
        *base = updated;
        return Ok(());
    }
    let server = validate(name, value, path, scope)?;
    let ns = namespace(name);
    if let Some(clash) = config
        .servers
        .iter()
        .find(|s| s.name != name && namespace(&s.name) == ns)
    {
        return Err(ConfigError::Conflict {
            name: name.to_string(),
            other: clash.name.clone(),
        });
    }
    match config.servers.iter_mut().find(|s| s.name == name) {
        Some(existing) => *existing = server,
        None => config.servers.push(server),
    }
    Ok(())
}

/// The server an extension at `extension_path` registers (pi's `registerMcpServer`), validated
/// as an mcp.json entry; the error text is pi's.
pub fn registered(
    name: &str,
    config: &serde_json::Value,
    extension_path: &str,
) -> Result<ServerConfig, ConfigError> {
    validate(
        name,
        Json::from_value(config),
        Path::new(extension_path),
        Scope::Extension,
    )
}

/// An entry without `command`, `url` or `type` overrides a server defined elsewhere.
fn is_override(value: &Json) -> bool {
    value.as_object().is_some()
        && value.get("command").is_none()
        && value.get("url").is_none()
        && value.get("type").is_none()
}

/// Validates one entry with pi's rules and texts.
pub fn validate(
    name: &str,
    raw: Json,
    source: &Path,
    scope: Scope,
) -> Result<ServerConfig, ConfigError> {
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        return Err(ConfigError::InvalidName(name.to_string()));
    }
    if raw.as_object().is_none() {
        return Err(ConfigError::NotObject(name.to_string()));
    }
    let fail = |problem| ConfigError::Field {
        name: name.to_string(),
        problem,
    };
    let enabled = match raw.get("enabled") {
        None => true,
        Some(Json::Bool(b)) => *b,
        Some(_) => return Err(fail("enabled must be a boolean")),
    };
    let description = match raw.get("description") {
        None => None,
        Some(Json::String(s)) => Some(s.clone()),
        Some(_) => return Err(fail("description must be a string")),
    };
    let timeout_secs = match raw.get("timeout") {
        None => DEFAULT_TIMEOUT_SECS,
        Some(Json::Number(n)) if n.as_f64().is_some_and(|t| t > 0.0) => {
            n.as_f64().unwrap_or(DEFAULT_TIMEOUT_SECS)
        }
        Some(_) => return Err(fail("timeout must be a positive number of seconds")),
    };
    let transport = transport(name, &raw)?;
    let (exposure, tool_exposure) = exposures(&raw).map_err(|source| ConfigError::Exposure {
        name: name.to_string(),
        source,
    })?;
    Ok(ServerConfig {
        name: name.to_string(),
        transport,
        timeout_secs,
        enabled,
        description,
        exposure,
        tool_exposure,
        source: source.to_path_buf(),
        override_source: None,
        scope,
        raw,
    })
}

fn transport(name: &str, raw: &Json) -> Result<Transport, ConfigError> {
    let fail = |problem| ConfigError::Field {
        name: name.to_string(),
        problem,
    };
    let kind = raw.get("type").and_then(Json::as_str);
    if kind == Some("sse") {
        return Err(fail(
            "legacy SSE transport is not supported; use the streamable HTTP URL",
        ));
    }
    if let (Some(url), None | Some("http" | "streamable-http")) =
        (raw.get("url").and_then(Json::as_str), kind)
    {
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(fail("url must be an http or https URL"));
        }
        let headers = string_map(raw.get("headers"))
            .ok_or_else(|| fail("headers must map names to strings"))?;
        let oauth = crate::oauth::settings::parse(raw.get("oauth")).map_err(fail)?;
        return Ok(Transport::Http {
            url: url.to_string(),
            headers,
            oauth,
        });
    }
    if let (Some(command), None | Some("stdio")) = (raw.get("command").and_then(Json::as_str), kind)
    {
        let args = match raw.get("args") {
            None => Vec::new(),
            Some(Json::Array(items)) => items
                .iter()
                .map(|a| a.as_str().map(str::to_string))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| fail("args must be an array of strings"))?,
            Some(_) => return Err(fail("args must be an array of strings")),
        };
        let env =
            string_map(raw.get("env")).ok_or_else(|| fail("env must map names to strings"))?;
        let cwd = match raw.get("cwd") {
            None => None,
            Some(Json::String(s)) => Some(s.clone()),
            Some(_) => return Err(fail("cwd must be a string")),
        };
        return Ok(Transport::Stdio {
            command: command.to_string(),
            args,
            env,
            cwd,
        });
    }
    Err(ConfigError::NoTransport(name.to_string()))
}

fn string_map(value: Option<&Json>) -> Option<Vec<(String, String)>> {
    match value {
        None => Some(Vec::new()),
        Some(Json::Object(entries)) => entries
            .iter()
            .map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())))
            .collect(),
        Some(_) => None,
    }
}

type Exposures = (Exposure, Vec<(String, Exposure)>);

fn exposures(raw: &Json) -> Result<Exposures, ExposureError> {
    let exposure = match raw.get("exposure") {
        None => Exposure::Codemode,
        Some(v) => v
            .as_str()
            .and_then(Exposure::parse)
            .ok_or(ExposureError::Server)?,
    };
    let tools = match raw.get("toolExposure") {
        None => Vec::new(),
        Some(Json::Object(entries)) => entries
            .iter()
            .map(|(tool, v)| {
                v.as_str()
                    .and_then(Exposure::parse)
                    .map(|e| (tool.clone(), e))
                    .ok_or_else(|| ExposureError::Tool(tool.clone()))
            })
            .collect::<Result<Vec<_>, _>>()?,
        Some(_) => return Err(ExposureError::NotMap),
    };
    Ok((exposure, tools))
}

/// Whether `name` matches `pattern`, where `*` matches any characters (`--tools`,
/// `toolExposure`).
pub fn pattern_matches(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    true
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
