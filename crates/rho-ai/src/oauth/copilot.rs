//! GitHub Copilot: GitHub's device flow (github.com or an Enterprise host) gives a GitHub
//! token, which is kept as the refresh token and exchanged for the short-lived Copilot token
//! that requests carry. A login also lists the account's models and enables the ones that
//! need a policy switch (Claude, Grok), best effort.

use serde_json::{json, Value};

use super::device::{poll_device, DeviceTiming, Poll};
use super::request::{get, number, post_form, send, text};
use super::{endpoint, LoginNotice, LoginPrompt, LoginUi, OAuthCredential, OAuthError};
use crate::catalog::COPILOT_HEADERS;

/// The public client id of GitHub's Copilot editor integration.
const CLIENT_ID: &str = "Iv1.b507a08c87ecfe98";
const USER_AGENT: &str = "GitHubCopilotChat/0.35.0";
const API_VERSION: &str = "2026-06-01";
const INDIVIDUAL_API: &str = "https://api.individual.githubcopilot.com";
/// Tokens are treated as expired five minutes early, as pi stores them.
const EARLY_MS: i64 = 5 * 60 * 1000;

/// The Copilot API a token is for: `proxy-ep=proxy.<host>` in the token becomes
/// `https://api.<host>`. `None` when the token names none.
pub fn copilot_base_url(token: &str) -> Option<String> {
    let proxy = token
        .split(';')
        .find_map(|part| part.trim().strip_prefix("proxy-ep="))?;
    let host = proxy
        .strip_prefix("proxy.")
        .map_or_else(|| proxy.to_string(), |rest| format!("api.{rest}"));
    Some(format!("https://{host}"))
}

/// The host part of what the user typed for GitHub Enterprise; `None` for a blank answer.
fn normalize_domain(input: &str) -> Result<Option<String>, OAuthError> {
    let trimmed = input.trim();
    if trimmed.is_empty() {
        return Ok(None);
    }
    let with_scheme = if trimmed.contains("://") {
        trimmed.to_string()
    } else {
        format!("https://{trimmed}")
    };
    reqwest::Url::parse(&with_scheme)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .map(Some)
        .ok_or_else(|| OAuthError::Invalid("Invalid GitHub Enterprise URL/domain".into()))
}

fn github_url(domain: &str) -> String {
    endpoint("RHO_OAUTH_GITHUB_URL", &format!("https://{domain}"))
}

fn github_api_url(domain: &str) -> String {
    endpoint("RHO_OAUTH_GITHUB_API_URL", &format!("https://api.{domain}"))
}

/// Where a Copilot token's models live.
fn models_base(token: &str, enterprise: Option<&str>) -> String {
    let fallback = copilot_base_url(token).unwrap_or_else(|| match enterprise {
        Some(domain) => format!("https://copilot-api.{domain}"),
        None => INDIVIDUAL_API.to_string(),
    });
    endpoint("RHO_OAUTH_COPILOT_API_URL", &fallback)
}

pub(super) async fn login(ui: &dyn LoginUi) -> Result<OAuthCredential, OAuthError> {
    let prompt = LoginPrompt::Text {
        message: "GitHub Enterprise URL/domain (blank for github.com)".into(),
        placeholder: "company.ghe.com".into(),
    };
    let typed = ui
        .ask(prompt, tokio_util::sync::CancellationToken::new())
        .await
        .ok_or(OAuthError::Cancelled)?;
    let enterprise = normalize_domain(&typed)?;
    let domain = enterprise.as_deref().unwrap_or("github.com");
    let github_token = device_flow(ui, domain).await?;
    let mut credential = copilot_token(&github_token, enterprise.as_deref()).await?;
    let models = list_models(&credential.access, enterprise.as_deref()).await;
    let mut available = Vec::new();
    if let Ok((listed, to_enable)) = models {
        available = listed;
        if !to_enable.is_empty() {
            ui.notify(LoginNotice::Progress("Enabling models...".into()));
            let base = models_base(&credential.access, enterprise.as_deref());
            for id in to_enable {
                if enable_model(&base, &credential.access, &id).await {
                    available.push(id);
                }
            }
        }
    }
    available.dedup();
    credential
        .extra
        .insert("availableModelIds".into(), json!(available));
    Ok(credential)
}

async fn device_flow(ui: &dyn LoginUi, domain: &str) -> Result<String, OAuthError> {
    let github = github_url(domain);
    let headers = [("user-agent", USER_AGENT)];
    let what = "GitHub device code request";
    let start = post_form(
        &format!("{github}/login/device/code"),
        &[("client_id", CLIENT_ID), ("scope", "read:user")],
        &headers,
        what,
    )
    .await?
    .expect_json(what)?;
    let (Some(device_code), Some(user_code), Some(uri), Some(expires_in)) = (
        text(&start, "device_code"),
        text(&start, "user_code"),
        text(&start, "verification_uri"),
        number(&start, "expires_in"),
    ) else {
        return Err(OAuthError::Invalid(
            "Invalid device code response fields".into(),
        ));
    };
    let trusted = reqwest::Url::parse(&uri)
        .ok()
        .filter(|u| matches!(u.scheme(), "http" | "https"))
        .ok_or_else(|| {
            OAuthError::Invalid("Untrusted verification_uri in device code response".into())
        })?;
    ui.notify(LoginNotice::DeviceCode {
        user_code,
        verification_uri: trusted.to_string(),
    });
    let timing = DeviceTiming {
        interval_secs: number(&start, "interval"),
        expires_in_secs: Some(expires_in),
        wait_first: true,
    };
    let token_url = format!("{github}/login/oauth/access_token");
    let params = [
        ("client_id", CLIENT_ID),
        ("device_code", device_code.as_str()),
        ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
    ];
    poll_device(timing, || async {
        let what = "GitHub device token request";
        let answer = post_form(&token_url, &params, &headers, what).await?;
        Ok(token_poll(&answer.expect_json(what)?))
    })
    .await
}

/// One answer of GitHub's token endpoint during the device flow.
fn token_poll(value: &Value) -> Poll<String> {
    if let Some(token) = text(value, "access_token") {
        return Poll::Done(token);
    }
    match text(value, "error").as_deref() {
        Some("authorization_pending") => Poll::Pending,
        Some("slow_down") => Poll::SlowDown(number(value, "interval")),
        Some(error) => {
            let description = text(value, "error_description")
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            Poll::Failed(format!("Device flow failed: {error}{description}"))
        }
        None => Poll::Failed("Invalid device token response".into()),
    }
}

/// Exchanges the GitHub token for a Copilot token.
async fn copilot_token(
    github_token: &str,
    enterprise: Option<&str>,
) -> Result<OAuthCredential, OAuthError> {
    let url = format!(
        "{}/copilot_internal/v2/token",
        github_api_url(enterprise.unwrap_or("github.com"))
    );
    let bearer = format!("Bearer {github_token}");
    let mut headers = vec![("authorization", bearer.as_str())];
    headers.extend(COPILOT_HEADERS.iter().copied());
    let what = "GitHub Copilot token request";
    let value = get(&url, &headers, what).await?.expect_json(what)?;
    let (Some(token), Some(expires_at)) = (text(&value, "token"), number(&value, "expires_at"))
    else {
        return Err(OAuthError::Invalid(
            "Invalid Copilot token response fields".into(),
        ));
    };
    let mut extra = serde_json::Map::new();
    if let Some(domain) = enterprise {
        extra.insert("enterpriseUrl".into(), domain.into());
    }
    Ok(OAuthCredential {
        access: token,
        refresh: github_token.to_string(),
        expires: (expires_at * 1000.0) as i64 - EARLY_MS,
        extra,
    })
}

pub(super) async fn refresh(stored: &OAuthCredential) -> Result<OAuthCredential, OAuthError> {
    let enterprise = stored
        .extra
        .get("enterpriseUrl")
        .and_then(Value::as_str)
        .and_then(|e| normalize_domain(e).ok().flatten());
    let mut fresh = copilot_token(&stored.refresh, enterprise.as_deref()).await?;
    // Keep the previous list when the account's models cannot be read now.
    let available = match list_models(&fresh.access, enterprise.as_deref()).await {
        Ok((listed, _)) => json!(listed),
        Err(_) => stored
            .extra
            .get("availableModelIds")
            .cloned()
            .unwrap_or(json!([])),
    };
    fresh.extra.insert("availableModelIds".into(), available);
    Ok(fresh)
}

/// The account's usable model ids, and the catalog models whose policy is still unset.
async fn list_models(
    token: &str,
    enterprise: Option<&str>,
) -> Result<(Vec<String>, Vec<String>), OAuthError> {
    let base = models_base(token, enterprise);
    let bearer = format!("Bearer {token}");
    let mut headers = vec![
        ("authorization", bearer.as_str()),
        ("x-github-api-version", API_VERSION),
    ];
    headers.extend(COPILOT_HEADERS.iter().copied());
    let what = "GitHub Copilot models request";
    let value = get(&format!("{base}/models"), &headers, what)
        .await?
        .expect_json(what)?;
    Ok(parse_models(&value, base == INDIVIDUAL_API))
}

/// `(available, to enable)` from a `/models` answer. Individual accounts that report no picker
/// model fall back to the models their policy enables.
fn parse_models(value: &Value, allow_policy_fallback: bool) -> (Vec<String>, Vec<String>) {
    let models: Vec<(String, bool, Option<String>)> = value
        .get("data")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|m| m.pointer("/capabilities/supports/tool_calls") != Some(&Value::Bool(false)))
        .filter_map(|m| {
            let id = m.get("id")?.as_str()?.to_string();
            let picker = m.get("model_picker_enabled") == Some(&Value::Bool(true));
            let policy = m
                .pointer("/policy/state")
                .and_then(Value::as_str)
                .map(str::to_string);
            Some((id, picker, policy))
        })
        .collect();
    let picked: Vec<String> = models
        .iter()
        .filter(|(_, picker, policy)| *picker && policy.as_deref() != Some("disabled"))
        .map(|(id, ..)| id.clone())
        .collect();
    let fallback = allow_policy_fallback && picked.is_empty();
    let available = if fallback {
        models
            .iter()
            .filter(|(_, _, p)| p.as_deref() == Some("enabled"))
            .map(|(id, ..)| id.clone())
            .collect()
    } else {
        picked
    };
    let to_enable = models
        .iter()
        .filter(|(id, picker, policy)| {
            policy.as_deref() == Some("unconfigured")
                && crate::catalog::builtin_model("github-copilot", id).is_some()
                && (*picker || fallback)
        })
        .map(|(id, ..)| id.clone())
        .collect();
    (available, to_enable)
}

/// Turns a model's policy on; false when that did not work.
async fn enable_model(base: &str, token: &str, id: &str) -> bool {
    let mut req = crate::http::client()
        .post(format!("{base}/models/{id}/policy"))
        .header("content-type", "application/json")
        .header("authorization", format!("Bearer {token}"))
        .header("openai-intent", "chat-policy")
        .header("x-interaction-type", "chat-policy")
        .body(json!({"state": "enabled"}).to_string());
    for (k, v) in COPILOT_HEADERS {
        req = req.header(*k, *v);
    }
    send(req, "GitHub Copilot model policy")
        .await
        .is_ok_and(|a| a.ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_urls_come_from_the_token() {
        assert_eq!(
            copilot_base_url("tid=1;exp=2;proxy-ep=proxy.individual.githubcopilot.com;x=y"),
            Some("https://api.individual.githubcopilot.com".into())
        );
        assert_eq!(copilot_base_url("tid=1;exp=2"), None);
    }

    #[test]
    fn enterprise_answers_become_hosts() {
        assert_eq!(normalize_domain(" ").unwrap(), None);
        assert_eq!(
            normalize_domain("https://company.ghe.com/login").unwrap(),
            Some("company.ghe.com".into())
        );
        assert_eq!(
            normalize_domain("company.ghe.com").unwrap(),
            Some("company.ghe.com".into())
        );
        assert!(normalize_domain("http://").is_err());
    }

    #[test]
    fn device_token_answers() {
        assert_eq!(
            token_poll(&json!({"access_token": "gho_1"})),
            Poll::Done("gho_1".into())
        );
        assert_eq!(
            token_poll(&json!({"error": "authorization_pending"})),
            Poll::Pending
        );
        assert_eq!(
            token_poll(&json!({"error": "slow_down", "interval": 10})),
            Poll::SlowDown(Some(10.0))
        );
        assert_eq!(
            token_poll(&json!({"error": "access_denied", "error_description": "no"})),
            Poll::Failed("Device flow failed: access_denied: no".into())
        );
    }

    #[test]
    fn models_split_into_available_and_to_enable() {
        let listing = json!({"data": [
            {"id": "gpt-5.4", "model_picker_enabled": true, "policy": {"state": "enabled"}},
            {"id": "claude-sonnet-4.6", "model_picker_enabled": true, "policy": {"state": "unconfigured"}},
            {"id": "gone", "model_picker_enabled": true, "policy": {"state": "disabled"}},
            {"id": "embed", "model_picker_enabled": true, "capabilities": {"supports": {"tool_calls": false}}}
        ]});
        let (available, enable) = parse_models(&listing, false);
        assert_eq!(available, vec!["gpt-5.4", "claude-sonnet-4.6"]);
        assert_eq!(enable, vec!["claude-sonnet-4.6"]);
    }
}
