//! The environment variables a models.json / auth.json configuration refers to: what rho
//! reads for a provider's key or headers. Tool processes must not inherit them (the key
//! scrubbing of `rho_tools::process`), so this lists every form a value can name one in:
//! a bare variable name (`"MYCO_LLM_KEY"`, pi 0.73), `$NAME` and `${NAME}` anywhere in the
//! value (pi 1.x; `$$` and `$!` are escapes), and the names of an auth.json entry's `env`
//! object. `!command` values name none (the command's own use of the environment is its
//! business).

use std::collections::BTreeSet;

use serde_json::Value;

use crate::auth::AuthFile;
use crate::models_json::ProviderConfig;

fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The variables one configured value names.
pub fn value_env_names(raw: &str) -> Vec<String> {
    if raw.starts_with('!') {
        return Vec::new();
    }
    if is_name(raw) {
        return vec![raw.to_string()];
    }
    let mut names = Vec::new();
    let mut rest = raw;
    while let Some(at) = rest.find('$') {
        let after = &rest[at + 1..];
        if after.starts_with(['$', '!']) {
            rest = &after[1..];
            continue;
        }
        if let Some(braced) = after.strip_prefix('{') {
            match braced.find('}') {
                Some(end) if is_name(&braced[..end]) => {
                    names.push(braced[..end].to_string());
                    rest = &braced[end + 1..];
                }
                _ => rest = after,
            }
            continue;
        }
        let len = after
            .char_indices()
            .find(|&(i, c)| {
                !(c.is_ascii_alphanumeric() || c == '_') || (i == 0 && c.is_ascii_digit())
            })
            .map_or(after.len(), |(i, _)| i);
        if len > 0 {
            names.push(after[..len].to_string());
        }
        rest = &after[len..];
    }
    names
}

/// The variables the providers' `apiKey` and header values (provider and model level) and
/// auth.json's entries (`key`, the names in `env`) refer to.
pub fn config_env_names<'a>(
    providers: impl IntoIterator<Item = &'a ProviderConfig>,
    auth: Option<&AuthFile>,
) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut add = |raw: &str| names.extend(value_env_names(raw));
    for p in providers {
        p.api_key.iter().for_each(|k| add(k));
        let model_headers = p.models.iter().flatten().filter_map(|m| m.headers.as_ref());
        for headers in p.headers.iter().chain(model_headers) {
            headers.values().for_each(|v| add(v));
        }
    }
    if let Some(auth) = auth {
        for provider in auth.providers() {
            let Some(entry) = auth.raw_entry(provider) else {
                continue;
            };
            if entry.get("type").and_then(Value::as_str) == Some("api_key") {
                entry
                    .get("key")
                    .and_then(Value::as_str)
                    .iter()
                    .for_each(|k| add(k));
            }
            if let Some(env) = entry.get("env").and_then(Value::as_object) {
                env.keys().filter(|k| is_name(k)).for_each(|k| add(k));
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_a_value_names_its_variables() {
        assert_eq!(value_env_names("MYCO_LLM_KEY"), ["MYCO_LLM_KEY"]);
        assert_eq!(value_env_names("$MYCO_KEY"), ["MYCO_KEY"]);
        assert_eq!(value_env_names("${MYCO_KEY}"), ["MYCO_KEY"]);
        assert_eq!(value_env_names("Bearer ${TOKEN}-$ORG/x"), ["TOKEN", "ORG"]);
        assert_eq!(
            value_env_names("a$$B $!C ${not a name} $1"),
            Vec::<String>::new()
        );
        assert!(value_env_names("!pass show llm").is_empty());
        assert!(value_env_names("sk-literal-key").is_empty());
    }

    #[test]
    fn providers_and_auth_entries_are_collected() {
        let provider = ProviderConfig {
            api_key: Some("MYCO_LLM_KEY".into()),
            headers: Some([("X-Org".to_string(), "${MYCO_ORG}".to_string())].into()),
            ..ProviderConfig::default()
        };
        let auth = AuthFile::parse(
            r#"{"a": {"type": "api_key", "key": "$AUTH_KEY", "env": {"CLOUDFLARE_ACCOUNT_ID": "x"}},
                "b": {"type": "oauth", "access": "t", "refresh": "r", "expires": 1}}"#,
        )
        .expect("parses");
        let names = config_env_names([&provider], Some(&auth));
        let expected = [
            "AUTH_KEY",
            "CLOUDFLARE_ACCOUNT_ID",
            "MYCO_LLM_KEY",
            "MYCO_ORG",
        ];
        assert_eq!(names.into_iter().collect::<Vec<_>>(), expected);
    }
}
