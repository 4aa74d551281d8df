//! Project trust as pi 1.6 defines it: a folder's settings, extensions, skills, prompts,
//! themes, system-prompt files and MCP servers load only once the user trusts it. Decisions
//! live in `<agent dir>/trust.json` as `{"<canonical dir>": true | false | null}`; the closest
//! decision for the folder or one of its parents applies.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

/// The project folders whose contents need trust (`.rho`, and `.pi` for pi's projects).
pub const PROJECT_DIRS: [&str; 2] = [".rho", ".pi"];

/// What inside a project folder needs trust; a bare folder does not.
const PROTECTED: [&str; 8] = [
    "settings.json",
    "mcp.json",
    "extensions",
    "skills",
    "prompts",
    "themes",
    "SYSTEM.md",
    "APPEND_SYSTEM.md",
];

/// The `defaultProjectTrust` setting (global settings only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DefaultTrust {
    /// Ask in the interactive mode; elsewhere do not trust.
    #[default]
    Ask,
    /// Trust every folder.
    Always,
    /// Trust no folder.
    Never,
}

impl DefaultTrust {
    /// Parses the setting; unknown values are `ask`.
    pub fn parse(text: Option<&str>) -> Self {
        match text {
            Some("always") => Self::Always,
            Some("never") => Self::Never,
            _ => Self::Ask,
        }
    }
}

/// Problems with trust.json.
#[derive(Debug, thiserror::Error)]
pub enum TrustError {
    /// The file is not the object of booleans it must be.
    #[error("Invalid trust store {0}: {1}")]
    Invalid(PathBuf, String),
    /// It could not be written.
    #[error("Cannot write trust store {0}: {1}")]
    Write(PathBuf, std::io::Error),
}

/// `<agent dir>/trust.json`.
#[derive(Debug, Clone)]
pub struct TrustStore {
    path: PathBuf,
}

fn canonical(dir: &Path) -> PathBuf {
    dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf())
}

impl TrustStore {
    /// The store of `agent_dir`.
    pub fn new(agent_dir: &Path) -> Self {
        Self {
            path: agent_dir.join("trust.json"),
        }
    }

    fn read(&self) -> Result<Map<String, Value>, TrustError> {
        let Ok(text) = std::fs::read_to_string(&self.path) else {
            return Ok(Map::new());
        };
        let invalid = |m: String| TrustError::Invalid(self.path.clone(), m);
        let map: Map<String, Value> = serde_json::from_str(text.trim_start_matches('\u{feff}'))
            .map_err(|e| invalid(format!("expected an object ({e})")))?;
        if let Some((k, _)) = map
            .iter()
            .find(|(_, v)| !matches!(v, Value::Bool(_) | Value::Null))
        {
            return Err(invalid(format!(
                "value for {k:?} must be true, false, or null"
            )));
        }
        Ok(map)
    }

    /// The closest saved decision for `cwd` or a parent.
    pub fn get(&self, cwd: &Path) -> Result<Option<bool>, TrustError> {
        let map = self.read()?;
        let start = canonical(cwd);
        Ok(start
            .ancestors()
            .find_map(|dir| map.get(&*dir.to_string_lossy()).and_then(Value::as_bool)))
    }

    /// Saves (or with `None` forgets) the decision for `dir`.
    pub fn set(&self, dir: &Path, decision: Option<bool>) -> Result<(), TrustError> {
        self.set_many(&[(dir.to_path_buf(), decision)])
    }

    /// Saves several decisions in one write (a parent trusted and the folder's own decision
    /// forgotten, as the prompt's "Trust parent folder" does).
    pub fn set_many(&self, updates: &[(PathBuf, Option<bool>)]) -> Result<(), TrustError> {
        let mut map = self.read()?;
        for (dir, decision) in updates {
            let key = canonical(dir).to_string_lossy().into_owned();
            map.insert(key, decision.map_or(Value::Null, Value::Bool));
        }
        let sorted: std::collections::BTreeMap<_, _> = map.into_iter().collect();
        let text = serde_json::to_string_pretty(&sorted).unwrap_or_else(|_| "{}".into()) + "\n";
        let write = || -> std::io::Result<()> {
            if let Some(parent) = self.path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            let tmp = self.path.with_extension("json.tmp");
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, &self.path)
        };
        write().map_err(|e| TrustError::Write(self.path.clone(), e))
    }
}

/// Whether `cwd` has anything trust protects: a protected entry in `.rho`/`.pi`, or an
/// `.agents/skills` folder in it or a parent.
pub fn needs_trust(cwd: &Path) -> bool {
    let in_project_dir = PROJECT_DIRS
        .iter()
        .any(|d| PROTECTED.iter().any(|p| cwd.join(d).join(p).exists()));
    // The user's own `~/.agents/skills` is theirs, not the project's (as in pi 1.6).
    let home = std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(std::path::PathBuf::from);
    let users = home
        .as_deref()
        .map(crate::resources::agents_skills::user_agents_skills);
    in_project_dir
        || cwd.ancestors().any(|a| {
            let dir = a.join(".agents/skills");
            dir.is_dir() && users.as_ref() != Some(&dir)
        })
}

/// How the decision was reached, for messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustDecision {
    /// Trusted.
    Trusted,
    /// Not trusted.
    Untrusted,
    /// No flag, extension, saved decision or default decided, and the mode can ask.
    Ask,
}

/// Inputs for [`decide`].
#[derive(Debug, Clone, Copy)]
pub struct TrustInputs<'a> {
    /// The project folder.
    pub cwd: &'a Path,
    /// `--approve` / `--no-approve`.
    pub flag: Option<bool>,
    /// A `project_trust` extension's yes/no.
    pub extension: Option<bool>,
    /// `defaultProjectTrust`.
    pub default: DefaultTrust,
}

/// pi's order: the flag, then (only when something needs trust) an extension's answer, the
/// closest saved decision, `defaultProjectTrust`. A folder with nothing to protect is trusted
/// unless a saved decision says otherwise.
pub fn decide(store: &TrustStore, inputs: TrustInputs<'_>) -> Result<TrustDecision, TrustError> {
    let from = |b: bool| {
        if b {
            TrustDecision::Trusted
        } else {
            TrustDecision::Untrusted
        }
    };
    if let Some(flag) = inputs.flag {
        return Ok(from(flag));
    }
    if !needs_trust(inputs.cwd) {
        return Ok(from(store.get(inputs.cwd)?.unwrap_or(true)));
    }
    if let Some(answer) = inputs.extension {
        return Ok(from(answer));
    }
    if let Some(saved) = store.get(inputs.cwd)? {
        return Ok(from(saved));
    }
    Ok(match inputs.default {
        DefaultTrust::Always => TrustDecision::Trusted,
        DefaultTrust::Never => TrustDecision::Untrusted,
        DefaultTrust::Ask => TrustDecision::Ask,
    })
}

/// The non-interactive answer to "is this project trusted?" (for loaders outside the
/// session, such as MCP servers): a pending question counts as no.
pub fn is_trusted(agent_dir: &Path, cwd: &Path, flag: Option<bool>, default: DefaultTrust) -> bool {
    let inputs = TrustInputs {
        cwd,
        flag,
        extension: None,
        default,
    };
    matches!(
        decide(&TrustStore::new(agent_dir), inputs),
        Ok(TrustDecision::Trusted)
    )
}

/// One answer of the start-up trust question: its label, whether the folder is trusted this
/// run, and the decisions it saves (none for the "this session only" answers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustChoice {
    /// What the user reads.
    pub label: String,
    /// Whether the project's resources load this run.
    pub trusted: bool,
    /// The decisions saved to trust.json.
    pub updates: Vec<(PathBuf, Option<bool>)>,
}

/// The start-up question for `cwd` (pi's wording, with rho's folders).
pub fn prompt_text(cwd: &Path) -> String {
    format!(
        "Trust project folder?\n{}\n\nThis allows rho to load .rho and .pi settings and \
         resources, install missing project packages, and execute project extensions.",
        canonical(cwd).display()
    )
}

/// pi's answers, in pi's order: trust, trust the parent folder (when there is one), trust for
/// this session only, do not trust, do not trust for this session only.
pub fn prompt_choices(cwd: &Path) -> Vec<TrustChoice> {
    let here = canonical(cwd);
    let choice = |label: String, trusted, updates| TrustChoice {
        label,
        trusted,
        updates,
    };
    let mut out = vec![choice(
        "Trust".into(),
        true,
        vec![(here.clone(), Some(true))],
    )];
    if let Some(parent) = here.parent() {
        let label = format!("Trust parent folder ({})", parent.display());
        let updates = vec![(parent.to_path_buf(), Some(true)), (here.clone(), None)];
        out.push(choice(label, true, updates));
    }
    out.push(choice("Trust (this session only)".into(), true, Vec::new()));
    out.push(choice(
        "Do not trust".into(),
        false,
        vec![(here, Some(false))],
    ));
    out.push(choice(
        "Do not trust (this session only)".into(),
        false,
        Vec::new(),
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let root = tempfile::tempdir().expect("tmp");
        let agent = root.path().join("agent");
        let proj = root.path().join("work/proj");
        std::fs::create_dir_all(proj.join(".rho")).expect("mkdir");
        (root, agent, proj)
    }

    fn inputs(cwd: &Path) -> TrustInputs<'_> {
        TrustInputs {
            cwd,
            flag: None,
            extension: None,
            default: DefaultTrust::Ask,
        }
    }

    #[test]
    fn a_bare_project_dir_needs_no_trust_but_settings_do() {
        let (_root, agent, proj) = dirs();
        let store = TrustStore::new(&agent);
        assert_eq!(
            decide(&store, inputs(&proj)).ok(),
            Some(TrustDecision::Trusted)
        );
        std::fs::write(proj.join(".rho/settings.json"), "{}").expect("write");
        assert_eq!(decide(&store, inputs(&proj)).ok(), Some(TrustDecision::Ask));
        let never = TrustInputs {
            default: DefaultTrust::Never,
            ..inputs(&proj)
        };
        assert_eq!(decide(&store, never).ok(), Some(TrustDecision::Untrusted));
        let flag = TrustInputs {
            flag: Some(true),
            ..never
        };
        assert_eq!(decide(&store, flag).ok(), Some(TrustDecision::Trusted));
    }

    #[test]
    fn the_closest_saved_decision_applies_and_is_written_as_pi_writes_it() {
        let (_root, agent, proj) = dirs();
        std::fs::write(proj.join(".rho/settings.json"), "{}").expect("write");
        let store = TrustStore::new(&agent);
        let parent = proj.parent().expect("parent");
        store.set(parent, Some(true)).expect("save");
        assert_eq!(
            decide(&store, inputs(&proj)).ok(),
            Some(TrustDecision::Trusted)
        );
        store.set(&proj, Some(false)).expect("save");
        assert_eq!(
            decide(&store, inputs(&proj)).ok(),
            Some(TrustDecision::Untrusted)
        );
        let saved: Value =
            serde_json::from_str(&std::fs::read_to_string(agent.join("trust.json")).expect("file"))
                .expect("json");
        let key = proj.canonicalize().expect("canonical");
        assert_eq!(saved[key.to_string_lossy().as_ref()], Value::Bool(false));
    }

    #[test]
    fn trusting_the_parent_forgets_the_folders_own_decision() {
        let (_root, agent, proj) = dirs();
        std::fs::write(proj.join(".rho/settings.json"), "{}").expect("write");
        let store = TrustStore::new(&agent);
        store.set(&proj, Some(false)).expect("save");
        let choices = prompt_choices(&proj);
        let labels: Vec<&str> = choices.iter().map(|c| c.label.as_str()).collect();
        assert_eq!(labels[0], "Trust");
        assert!(labels[1].starts_with("Trust parent folder ("), "{labels:?}");
        assert_eq!(
            &labels[2..],
            [
                "Trust (this session only)",
                "Do not trust",
                "Do not trust (this session only)"
            ]
        );
        store.set_many(&choices[1].updates).expect("save");
        assert_eq!(
            decide(&store, inputs(&proj)).ok(),
            Some(TrustDecision::Trusted)
        );
        let saved: Value =
            serde_json::from_str(&std::fs::read_to_string(agent.join("trust.json")).expect("file"))
                .expect("json");
        let key = proj.canonicalize().expect("canonical");
        assert_eq!(saved[key.to_string_lossy().as_ref()], Value::Null);
    }

    #[test]
    fn a_broken_store_is_an_error_not_a_yes() {
        let (_root, agent, proj) = dirs();
        std::fs::create_dir_all(&agent).expect("mkdir");
        std::fs::write(agent.join("trust.json"), "{\"/x\": 1}").expect("write");
        std::fs::write(proj.join(".rho/settings.json"), "{}").expect("write");
        let err = decide(&TrustStore::new(&agent), inputs(&proj)).expect_err("invalid");
        assert!(
            err.to_string().contains("must be true, false, or null"),
            "{err}"
        );
    }
}
