//! The folder a session works in and whether its project resources load (pi 1.6's project
//! trust): `--approve`/`--no-approve`, then the first yes or no of an extension's
//! `project_trust` handler (`trust_extensions`, which passes it on as this run's flag), then
//! the closest saved decision in `<agent dir>/trust.json`, then the global
//! `defaultProjectTrust`. A question left open
//! ("ask" with nothing saved) is asked at the interactive start-up ([`ask_at_start`], pi's
//! question and answers); elsewhere it counts as "not trusted" for this run, with a notice
//! saying how to trust the folder; `/trust` saves the decision. Start-up decides once; `/reload` and the
//! commands that read a project (`--list-models`, `rho permissions check`) decide the same way.

use std::path::{Path, PathBuf};

use rho_core::resources::project_dirs::folders_of;
use rho_core::settings::Settings;
use rho_core::trust::{
    decide, prompt_choices, prompt_text, DefaultTrust, TrustDecision, TrustInputs, TrustStore,
};
use serde_json::Value;

/// The project config directory name (pi uses `.pi`, which is read too: D17).
pub const PROJECT_DIR: &str = ".rho";

/// A working folder and the trust decision for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The working directory.
    pub cwd: PathBuf,
    /// `<cwd>/.rho` when the folder is trusted, `None` when its resources stay unread.
    dir: Option<PathBuf>,
}

impl Project {
    /// Decides for `cwd`: `approve` is `--approve` (`Some(true)`) or `--no-approve`; problems
    /// become warnings (and "not trusted").
    pub fn resolve(
        approve: Option<bool>,
        agent_dir: &Path,
        cwd: &Path,
        warnings: &mut Vec<String>,
    ) -> Self {
        let global = Settings::load_scopes(agent_dir, None);
        Self::resolve_over(approve, &global, agent_dir, cwd, warnings)
    }

    /// [`Project::resolve`] with the global settings read before (`global`).
    pub fn resolve_over(
        approve: Option<bool>,
        global: &Settings,
        agent_dir: &Path,
        cwd: &Path,
        warnings: &mut Vec<String>,
    ) -> Self {
        let inputs = trust_inputs(approve, global, cwd);
        let trusted = match decide(&TrustStore::new(agent_dir), inputs) {
            Ok(TrustDecision::Trusted) => true,
            Ok(TrustDecision::Untrusted) => false,
            Ok(TrustDecision::Ask) => {
                warnings.push(format!(
                    "Project resources in {} (settings, extensions, skills, prompts, themes, \
                     system prompt files, MCP servers) were not loaded: this folder is not \
                     trusted. Use /trust to trust it, or start with --approve.",
                    cwd.display()
                ));
                false
            }
            Err(e) => {
                warnings.push(e.to_string());
                false
            }
        };
        Self {
            cwd: cwd.to_path_buf(),
            dir: trusted.then(|| cwd.join(PROJECT_DIR)),
        }
    }

    /// `cwd` before its trust is decided: its own resources unread.
    pub fn untrusted(cwd: &Path) -> Self {
        Self {
            cwd: cwd.to_path_buf(),
            dir: None,
        }
    }

    /// Whether the project's resources load.
    pub fn trusted(&self) -> bool {
        self.dir.is_some()
    }

    /// `<cwd>/.rho` when trusted: what rho-core's loaders take as the project (they read
    /// `.pi` beside it too).
    pub fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The project folders read, highest precedence first: `.rho`, then `.pi`; none when
    /// the folder is not trusted.
    pub fn folders(&self) -> Vec<PathBuf> {
        folders_of(self.dir())
    }

    /// The settings in force: the global settings, with the trusted project's layers over
    /// them.
    pub fn settings(&self, agent_dir: &Path) -> Settings {
        Settings::load_scopes(agent_dir, self.dir())
    }

    /// [`Project::settings`] over the global settings read before (`global`).
    pub fn settings_over(&self, global: &Settings) -> Settings {
        global.with_project_layers(&self.folders())
    }
}

/// What decides for `cwd`: the flag and the `global` settings' `defaultProjectTrust` (only
/// the global settings count: the project's own cannot vouch for it).
fn trust_inputs<'a>(approve: Option<bool>, global: &Settings, cwd: &'a Path) -> TrustInputs<'a> {
    let default = global
        .global_value("defaultProjectTrust")
        .and_then(Value::as_str);
    TrustInputs {
        cwd,
        flag: approve,
        extension: None,
        default: DefaultTrust::parse(default),
    }
}

/// Asks the question at start-up (pi's selector) for answers and gives the index chosen,
/// `None` when cancelled, an error when the terminal cannot ask.
pub type AskTrust<'a> = &'a dyn Fn(&str, &[String]) -> std::io::Result<Option<usize>>;

/// The interactive start-up's trust question, asked only when nothing decides for `cwd` (no
/// flag, no saved decision, `defaultProjectTrust` "ask") and the folder has something to
/// protect (`global` holds `defaultProjectTrust`). A saved answer is written to trust.json
/// (the decision that follows reads it); what is returned is this run's flag when the answer
/// is not saved: a "this session only" answer, a cancel (not trusted, as in pi) or a store
/// that cannot be written.
pub fn ask_at_start(
    approve: Option<bool>,
    (global, agent_dir): (&Settings, &Path),
    cwd: &Path,
    ask: AskTrust<'_>,
    warnings: &mut Vec<String>,
) -> Option<bool> {
    let inputs = trust_inputs(approve, global, cwd);
    let store = TrustStore::new(agent_dir);
    if !matches!(decide(&store, inputs), Ok(TrustDecision::Ask)) {
        return None;
    }
    let choices = prompt_choices(cwd);
    let labels: Vec<String> = choices.iter().map(|c| c.label.clone()).collect();
    let choice = match ask(&prompt_text(cwd), &labels) {
        Ok(Some(i)) => choices.get(i)?,
        Ok(None) => return Some(false),
        // The notice of an open question follows from the decision made after this.
        Err(_) => return None,
    };
    if choice.updates.is_empty() {
        return Some(choice.trusted);
    }
    match store.set_many(&choice.updates) {
        Ok(()) => None,
        Err(e) => {
            warnings.push(e.to_string());
            Some(choice.trusted)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An agent dir whose settings say `global` and a project whose `.rho` and `.pi`
    /// settings say `rho` and `pi`.
    fn setup(global: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
        let tmp = tempfile::tempdir().expect("tempdir");
        let (agent, cwd) = (tmp.path().join("agent"), tmp.path().join("work"));
        for dir in [agent.clone(), cwd.join(".rho"), cwd.join(".pi")] {
            std::fs::create_dir_all(dir).expect("mkdir");
        }
        std::fs::write(agent.join("settings.json"), global).expect("global settings");
        std::fs::write(cwd.join(".rho/settings.json"), r#"{"theme":"rho"}"#).expect("rho");
        std::fs::write(cwd.join(".pi/settings.json"), r#"{"theme":"pi","x":1}"#).expect("pi");
        (tmp, agent, cwd)
    }

    /// An answer given by index, recording the question and answers it was asked.
    fn answering(
        index: Option<usize>,
        asked: &std::cell::RefCell<Vec<String>>,
    ) -> impl Fn(&str, &[String]) -> std::io::Result<Option<usize>> + '_ {
        move |question, answers| {
            asked.borrow_mut().push(question.to_string());
            asked.borrow_mut().extend(answers.iter().cloned());
            Ok(index)
        }
    }

    #[test]
    fn the_start_up_question_saves_trust_or_trusts_for_this_run_only() {
        let (_tmp, agent, cwd) = setup("{}");
        let global = Settings::load_scopes(&agent, None);
        let agent = (&global, agent.as_path());
        let asked = std::cell::RefCell::new(Vec::new());
        let mut warnings = Vec::new();
        // "Trust (this session only)": this run's flag, nothing saved.
        let flag = ask_at_start(
            None,
            agent,
            &cwd,
            &answering(Some(2), &asked),
            &mut warnings,
        );
        assert_eq!(flag, Some(true));
        assert!(!agent.1.join("trust.json").exists());
        assert!(asked.borrow()[0].starts_with("Trust project folder?\n"));
        assert_eq!(asked.borrow()[3], "Trust (this session only)");
        // Cancelled: not trusted, as in pi.
        let flag = ask_at_start(None, agent, &cwd, &answering(None, &asked), &mut warnings);
        assert_eq!(flag, Some(false));
        // "Trust": saved, so the decision that follows reads it and no flag is needed.
        let flag = ask_at_start(
            None,
            agent,
            &cwd,
            &answering(Some(0), &asked),
            &mut warnings,
        );
        assert_eq!(flag, None);
        assert!(Project::resolve(None, agent.1, &cwd, &mut warnings).trusted());
        // Decided now: not asked again.
        asked.borrow_mut().clear();
        ask_at_start(
            None,
            agent,
            &cwd,
            &answering(Some(3), &asked),
            &mut warnings,
        );
        assert!(asked.borrow().is_empty());
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn an_open_question_is_untrusted_with_a_warning_naming_trust() {
        let (_tmp, agent, cwd) = setup("{}");
        let mut warnings = Vec::new();
        let project = Project::resolve(None, &agent, &cwd, &mut warnings);
        assert!(!project.trusted());
        assert!(project.folders().is_empty());
        assert_eq!(warnings.len(), 1);
        assert!(warnings[0].contains("Use /trust"), "{}", warnings[0]);
        let settings = project.settings(&agent);
        assert_eq!(
            settings.theme(),
            None,
            "an untrusted project's settings stay unread"
        );
    }

    #[test]
    fn the_flag_then_the_saved_decision_then_the_default_decide() {
        let (_tmp, agent, cwd) = setup(r#"{"defaultProjectTrust":"always"}"#);
        let mut warnings = Vec::new();
        assert!(Project::resolve(None, &agent, &cwd, &mut warnings).trusted());
        TrustStore::new(&agent)
            .set(&cwd, Some(false))
            .expect("save a decision");
        assert!(!Project::resolve(None, &agent, &cwd, &mut warnings).trusted());
        let approved = Project::resolve(Some(true), &agent, &cwd, &mut warnings);
        assert!(approved.trusted());
        assert!(!Project::resolve(Some(false), &agent, &cwd, &mut warnings).trusted());
        assert!(warnings.is_empty(), "{warnings:?}");
        // Trusted: `.rho` then `.pi`, both read, `.rho` winning.
        assert_eq!(approved.folders(), [cwd.join(".rho"), cwd.join(".pi")]);
        let settings = approved.settings(&agent);
        assert_eq!(settings.theme(), Some("rho"));
        assert_eq!(settings.raw().get("x"), Some(&Value::from(1)));
    }
}
