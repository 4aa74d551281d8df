//! `rho auth check|print-api-key|print-bearer-token`, as pi 1.6's (docs/cli.md, "Credential
//! commands"): whether a provider's credentials are ready, and the resolved key or OAuth token
//! for an external client, from the same sources a session uses (`--api-key` aside: auth.json,
//! the environment, models.json). No session starts and no model is called; an OAuth token
//! close to its expiry is refreshed unless `--no-refresh`.

use std::process::ExitCode;

use rho_ai::auth::Credential;
use rho_core::agent_session::{AuthStatus, CredentialStore};
use serde_json::{json, Map, Value};

use crate::args::Args;
use crate::credentials::CliCredentials;
use crate::model_select::resolve_cli_model;

/// Which command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Check,
    ApiKey,
    BearerToken,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Check => "auth check",
            Kind::ApiKey => "auth print-api-key",
            Kind::BearerToken => "auth print-bearer-token",
        }
    }

    fn usage(self) -> &'static str {
        match self {
            Kind::Check => {
                "rho auth check --provider <provider> [--json] [--credentials] [--no-refresh]"
            }
            Kind::ApiKey => "rho auth print-api-key --provider <provider> [--model <model>]",
            Kind::BearerToken => "rho auth print-bearer-token --provider <provider> [--model <model>] [--min-expiry <duration>]",
        }
    }

    /// The exit code of an error: a check that cannot run is `invalid` (2).
    fn error_code(self) -> u8 {
        if self == Kind::Check {
            2
        } else {
            1
        }
    }
}

/// An OAuth token printed must stay valid this long unless `--min-expiry` says otherwise.
const DEFAULT_MIN_EXPIRY_MS: i64 = 30 * 60_000;

/// The command line of one auth command.
#[derive(Debug, Default)]
struct Request {
    provider: Option<String>,
    model: Option<String>,
    json: bool,
    credentials: bool,
    no_refresh: bool,
    min_expiry_ms: Option<i64>,
}

/// The verb of `rho auth <verb>` when it is one of these commands.
pub fn is_auth_command(verb: &str) -> bool {
    matches!(verb, "check" | "print-api-key" | "print-bearer-token")
}

/// `rho auth <verb> ...` (`args` after the verb).
pub fn command(verb: &str, args: &[String]) -> ExitCode {
    let kind = match verb {
        "check" => Kind::Check,
        "print-api-key" => Kind::ApiKey,
        _ => Kind::BearerToken,
    };
    let request = match parse(kind, args) {
        Ok(r) => r,
        Err(Failure::Usage(text)) => {
            eprintln!("{text}");
            return ExitCode::FAILURE;
        }
        Err(Failure::Option(text)) => {
            eprintln!("Error: {text}");
            return ExitCode::FAILURE;
        }
        Err(Failure::Error(text)) => return fail(kind, &text),
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(kind, &format!("cannot start the async runtime: {e}")),
    };
    let credentials = match crate::plan::agent_dir() {
        Ok(dir) => crate::plan::load_credentials(&dir, &mut Vec::new()),
        Err(e) => return fail(kind, &e.to_string()),
    };
    runtime.block_on(async {
        match kind {
            Kind::Check => check(&request, &credentials).await,
            _ => match print(kind, &request, &credentials).await {
                Ok(value) => {
                    println!("{value}");
                    ExitCode::SUCCESS
                }
                Err(e) => fail(kind, &e.to_string()),
            },
        }
    })
}

fn fail(kind: Kind, text: &str) -> ExitCode {
    eprintln!("Error: {text}");
    ExitCode::from(kind.error_code())
}

#[derive(Debug)]
enum Failure {
    /// An unknown option: pi's two lines, exit 1.
    Usage(String),
    /// An option the command does not take, or a bad duration: exit 1.
    Option(String),
    /// Anything else wrong with the command line (a check cannot run: exit 2).
    Error(String),
}

fn parse(kind: Kind, argv: &[String]) -> Result<Request, Failure> {
    let mut request = Request::default();
    let mut rest = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let arg = argv[i].as_str();
        i += 1;
        match arg {
            "--min-expiry" if kind != Kind::BearerToken => {
                return Err(Failure::Option(
                    "--min-expiry is only supported by print-bearer-token".into(),
                ))
            }
            "--min-expiry" => {
                let value = argv.get(i).map(String::as_str).and_then(duration_ms);
                i += 1;
                request.min_expiry_ms = Some(value.ok_or_else(|| {
                    Failure::Option("--min-expiry must use a duration such as 30m or 1h".into())
                })?);
            }
            "--json" | "--credentials" | "--no-refresh" if kind != Kind::Check => {
                return Err(Failure::Option(format!(
                    "{arg} is only supported by auth check"
                )))
            }
            "--json" => request.json = true,
            "--credentials" => request.credentials = true,
            "--no-refresh" => request.no_refresh = true,
            _ => rest.push(argv[i - 1].clone()),
        }
    }
    let parsed: Args = crate::args::parse(&rest);
    if let Some((name, _)) = parsed.extension_flags.first() {
        return Err(Failure::Usage(format!(
            "Unknown option --{name} for \"{}\".\nUse \"rho --help\" or \"{}\".",
            kind.name(),
            kind.usage()
        )));
    }
    if let Some(short) = parsed.unknown_short.first() {
        return Err(Failure::Error(format!("Unknown option: {short}")));
    }
    if let Some(error) = parsed.errors.first() {
        return Err(Failure::Error(error.clone()));
    }
    if parsed.api_key.is_some() || !parsed.messages.is_empty() || !parsed.file_args.is_empty() {
        return Err(Failure::Error(
            "Auth commands only accept --provider and --model".into(),
        ));
    }
    let given = |v: Option<String>| v.map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    request.provider = given(parsed.provider);
    request.model = given(parsed.model);
    if request.provider.is_none() && request.model.is_none() {
        return Err(Failure::Error(
            match kind {
                Kind::Check => "Auth checks require --provider <provider> or --model <model>",
                _ => "Credential printing requires --provider <provider> or --model <model>",
            }
            .into(),
        ));
    }
    Ok(request)
}

/// `30m`, `1h`, `45s`, `500ms` in milliseconds.
fn duration_ms(text: &str) -> Option<i64> {
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    let amount: i64 = text.get(..digits)?.parse().ok()?;
    let unit = match text[digits..].to_ascii_lowercase().as_str() {
        "ms" => 1,
        "s" => 1_000,
        "m" => 60_000,
        "h" => 3_600_000,
        _ => return None,
    };
    amount.checked_mul(unit)
}

/// Whether rho knows `provider` at all (a model of it, or a models.json entry).
fn known_provider(credentials: &CliCredentials, provider: &str) -> bool {
    // The registry's ids cover the catalog's, models.json's and extension providers.
    credentials
        .models
        .provider_ids()
        .iter()
        .any(|id| id == provider)
}

/// pi's `auth check`: `ready`, `not_ready` or `invalid` (exit 0, 1, 2), as JSON with
/// `--json`, the credential instead of `ready` with `--credentials`.
async fn check(request: &Request, credentials: &CliCredentials) -> ExitCode {
    let result = check_result(request, credentials).await;
    let status = result["status"].as_str().unwrap_or("invalid").to_string();
    let credential = result.get("credentials").and_then(Value::as_str);
    let text = match (request.json, credential) {
        (true, _) => Value::Object(result.clone()).to_string(),
        (false, Some(c)) => c.to_string(),
        (false, None) => status.clone(),
    };
    println!("{text}");
    ExitCode::from(match status.as_str() {
        "ready" => 0,
        "not_ready" => 1,
        _ => 2,
    })
}

async fn check_result(request: &Request, credentials: &CliCredentials) -> Map<String, Value> {
    let result = |value: Value| value.as_object().cloned().unwrap_or_default();
    let mut provider = request.provider.clone();
    if let Some(model) = &request.model {
        let models = &credentials.models;
        match resolve_cli_model(models, None, request.provider.as_deref(), Some(model)) {
            Ok(Some(choice)) => provider = Some(choice.model.provider),
            _ => {
                let named = request.provider.as_ref().unwrap_or(model);
                return result(
                    json!({"status": "invalid", "provider": named, "reason": "invalid_state"}),
                );
            }
        }
    }
    let provider = provider.unwrap_or_default();
    let not_ready = |reason: &str| {
        result(json!({"status": "not_ready", "provider": provider, "reason": reason}))
    };
    if !known_provider(credentials, &provider) {
        return not_ready("provider_not_found");
    }
    if credentials.status(&provider) != AuthStatus::Configured {
        return not_ready("credentials_not_configured");
    }
    let oauth = matches!(credentials.stored(&provider), Some(Credential::OAuth(_)));
    let value = match resolved_credential(credentials, &provider, oauth, !request.no_refresh).await
    {
        Ok(Some(value)) => value,
        Ok(None) => return not_ready("credentials_not_configured"),
        Err(_) => {
            return result(
                json!({"status": "invalid", "provider": provider, "reason": "invalid_state"}),
            )
        }
    };
    let auth_type = if oauth { "oauth" } else { "api_key" };
    let mut ready = result(json!({"status": "ready", "provider": provider, "authType": auth_type}));
    if request.credentials {
        ready.insert("credentials".into(), Value::String(value));
    }
    ready
}

/// The credential a request would carry: a stored OAuth token (refreshed when about to
/// expire, with `refresh`), else the resolved key.
async fn resolved_credential(
    credentials: &CliCredentials,
    provider: &str,
    oauth: bool,
    refresh: bool,
) -> Result<Option<String>, String> {
    if oauth {
        if let (false, Some(Credential::OAuth(c))) = (refresh, credentials.stored(provider)) {
            return Ok(Some(c.access));
        }
        return oauth_token(credentials, provider, 5 * 60_000).await;
    }
    credentials.api_key(provider).map_err(|e| e.to_string())
}

/// The OAuth token of `provider` valid for `min_ms` more (rho refreshes the providers it can
/// sign in to; another's stored token is printed as it is).
async fn oauth_token(
    credentials: &CliCredentials,
    provider: &str,
    min_ms: i64,
) -> Result<Option<String>, String> {
    match credentials.oauth_token(provider, min_ms).await {
        Ok(Some(token)) => Ok(Some(token)),
        Ok(None) => Ok(match credentials.stored(provider) {
            Some(Credential::OAuth(c)) => Some(c.access),
            _ => None,
        }),
        Err(e) => Err(e.to_string()),
    }
}

/// pi's `print-api-key` and `print-bearer-token`: the one credential `--provider`/`--model`
/// name. Without `--provider`, only providers with a login or key stored in auth.json count.
async fn print(
    kind: Kind,
    request: &Request,
    credentials: &CliCredentials,
) -> anyhow::Result<String> {
    let models = &credentials.models;
    let providers: Vec<String> = match &request.provider {
        Some(p) => {
            if !known_provider(credentials, p) {
                anyhow::bail!(
                    "Unknown provider \"{p}\". Use --list-models to see available providers."
                );
            }
            if request.model.is_some() {
                resolve_cli_model(models, None, Some(p), request.model.as_deref())?;
            }
            vec![p.clone()]
        }
        None => {
            let model = request.model.as_deref().unwrap_or_default();
            // Provider ids, not every model: the catalog's 1,698 models need not be built.
            let stored: Vec<String> = models
                .provider_ids()
                .into_iter()
                .filter(|p| credentials.stored(p).is_some())
                .collect();
            let matching: Vec<String> = stored
                .into_iter()
                .filter(|p| resolve_cli_model(models, None, Some(p), Some(model)).is_ok())
                .collect();
            if matching.is_empty() {
                anyhow::bail!(
                    "Model \"{model}\" not found. Use --list-models to see available models."
                );
            }
            matching
        }
    };
    let mut found: Vec<(String, String)> = Vec::new();
    for provider in &providers {
        let oauth = matches!(credentials.stored(provider), Some(Credential::OAuth(_)));
        let value = match (kind, oauth) {
            (Kind::ApiKey, true) | (Kind::BearerToken, false) => continue,
            (Kind::BearerToken, true) => {
                let min = request.min_expiry_ms.unwrap_or(DEFAULT_MIN_EXPIRY_MS);
                oauth_token(credentials, provider, min)
                    .await
                    .map_err(anyhow::Error::msg)?
            }
            _ => credentials.api_key(provider)?,
        };
        if let Some(value) = value.filter(|v| !v.is_empty()) {
            found.push((provider.clone(), value));
        }
    }
    match found.len() {
        1 => Ok(found.remove(0).1),
        0 => {
            let first = &providers[0];
            let oauth = matches!(credentials.stored(first), Some(Credential::OAuth(_)));
            let given = request.provider.is_some();
            Err(anyhow::anyhow!(match (kind, oauth) {
                (Kind::ApiKey, true) if given => {
                    format!("Provider \"{first}\" is configured with OAuth, not an API key")
                }
                (Kind::BearerToken, false) if given => {
                    format!("Provider \"{first}\" is not configured with an OAuth bearer token")
                }
                (Kind::ApiKey, _) => "No usable API key is configured".to_string(),
                _ => "No usable OAuth bearer token is configured".into(),
            }))
        }
        _ => {
            let names: Vec<&str> = found.iter().map(|(p, _)| p.as_str()).collect();
            anyhow::bail!(
                "Multiple configured providers matched ({}). Specify --provider.",
                names.join(", ")
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn durations_and_options_as_pi_reads_them() {
        assert_eq!(duration_ms("30m"), Some(1_800_000));
        assert_eq!(duration_ms("1H"), Some(3_600_000));
        assert_eq!(duration_ms("250ms"), Some(250));
        assert_eq!(duration_ms("5x"), None);
        assert_eq!(duration_ms("m"), None);
        let r = parse(
            Kind::Check,
            &strings(&["--model", "a/b", "--json", "--no-refresh"]),
        )
        .expect("parses");
        assert_eq!(
            (r.model.as_deref(), r.json, r.no_refresh),
            (Some("a/b"), true, true)
        );
        let error = |kind, args: &[&str]| match parse(kind, &strings(args)) {
            Err(Failure::Error(e) | Failure::Usage(e) | Failure::Option(e)) => e,
            Ok(_) => String::new(),
        };
        assert_eq!(
            error(Kind::ApiKey, &["--provider", "x", "--json"]),
            "--json is only supported by auth check"
        );
        assert_eq!(
            error(Kind::Check, &["--provider", "x", "--min-expiry", "1h"]),
            "--min-expiry is only supported by print-bearer-token"
        );
        assert_eq!(
            error(Kind::Check, &["--provider", "x", "extra"]),
            "Auth commands only accept --provider and --model"
        );
        assert_eq!(
            error(Kind::ApiKey, &[]),
            "Credential printing requires --provider <provider> or --model <model>"
        );
        assert!(error(Kind::Check, &["--provider", "x", "--bogus"])
            .starts_with("Unknown option --bogus for \"auth check\"."));
    }
}
