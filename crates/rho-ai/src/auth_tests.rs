//! Tests of [`super`]: auth.json parsing and key resolution order.

use std::cell::Cell;

use serde_json::json;

use super::*;
use crate::config_value::ShellError;

const AUTH: &str = r#"{
  "anthropic": {"type": "oauth", "access": "sk-ant-oat-1", "refresh": "r1", "expires": 2000},
  "openai": {"type": "api_key", "key": "${OPENAI_FROM_FILE_VAR}"},
  "deepseek": {"type": "api_key", "key": "OPENAI_FROM_FILE_VAR"},
  "cerebras": {"type": "api_key", "key": "$UNSET_VAR"},
  "groq": {"type": "api_key", "key": "!get-groq-key"},
  "github-copilot": {"type": "oauth", "access": "tid=1;proxy-ep=proxy.x.com", "refresh": "gho_1",
                     "expires": 5000, "enterpriseUrl": "ghe.example"},
  "broken": {"type": "password", "key": "x"},
  "xai": {"type": "api_key"}
}"#;

fn env(name: &str) -> Option<String> {
    let value = match name {
        "OPENAI_FROM_FILE_VAR" => "sk-openai-via-env-name",
        "OPENAI_API_KEY" => "sk-openai-env",
        "GROQ_API_KEY" => "gsk-env",
        "ANTHROPIC_API_KEY" => "sk-ant-env",
        "MISTRAL_API_KEY" => "",
        _ => return None,
    };
    Some(value.to_string())
}

fn no_files(_: &str) -> bool {
    false
}

fn run(cmd: &str) -> Result<String, ShellError> {
    match cmd {
        "get-groq-key" => Ok("gsk-cmd\n".into()),
        "models-key" => Ok("mk".into()),
        _ => Err(ShellError::Exited {
            status: "exit status: 1".into(),
            stderr: String::new(),
        }),
    }
}

fn sources<'a>(file: &'a AuthFile, now_ms: i64) -> AuthSources<'a> {
    AuthSources {
        explicit: None,
        auth_file: Some(file),
        command_cache: None,
        models_json: None,
        env: &env,
        run: &run,
        file_exists: &no_files,
        now_ms,
    }
}

fn key(k: &str, source: KeySource) -> ResolvedAuth {
    ResolvedAuth::Key {
        key: k.into(),
        source,
    }
}

#[test]
fn parses_entries_independently() {
    let file = AuthFile::parse(AUTH).expect("object");
    assert_eq!(
        file.credential("openai"),
        Ok(Some(Credential::ApiKey {
            key: "${OPENAI_FROM_FILE_VAR}".into()
        }))
    );
    let Ok(Some(Credential::OAuth(copilot))) = file.credential("github-copilot") else {
        panic!("oauth entry");
    };
    assert_eq!(copilot.refresh, "gho_1");
    assert_eq!(
        copilot.extra.get("enterpriseUrl"),
        Some(&json!("ghe.example"))
    );
    assert_eq!(
        file.credential("broken").expect_err("bad type").to_string(),
        "auth.json: broken: \"type\" must be \"api_key\" or \"oauth\""
    );
    assert_eq!(
        file.credential("xai").expect_err("no key").message,
        "\"key\" must be a string"
    );
    assert_eq!(file.credential("nobody"), Ok(None));
    assert!(AuthFile::parse("")
        .expect("empty ok")
        .providers()
        .next()
        .is_none());
    assert!(matches!(
        AuthFile::parse("[]"),
        Err(AuthFileError::NotAnObject)
    ));
    assert!(matches!(
        AuthFile::parse("{"),
        Err(AuthFileError::Syntax(_))
    ));
}

#[test]
fn set_and_remove_preserve_unknown_keys() {
    let mut file = AuthFile::parse(r#"{"x": {"type": "api_key", "key": "k", "note": "mine"}}"#)
        .expect("object");
    let oauth = OAuthCredential {
        access: "a".into(),
        refresh: "r".into(),
        expires: 7,
        extra: Map::from_iter([("accountId".to_string(), json!("acc"))]),
    };
    file.set("openai-codex", &Credential::OAuth(oauth.clone()));
    let reread = AuthFile::parse(&file.to_json_string()).expect("round trip");
    assert_eq!(
        reread.credential("openai-codex"),
        Ok(Some(Credential::OAuth(oauth)))
    );
    assert!(reread.to_json_string().contains("\"note\": \"mine\""));
    assert!(file.remove("x"));
    assert!(!file.remove("x"));
}

#[test]
fn resolution_order_table() {
    let file = AuthFile::parse(AUTH).expect("object");
    let s = sources(&file, 1000);
    let cases = [
        // auth.json oauth beats the env var
        ("anthropic", key("sk-ant-oat-1", KeySource::OAuth)),
        // auth.json `${NAME}` resolves through the variable, before OPENAI_API_KEY
        ("openai", key("sk-openai-via-env-name", KeySource::AuthFile)),
        // a bare name is the key itself (pi 1.x)
        ("deepseek", key("OPENAI_FROM_FILE_VAR", KeySource::AuthFile)),
        // auth.json command
        ("groq", key("gsk-cmd", KeySource::AuthFile)),
        // a `$NAME` whose variable is unset is no key
        ("cerebras", ResolvedAuth::Missing),
        // empty env var counts as unset
        ("mistral", ResolvedAuth::Missing),
    ];
    for (provider, expected) in cases {
        assert_eq!(resolve_api_key(provider, &s), Ok(expected), "{provider}");
    }
    let no_file = AuthFile::default();
    let s = sources(&no_file, 1000);
    assert_eq!(
        resolve_api_key("anthropic", &s),
        Ok(key(
            "sk-ant-env",
            KeySource::Env("ANTHROPIC_API_KEY".into())
        ))
    );
    // explicit beats everything
    let s = AuthSources {
        explicit: Some("sk-cli"),
        ..sources(&file, 1000)
    };
    assert_eq!(
        resolve_api_key("anthropic", &s),
        Ok(key("sk-cli", KeySource::Explicit))
    );
}

#[test]
fn models_json_key_is_last() {
    let config = crate::models_json::ProviderConfig {
        api_key: Some("!models-key".into()),
        ..Default::default()
    };
    let empty = AuthFile::default();
    let s = AuthSources {
        models_json: Some(&config),
        ..sources(&empty, 0)
    };
    assert_eq!(
        resolve_api_key("ollama", &s),
        Ok(key("mk", KeySource::ModelsJson))
    );
    // env wins over models.json
    assert_eq!(
        resolve_api_key("groq", &s),
        Ok(key("gsk-env", KeySource::Env("GROQ_API_KEY".into())))
    );
    let failing = crate::models_json::ProviderConfig {
        api_key: Some("!nope".into()),
        ..Default::default()
    };
    let s = AuthSources {
        models_json: Some(&failing),
        ..sources(&empty, 0)
    };
    assert_eq!(
        resolve_api_key("ollama", &s)
            .expect_err("command fails")
            .to_string(),
        "Failed to resolve API key for provider \"ollama\" from shell command: nope"
    );
}

#[test]
fn expired_oauth_is_reported_not_used() {
    let file = AuthFile::parse(AUTH).expect("object");
    let s = sources(&file, 2000);
    let Ok(ResolvedAuth::OAuthExpired(c)) = resolve_api_key("anthropic", &s) else {
        panic!("expected OAuthExpired");
    };
    assert_eq!(c.refresh, "r1");
    assert_eq!(
        oauth_failed_message("anthropic"),
        "Authentication failed for \"anthropic\". Credentials may have expired or network is \
         unavailable. Run '/login anthropic' to re-authenticate."
    );
}

#[test]
fn failing_auth_file_command_means_no_key_and_is_cached() {
    let file =
        AuthFile::parse(r#"{"groq": {"type": "api_key", "key": "!flaky"}}"#).expect("object");
    let calls = Cell::new(0);
    let counting = |cmd: &str| {
        calls.set(calls.get() + 1);
        run(cmd)
    };
    let cache = CommandCache::default();
    let s = AuthSources {
        run: &counting,
        command_cache: Some(&cache),
        ..sources(&file, 0)
    };
    // The entry decides alone: GROQ_API_KEY is not consulted.
    assert_eq!(resolve_api_key("groq", &s), Ok(ResolvedAuth::Missing));
    assert_eq!(resolve_api_key("groq", &s), Ok(ResolvedAuth::Missing));
    assert_eq!(calls.get(), 1, "command ran once for the process");
}

#[test]
fn broken_entry_is_skipped_for_that_provider_only() {
    let file = AuthFile::parse(AUTH).expect("object");
    let s = sources(&file, 0);
    assert!(file.credential("broken").is_err());
    assert_eq!(resolve_api_key("broken", &s), Ok(ResolvedAuth::Missing));
    assert_eq!(
        resolve_api_key("groq", &s),
        Ok(key("gsk-cmd", KeySource::AuthFile))
    );
}

#[test]
fn ambient_cloud_credentials() {
    let vars = |pairs: &'static [(&'static str, &'static str)]| {
        move |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        }
    };
    let aws = vars(&[("AWS_PROFILE", "dev")]);
    assert_eq!(
        env_credential("amazon-bedrock", &aws, &no_files),
        Some(("AWS_PROFILE".into(), AUTHENTICATED_MARKER.into()))
    );
    let half = vars(&[("AWS_ACCESS_KEY_ID", "a")]);
    assert_eq!(env_credential("amazon-bedrock", &half, &no_files), None);
    let gcp = vars(&[
        ("HOME", "/home/u"),
        ("GCLOUD_PROJECT", "p"),
        ("GOOGLE_CLOUD_LOCATION", "us-central1"),
    ]);
    let adc = |path: &str| path == "/home/u/.config/gcloud/application_default_credentials.json";
    assert_eq!(
        env_credential("google-vertex", &gcp, &adc).map(|(_, k)| k),
        Some(AUTHENTICATED_MARKER.into())
    );
    assert_eq!(env_credential("google-vertex", &gcp, &no_files), None);
    let key = vars(&[("GOOGLE_CLOUD_API_KEY", "g")]);
    assert_eq!(
        env_credential("google-vertex", &key, &no_files),
        Some(("GOOGLE_CLOUD_API_KEY".into(), "g".into()))
    );
}

#[test]
fn configured_auth_runs_nothing() {
    let file = AuthFile::parse(AUTH).expect("object");
    let panic_run = |_: &str| -> Result<String, ShellError> { panic!("must not run commands") };
    let config = crate::models_json::ProviderConfig {
        api_key: Some("!secret".into()),
        ..Default::default()
    };
    let s = AuthSources {
        run: &panic_run,
        ..sources(&file, i64::MAX)
    };
    assert!(has_configured_auth("groq", &s));
    assert!(
        has_configured_auth("anthropic", &s),
        "expired oauth still counts"
    );
    assert!(has_configured_auth("broken", &s));
    assert!(!has_configured_auth("ollama", &s));
    let s = AuthSources {
        models_json: Some(&config),
        ..s
    };
    assert!(has_configured_auth("ollama", &s));
}

#[test]
fn messages() {
    assert_eq!(
        no_api_key_message("anthropic"),
        "No API key found for anthropic. Run '/set api-key anthropic <key>' to configure, or set \
         the ANTHROPIC_API_KEY environment variable."
    );
    assert_eq!(
        no_api_key_message("ollama"),
        "No API key found for ollama. Run '/set api-key ollama <key>' to configure."
    );
    assert!(is_oauth_provider("openai-codex"));
    assert!(!is_oauth_provider("openai"));
}

#[test]
fn azure_reads_a_key_stored_under_the_old_provider_id() {
    let file =
        AuthFile::parse(r#"{"azure-openai-responses": {"type": "api_key", "key": "az-key"}}"#)
            .expect("auth.json");
    let sources = sources(&file, 0);
    assert_eq!(
        resolve_api_key("azure", &sources),
        Ok(ResolvedAuth::Key {
            key: "az-key".into(),
            source: KeySource::AuthFile
        })
    );
    assert!(has_configured_auth("azure", &sources));
    // Only Azure's entry has an alias.
    assert!(!has_configured_auth("deepseek", &sources));
}
