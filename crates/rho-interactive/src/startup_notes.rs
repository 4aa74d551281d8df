//! What the screen says under the banner when it opens, as pi does: the loaded context files,
//! skills, prompt templates and extensions (one compact line each), and a warning naming what
//! to do when no model can be used.

use std::path::Path;

use rho_core::agent_session::{AgentSession, AuthStatus};
use rho_tui::Theme;

/// `[Context]`, `[Skills]`, `[Prompts]`, `[Extensions]` sections for what is loaded; nothing
/// when nothing is.
pub fn resource_lines(session: &AgentSession, theme: &Theme) -> Vec<String> {
    let cwd = session.cwd();
    let context: Vec<String> = session
        .context_files()
        .iter()
        .map(|p| display_path(p, cwd))
        .collect();
    let mut skills: Vec<String> = session.skills().into_iter().map(|s| s.name).collect();
    skills.sort();
    let mut prompts: Vec<String> = session
        .templates()
        .into_iter()
        .map(|t| format!("/{}", t.name))
        .collect();
    prompts.sort();
    let mut extensions: Vec<String> = session
        .extensions()
        .extensions()
        .iter()
        .map(|e| extension_label(&e.path, cwd))
        .collect();
    extensions.sort();
    let mut lines = Vec::new();
    for (name, items) in [
        ("Context", context),
        ("Skills", skills),
        ("Prompts", prompts),
        ("Extensions", extensions),
    ] {
        if items.is_empty() {
            continue;
        }
        lines.push(String::new());
        lines.push(theme.fg(theme.colors.accent, &format!("[{name}]")));
        lines.push(theme.fg(theme.colors.dim, &format!("  {}", items.join(", "))));
    }
    lines
}

/// The warning shown at start when no model can answer, naming what to do in this mode.
pub fn model_warning(session: &AgentSession, agent_dir: &Path) -> Option<String> {
    let models_json = display_path(&agent_dir.join("models.json"), Path::new("/"));
    let Some(model) = session.model() else {
        return Some(format!(
            "No model selected. Add a key with /login, /set api-key <provider> <key> or an \
             environment variable (ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...), \
             or add a local or custom provider to {models_json}; then pick a model with /model."
        ));
    };
    if session.auth_status(&model.provider) != AuthStatus::Missing {
        return None;
    }
    let env = rho_ai::api_key::env_vars_for(&model.provider)
        .last()
        .map(|v| format!(", or set {v}"))
        .unwrap_or_default();
    Some(format!(
        "No API key found for {provider}. Use /login {provider} or /set api-key {provider} \
         <key>{env}; /model picks another model.",
        provider = model.provider
    ))
}

/// A path relative to `cwd` when inside it, else with the home folder as `~`.
fn display_path(path: &Path, cwd: &Path) -> String {
    if let Ok(rel) = path.strip_prefix(cwd) {
        if !rel.as_os_str().is_empty() {
            return rel.display().to_string();
        }
    }
    if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
        if let Ok(rel) = path.strip_prefix(Path::new(&home)) {
            return format!("~/{}", rel.display());
        }
    }
    path.display().to_string()
}

/// An extension's file name, or its folder's name for an `index.*` entry point.
pub(super) fn extension_label(path: &str, cwd: &Path) -> String {
    let p = Path::new(path);
    let is_index = p
        .file_stem()
        .is_some_and(|s| s.to_string_lossy() == "index");
    let named = if is_index { p.parent() } else { Some(p) };
    named
        .and_then(|n| n.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| display_path(p, cwd))
}
