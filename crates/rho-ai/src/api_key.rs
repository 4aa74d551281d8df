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
    }
}
