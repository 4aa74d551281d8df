//! Deciding at startup whether this folder's project resources load (pi 1.6's project
//! trust): `--approve`/`--no-approve`, then the closest saved decision in
//! `<agent dir>/trust.json`, then the global `defaultProjectTrust`. A question left open
//! ("ask" with nothing saved) counts as "not trusted" for this run, with a notice saying how
//! to trust the folder; `/trust` saves the decision.

use std::path::{Path, PathBuf};

use rho_core::settings::Settings;
use rho_core::trust::{decide, DefaultTrust, TrustDecision, TrustInputs, TrustStore};
use serde_json::Value;

use crate::args::Args;

/// The decision: the project folder to load from, `None` when the folder is not trusted.
pub struct ProjectTrust {
    /// `<cwd>/.rho` when trusted.
    pub project_dir: Option<PathBuf>,
}

/// Decides for `cwd`; problems become warnings (and "not trusted").
pub fn resolve(
    args: &Args,
    agent_dir: &Path,
    cwd: &Path,
    project_dir: PathBuf,
    warnings: &mut Vec<String>,
) -> ProjectTrust {
    let global = Settings::load_scopes(agent_dir, None);
    let default = DefaultTrust::parse(
        global
            .global_value("defaultProjectTrust")
            .and_then(Value::as_str),
    );
    let inputs = TrustInputs {
        cwd,
        flag: args.approve,
        extension: None,
        default,
    };
    let trusted = match decide(&TrustStore::new(agent_dir), inputs) {
        Ok(TrustDecision::Trusted) => true,
        Ok(TrustDecision::Untrusted) => false,
        Ok(TrustDecision::Ask) => {
            warnings.push(format!(
                "Project resources in {} (settings, extensions, skills, prompts, themes, \
                 system prompt files, MCP servers) were not loaded: this folder is not trusted. \
                 Use /trust to trust it, or start with --approve.",
                cwd.display()
            ));
            false
        }
        Err(e) => {
            warnings.push(e.to_string());
            false
        }
    };
    ProjectTrust {
        project_dir: trusted.then_some(project_dir),
    }
}
