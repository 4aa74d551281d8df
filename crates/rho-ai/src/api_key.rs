//! API keys from the environment (providers spec §6). Which variables hold each built-in
//! provider's key is plain data shared with the child-process scrub, in
//! [`rho_protocol::provider_env`].

pub use rho_protocol::provider_env::{env_vars_for, primary_env_var, provider_key_env_vars};

/// The first of `provider`'s variables that is set and non-empty.
pub fn env_api_key(provider: &str) -> Option<String> {
    env_api_key_with(provider, |name| std::env::var(name).ok())
}

/// [`env_api_key`] over an arbitrary variable source (tests, sandboxed lookups).
pub fn env_api_key_with(provider: &str, get: impl Fn(&str) -> Option<String>) -> Option<String> {
    env_vars_for(provider)
        .iter()
        .filter_map(|name| get(name))
        .find(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_non_empty_variable_wins() {
        let get = |n: &str| match n {
            "ANTHROPIC_OAUTH_TOKEN" => Some(String::new()),
            "ANTHROPIC_API_KEY" => Some("sk-ant".to_string()),
            _ => None,
        };
        assert_eq!(env_api_key_with("anthropic", get), Some("sk-ant".into()));
        assert_eq!(env_api_key_with("unknown-provider", get), None);
        assert_eq!(env_vars_for("azure"), &["AZURE_OPENAI_API_KEY"]);
        // The plan's own Qwen variable wins over the region's shared one.
        let qwen = |n: &str| {
            matches!(
                n,
                "QWEN_TOKEN_PLAN_API_KEY" | "QWEN_TOKEN_PLAN_TEAM_API_KEY"
            )
            .then(|| n.to_lowercase())
        };
        assert_eq!(
            env_api_key_with("qwen-token-plan", qwen).as_deref(),
            Some("qwen_token_plan_team_api_key")
        );
        assert_eq!(
            env_api_key_with("qwen-token-plan-individual", qwen).as_deref(),
            Some("qwen_token_plan_api_key")
        );
    }

    #[test]
    fn every_catalog_provider_has_pis_variables() {
        for p in crate::catalog::providers() {
            let ambient = matches!(p.id, "amazon-bedrock" | "openai-codex");
            assert_eq!(env_vars_for(p.id).is_empty(), ambient, "{}", p.id);
        }
    }
}
