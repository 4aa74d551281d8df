//! The folder a session works in and whether its project resources load (pi 1.6's project
//! trust): `--approve`/`--no-approve`, then the closest saved decision in
//! `<agent dir>/trust.json`, then the global `defaultProjectTrust`. A question left open
//! ("ask" with nothing saved) counts as "not trusted" for this run, with a notice saying how
//! to trust the folder; `/trust` saves the decision. Start-up decides once; `/reload` and the
//! commands that read a project (`--list-models`, `rho permissions check`) decide the same way.

use std::path::{Path, PathBuf};

use rho_core::resources::project_dirs::folders_of;
use rho_core::settings::Settings;
use rho_core::trust::{decide, DefaultTrust, TrustDecision, TrustInputs, TrustStore};
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
        let default = DefaultTrust::parse(
            global
                .global_value("defaultProjectTrust")
                .and_then(Value::as_str),
        );
        let inputs = TrustInputs {
            cwd,
            flag: approve,
            extension: None,
            default,
        };
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
