//! Which environment variables a child must not inherit: the LLM provider keys rho itself
//! reads. That is every built-in provider's variable (`rho_protocol::provider_env`, except
//! the general GitHub tokens, which `gh` and `git` rely on) and every variable the
//! configuration names for a provider (models.json `apiKey` and header values, auth.json
//! entries, extension providers), asked for at each spawn so a key configured later is
//! scrubbed too.

use std::process::Command;
use std::sync::Arc;

/// Lists the variables the configuration names for providers (see
/// `rho_core::agent_session::CredentialStore::key_env_names`).
pub type ConfiguredKeys = Arc<dyn Fn() -> Vec<String> + Send + Sync>;

/// Tokens that name no LLM provider's key only: tools need them.
const KEPT: [&str; 2] = ["GH_TOKEN", "GITHUB_TOKEN"];

/// The key scrubbing a spawn applies. The default removes the built-in providers' variables.
#[derive(Clone, Default)]
pub struct KeyScrub {
    /// `passProviderKeysToTools`: remove nothing.
    pass: bool,
    configured: Option<ConfiguredKeys>,
}

impl std::fmt::Debug for KeyScrub {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KeyScrub")
            .field("pass", &self.pass)
            .field("configured", &self.configured.is_some())
            .finish()
    }
}

impl KeyScrub {
    /// Removes the built-in providers' variables and those `configured` lists, unless `pass`
    /// (the `passProviderKeysToTools` setting) keeps them all.
    pub fn new(pass: bool, configured: Option<ConfiguredKeys>) -> Self {
        Self { pass, configured }
    }

    /// Removes nothing: for processes the user configured to run with their environment (MCP
    /// servers, extension processes).
    pub fn keep_all() -> Self {
        Self::new(true, None)
    }

    /// The variables removed, sorted.
    pub fn names(&self) -> Vec<String> {
        if self.pass {
            return Vec::new();
        }
        let mut names: Vec<String> = rho_protocol::provider_env::provider_key_env_vars()
            .into_iter()
            .map(str::to_string)
            .collect();
        if let Some(configured) = &self.configured {
            names.extend(configured());
        }
        names.retain(|n| !KEPT.contains(&n.as_str()));
        names.sort_unstable();
        names.dedup();
        names
    }

    pub(crate) fn apply(&self, cmd: &mut Command) {
        for name in self.names() {
            cmd.env_remove(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_names_join_the_built_in_ones_and_pass_keeps_everything() {
        let configured: ConfiguredKeys =
            Arc::new(|| vec!["MYCO_LLM_KEY".into(), "GH_TOKEN".into()]);
        let scrub = KeyScrub::new(false, Some(configured.clone()));
        let names = scrub.names();
        assert!(names.contains(&"MYCO_LLM_KEY".to_string()), "{names:?}");
        assert!(names.contains(&"OPENAI_API_KEY".to_string()));
        assert!(
            !names.contains(&"GH_TOKEN".to_string()),
            "gh keeps its token"
        );
        assert!(KeyScrub::new(true, Some(configured)).names().is_empty());
        assert!(KeyScrub::keep_all().names().is_empty());
    }
}
