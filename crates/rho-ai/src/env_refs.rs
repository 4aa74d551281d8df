//! The environment variables a models.json and auth.json configuration reads keys and header
//! values from (`$NAME` / `${NAME}` in `apiKey`, header values and auth.json `key`s, and the
//! names of an auth.json entry's `env` object, which stand in for the process's). One
//! place answers it for every caller: what resolves those values, and what keeps the keys
//! out of the environment of commands the model runs.

use std::collections::BTreeMap;

use crate::auth::{AuthFile, Credential};
use crate::config_value::env_names;
use crate::models_json::ProviderConfig;

/// Every variable the models.json `providers` and the auth.json entries refer to, sorted and
/// without repeats. `!command` values name none (what a command reads is its own business).
/// An auth.json entry's `env` object names variables its provider reads (pi 1.x takes the
/// object's values before the process's), so those names are listed too.
pub fn referenced_env_names(
    providers: &BTreeMap<String, ProviderConfig>,
    auth: Option<&AuthFile>,
) -> Vec<String> {
    let mut values: Vec<&str> = Vec::new();
    for provider in providers.values() {
        values.extend(provider.api_key.as_deref());
        let model_headers = provider.models.iter().flatten().map(|m| &m.headers);
        let override_headers = provider.model_overrides.values().map(|o| &o.headers);
        for headers in std::iter::once(&provider.headers)
            .chain(model_headers)
            .chain(override_headers)
            .flatten()
        {
            values.extend(headers.values().map(String::as_str));
        }
    }
    let keys: Vec<String> = auth
        .into_iter()
        .flat_map(|file| file.providers().map(|p| file.credential(p)))
        .filter_map(|c| match c {
            Ok(Some(Credential::ApiKey { key })) => Some(key),
            _ => None,
        })
        .collect();
    values.extend(keys.iter().map(String::as_str));
    let mut names: Vec<String> = values
        .into_iter()
        .flat_map(env_names)
        .map(str::to_string)
        .collect();
    names.extend(auth.into_iter().flat_map(entry_env_names));
    names.sort_unstable();
    names.dedup();
    names
}

/// The names of the auth.json entries' `env` objects.
fn entry_env_names(file: &AuthFile) -> Vec<String> {
    file.providers()
        .filter_map(|p| file.raw_entry(p)?.get("env")?.as_object())
        .flat_map(|env| env.keys().cloned())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::models_json::{parse_models_json, ModelOverride};

    #[test]
    fn names_from_keys_headers_and_auth_entries() {
        let config = parse_models_json(
            r#"{"providers": {
                "gw": {"baseUrl": "http://x", "api": "openai-completions", "apiKey": "${GW_KEY}",
                       "headers": {"x-team": "$TEAM-$GW_KEY", "x-lit": "MY_LITERAL"},
                       "models": [{"id": "m", "headers": {"x-m": "!echo $NOT_READ"}}]},
                "local": {"baseUrl": "http://y", "api": "openai-completions", "apiKey": "ollama",
                          "models": [{"id": "q", "headers": {"x-q": "${Q_HEADER}"}}]}}}"#,
            "models.json",
        )
        .expect("valid");
        let mut providers = config.providers;
        let overrides = ModelOverride {
            headers: Some([("x-o".to_string(), "$OVERRIDE".to_string())].into()),
            ..ModelOverride::default()
        };
        providers
            .entry("anthropic".into())
            .or_default()
            .model_overrides
            .insert("claude".into(), overrides);
        let auth = AuthFile::parse(
            r#"{"openai": {"type": "api_key", "key": "$AUTH_KEY"},
                "groq": {"type": "api_key", "key": "!pass groq"},
                "xai": {"type": "api_key", "key": "BARE"},
                "cloudflare-workers-ai": {"type": "api_key", "key": "k",
                                          "env": {"CLOUDFLARE_ACCOUNT_ID": "id"}}}"#,
        )
        .expect("object");
        assert_eq!(
            referenced_env_names(&providers, Some(&auth)),
            [
                "AUTH_KEY",
                "CLOUDFLARE_ACCOUNT_ID",
                "GW_KEY",
                "OVERRIDE",
                "Q_HEADER",
                "TEAM"
            ]
        );
        assert!(referenced_env_names(&BTreeMap::new(), None).is_empty());
    }
}
