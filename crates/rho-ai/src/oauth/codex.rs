//! ChatGPT Plus/Pro (Codex): PKCE with a loopback redirect on port 1455 (the port the Codex
//! CLI registered), or OpenAI's device-code sign-in; refreshed with a form token request. The
//! credential carries the ChatGPT account id from the access token's claims.

use serde_json::{json, Value};

use super::callback::{CallbackOptions, CallbackServer};
use super::device::{poll_device, DeviceTiming, Poll};
use super::pkce::{random_state, Pkce};
use super::request::{number, post_form, post_json, text};
use super::{
    callback_host, callback_or_manual, choose, endpoint, jwt_payload, parse_pasted, token_fields,
    Answer, LoginNotice, LoginOption, LoginPrompt, LoginUi, OAuthCredential, OAuthError,
};

/// OpenAI's public client id for Codex logins.
const CLIENT_ID: &str = "app_EMoamEEZ73f0CkXaXp7hrann";
const AUTH_BASE_URL: &str = "https://auth.openai.com";
const REDIRECT_URI: &str = "http://localhost:1455/auth/callback";
const CALLBACK_PORT: u16 = 1455;
const SCOPE: &str = "openid profile email offline_access";
const JWT_CLAIM: &str = "https://api.openai.com/auth";
/// How long a device code stays valid.
const DEVICE_CODE_SECS: f64 = 15.0 * 60.0;
/// Who signs in, as OpenAI's authorization page records it.
const ORIGINATOR: &str = "rho";

const METHODS: [LoginOption; 2] = [
    LoginOption::fixed("browser", "Browser login (default)"),
    LoginOption::fixed("device_code", "Device code login (headless)"),
];

fn base() -> String {
    endpoint("RHO_OAUTH_OPENAI_CODEX_URL", AUTH_BASE_URL)
}

pub(super) async fn login(ui: &dyn LoginUi) -> Result<OAuthCredential, OAuthError> {
    match choose(ui, "Select OpenAI Codex login method:", &METHODS)
        .await?
        .as_str()
    {
        "device_code" => device_login(ui).await,
        _ => browser(ui).await,
    }
}

fn authorize_url(pkce: &Pkce, state: &str) -> String {
    let params = [
        ("response_type", "code"),
        ("client_id", CLIENT_ID),
        ("redirect_uri", REDIRECT_URI),
        ("scope", SCOPE),
        ("code_challenge", &pkce.challenge),
        ("code_challenge_method", "S256"),
        ("state", state),
        ("id_token_add_organizations", "true"),
        ("codex_cli_simplified_flow", "true"),
        ("originator", ORIGINATOR),
    ];
    let url = format!("{}/oauth/authorize", base());
    reqwest::Url::parse_with_params(&url, params)
        .map(String::from)
        .unwrap_or(url)
}

async fn browser(ui: &dyn LoginUi) -> Result<OAuthCredential, OAuthError> {
    let pkce = Pkce::generate()?;
    let state = random_state()?;
    // The port is shared with the Codex CLI; when it is taken, the pasted URL is the way in.
    let mut server = CallbackServer::bind(CallbackOptions {
        host: callback_host(),
        redirect_host: "localhost".into(),
        port: Some(CALLBACK_PORT),
        fallback_to_free_port: false,
        path: "/auth/callback".into(),
        provider_name: "OpenAI".into(),
        state: Some(state.clone()),
    })
    .await
    .ok();
    ui.notify(LoginNotice::AuthUrl {
        url: authorize_url(&pkce, &state),
        instructions: "A browser window should open. Complete login to finish.".into(),
    });
    let prompt = LoginPrompt::ManualCode {
        message:
            "Complete login in your browser, or paste the authorization code / redirect URL here:"
                .into(),
        placeholder: REDIRECT_URI.into(),
    };
    let code = match callback_or_manual(ui, server.as_mut(), prompt).await? {
        Answer::Callback(callback) => callback.code,
        Answer::Typed(typed) => {
            let (code, pasted_state) = parse_pasted(&typed);
            if pasted_state.is_some_and(|s| s != state) {
                return Err(OAuthError::Invalid("State mismatch".into()));
            }
            code.ok_or_else(|| OAuthError::Invalid("Missing authorization code".into()))?
        }
    };
    drop(server);
    exchange(&code, &pkce.verifier, REDIRECT_URI).await
}

async fn exchange(
    code: &str,
    verifier: &str,
    redirect_uri: &str,
) -> Result<OAuthCredential, OAuthError> {
    let params = [
        ("grant_type", "authorization_code"),
        ("client_id", CLIENT_ID),
        ("code", code),
        ("code_verifier", verifier),
        ("redirect_uri", redirect_uri),
    ];
    let what = "OpenAI Codex token exchange";
    let answer = post_form(&format!("{}/oauth/token", base()), &params, &[], what).await?;
    credential(&answer.expect_json(what)?, what)
}

pub(super) async fn refresh(refresh_token: &str) -> Result<OAuthCredential, OAuthError> {
    let params = [
        ("grant_type", "refresh_token"),
        ("refresh_token", refresh_token),
        ("client_id", CLIENT_ID),
    ];
    let what = "OpenAI Codex token refresh";
    let answer = post_form(&format!("{}/oauth/token", base()), &params, &[], what).await?;
    credential(&answer.expect_json(what)?, what)
}

/// The ChatGPT account a Codex access token belongs to.
pub fn account_id(access_token: &str) -> Option<String> {
    jwt_payload(access_token)?
        .get(JWT_CLAIM)?
        .get("chatgpt_account_id")?
        .as_str()
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

fn credential(value: &Value, what: &str) -> Result<OAuthCredential, OAuthError> {
    let (access, refresh, expires_in) = token_fields(value, what)?;
    let account = account_id(&access)
        .ok_or_else(|| OAuthError::Invalid("Failed to extract accountId from token".into()))?;
    let mut extra = serde_json::Map::new();
    extra.insert("accountId".into(), account.into());
    Ok(OAuthCredential {
        access,
        refresh,
        expires: crate::now_ms() + (expires_in * 1000.0) as i64,
        extra,
    })
}

async fn device_login(ui: &dyn LoginUi) -> Result<OAuthCredential, OAuthError> {
    let base = base();
    let what = "OpenAI Codex device code request";
    let answer = post_json(
        &format!("{base}/api/accounts/deviceauth/usercode"),
        &json!({"client_id": CLIENT_ID}),
        what,
    )
    .await?;
    if answer.status == 404 {
        return Err(OAuthError::Invalid("OpenAI Codex device code login is not enabled for this server. Use browser login or verify the server URL.".into()));
    }
    let start = answer.expect_json(what)?;
    let (Some(auth_id), Some(user_code), Some(interval)) = (
        text(&start, "device_auth_id"),
        text(&start, "user_code"),
        number(&start, "interval").filter(|i| *i >= 0.0),
    ) else {
        return Err(OAuthError::Invalid(format!(
            "Invalid OpenAI Codex device code response: {start}"
        )));
    };
    ui.notify(LoginNotice::DeviceCode {
        user_code: user_code.clone(),
        verification_uri: format!("{base}/codex/device"),
    });
    let timing = DeviceTiming {
        interval_secs: Some(interval),
        expires_in_secs: Some(DEVICE_CODE_SECS),
        wait_first: false,
    };
    let token_url = format!("{base}/api/accounts/deviceauth/token");
    let body = json!({"device_auth_id": auth_id, "user_code": user_code});
    let (code, verifier) = poll_device(timing, || async {
        let answer = post_json(&token_url, &body, "OpenAI Codex device auth").await?;
        Ok(device_poll(answer.status, &answer.json(), &answer.body))
    })
    .await?;
    exchange(&code, &verifier, &format!("{base}/deviceauth/callback")).await
}

/// One answer of the device token endpoint.
fn device_poll(status: u16, json: &Value, body: &str) -> Poll<(String, String)> {
    if (200..300).contains(&status) {
        return match (
            text(json, "authorization_code"),
            text(json, "code_verifier"),
        ) {
            (Some(code), Some(verifier)) => Poll::Done((code, verifier)),
            _ => Poll::Failed(format!(
                "Invalid OpenAI Codex device auth token response: {json}"
            )),
        };
    }
    if status == 403 || status == 404 {
        return Poll::Pending;
    }
    let error = json.get("error");
    let code = error
        .and_then(|e| e.get("code"))
        .or(error)
        .and_then(Value::as_str);
    match code {
        Some("deviceauth_authorization_pending") => Poll::Pending,
        Some("slow_down") => Poll::SlowDown(None),
        _ => Poll::Failed(format!(
            "OpenAI Codex device auth failed with status {status}: {body}"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    fn token_for(account: &str) -> String {
        let payload = json!({JWT_CLAIM: {"chatgpt_account_id": account}});
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(payload.to_string());
        format!("h.{b64}.s")
    }

    #[test]
    fn credentials_carry_the_account_id() {
        let c = credential(
            &json!({"access_token": token_for("acc-1"), "refresh_token": "r", "expires_in": 10}),
            "x",
        )
        .unwrap();
        assert_eq!(c.extra["accountId"], "acc-1");
        let err = credential(
            &json!({"access_token": "opaque", "refresh_token": "r", "expires_in": 10}),
            "x",
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "Failed to extract accountId from token");
    }

    #[test]
    fn device_answers() {
        let done = device_poll(
            200,
            &json!({"authorization_code": "c", "code_verifier": "v"}),
            "",
        );
        assert_eq!(done, Poll::Done(("c".into(), "v".into())));
        assert_eq!(device_poll(403, &Value::Null, ""), Poll::Pending);
        let pending = json!({"error": {"code": "deviceauth_authorization_pending"}});
        assert_eq!(device_poll(400, &pending, ""), Poll::Pending);
        assert_eq!(
            device_poll(400, &json!({"error": "slow_down"}), ""),
            Poll::SlowDown(None)
        );
        assert!(
            matches!(device_poll(500, &Value::Null, "boom"), Poll::Failed(t) if t.contains("boom"))
        );
    }

    #[test]
    fn the_authorization_url_names_the_codex_flow() {
        let url = authorize_url(&Pkce::from_verifier("v".into()), "st");
        assert!(url.starts_with("https://auth.openai.com/oauth/authorize?"));
        assert!(url.contains("codex_cli_simplified_flow=true"));
        assert!(url.contains("state=st"));
        assert!(url.contains("redirect_uri=http%3A%2F%2Flocalhost%3A1455%2Fauth%2Fcallback"));
    }
}
