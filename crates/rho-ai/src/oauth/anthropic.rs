//! Claude Pro/Max: PKCE with a loopback redirect (or a code the user copies from Anthropic's
//! page, for machines without a browser), refreshed with a JSON token request.

use serde_json::json;

use super::callback::{CallbackOptions, CallbackServer};
use super::pkce::Pkce;
use super::request::post_json;
use super::{
    callback_host, callback_or_manual, choose, endpoint, parse_pasted, token_fields, Answer,
    LoginNotice, LoginOption, LoginPrompt, LoginUi, OAuthCredential, OAuthError,
};

/// Anthropic's public client id for Claude Code logins.
const CLIENT_ID: &str = "9d1c250a-e61b-44d9-88ed-5944d1962f5e";
const AUTHORIZE_URL: &str = "https://claude.ai/oauth/authorize";
const TOKEN_URL: &str = "https://platform.claude.com/v1/oauth/token";
/// Preferred so the port can be forwarded into a container or over SSH; any loopback port
/// works, so a taken one falls back to a free one.
const CALLBACK_PORT: u16 = 53692;
const CALLBACK_PATH: &str = "/callback";
/// Where the headless method sends the browser: a page that shows the code to copy.
const COPY_CODE_REDIRECT_URI: &str = "https://platform.claude.com/oauth/code/callback";
const SCOPES: &str = "org:create_api_key user:profile user:inference user:sessions:claude_code user:mcp_servers user:file_upload";
/// Tokens are treated as expired five minutes early, as pi stores them.
const EARLY_MS: i64 = 5 * 60 * 1000;

const METHODS: [LoginOption; 2] = [
    LoginOption::fixed("browser", "Browser login (default)"),
    LoginOption::fixed("copy_code", "Copy code login (headless)"),
];

pub(super) async fn login(ui: &dyn LoginUi) -> Result<OAuthCredential, OAuthError> {
    match choose(ui, "Select Anthropic login method:", &METHODS)
        .await?
        .as_str()
    {
        "copy_code" => copy_code(ui).await,
        _ => browser(ui).await,
    }
}

fn authorize_url(pkce: &Pkce, redirect_uri: &str) -> String {
    let params = [
        ("code", "true"),
        ("client_id", CLIENT_ID),
        ("response_type", "code"),
        ("redirect_uri", redirect_uri),
        ("scope", SCOPES),
        ("code_challenge", &pkce.challenge),
        ("code_challenge_method", "S256"),
        ("state", &pkce.verifier),
    ];
    let base = endpoint("RHO_OAUTH_ANTHROPIC_AUTHORIZE_URL", AUTHORIZE_URL);
    reqwest::Url::parse_with_params(&base, params)
        .map(String::from)
        .unwrap_or(base)
}

async fn browser(ui: &dyn LoginUi) -> Result<OAuthCredential, OAuthError> {
    let pkce = Pkce::generate()?;
    // Without a callback server the login goes on with the pasted redirect URL.
    let mut server = CallbackServer::bind(CallbackOptions {
        host: callback_host(),
        redirect_host: "localhost".into(),
        port: Some(CALLBACK_PORT),
        fallback_to_free_port: true,
        path: CALLBACK_PATH.into(),
        provider_name: "Anthropic".into(),
        state: Some(pkce.verifier.clone()),
    })
    .await
    .ok();
    let redirect_uri = server.as_ref().map_or_else(
        || format!("http://localhost:{CALLBACK_PORT}{CALLBACK_PATH}"),
        |s| s.redirect_uri().to_string(),
    );
    ui.notify(LoginNotice::AuthUrl {
        url: authorize_url(&pkce, &redirect_uri),
        instructions: "Complete login in your browser. If the browser is on another machine, paste the final redirect URL here.".into(),
    });
    let prompt = LoginPrompt::ManualCode {
        message:
            "Complete login in your browser, or paste the authorization code / redirect URL here:"
                .into(),
        placeholder: redirect_uri.clone(),
    };
    let (code, state) = match callback_or_manual(ui, server.as_mut(), prompt).await? {
        Answer::Callback(callback) => (callback.code, pkce.verifier.clone()),
        Answer::Typed(typed) => pasted_code(&typed, &pkce)?,
    };
    drop(server);
    exchange(ui, &code, &state, &pkce, &redirect_uri).await
}

async fn copy_code(ui: &dyn LoginUi) -> Result<OAuthCredential, OAuthError> {
    let pkce = Pkce::generate()?;
    ui.notify(LoginNotice::AuthUrl {
        url: authorize_url(&pkce, COPY_CODE_REDIRECT_URI),
        instructions:
            "Complete login in your browser, then copy the code Anthropic shows and paste it here."
                .into(),
    });
    let prompt = LoginPrompt::ManualCode {
        message: "Paste the code Anthropic shows after you sign in:".into(),
        placeholder: "code#state".into(),
    };
    let typed = ui
        .ask(prompt, tokio_util::sync::CancellationToken::new())
        .await
        .ok_or(OAuthError::Cancelled)?;
    let (code, state) = pasted_code(&typed, &pkce)?;
    exchange(ui, &code, &state, &pkce, COPY_CODE_REDIRECT_URI).await
}

fn pasted_code(typed: &str, pkce: &Pkce) -> Result<(String, String), OAuthError> {
    let (code, state) = parse_pasted(typed);
    if state.as_ref().is_some_and(|s| *s != pkce.verifier) {
        return Err(OAuthError::Invalid("OAuth state mismatch".into()));
    }
    let code = code.ok_or_else(|| OAuthError::Invalid("Missing authorization code".into()))?;
    Ok((code, state.unwrap_or_else(|| pkce.verifier.clone())))
}

async fn exchange(
    ui: &dyn LoginUi,
    code: &str,
    state: &str,
    pkce: &Pkce,
    redirect_uri: &str,
) -> Result<OAuthCredential, OAuthError> {
    ui.notify(LoginNotice::Progress(
        "Exchanging authorization code for tokens...".into(),
    ));
    let body = json!({
        "grant_type": "authorization_code",
        "client_id": CLIENT_ID,
        "code": code,
        "state": state,
        "redirect_uri": redirect_uri,
        "code_verifier": pkce.verifier,
    });
    let what = "Anthropic token exchange";
    let answer = post_json(&token_url(), &body, what).await?;
    credential(&answer.expect_json(what)?, what)
}

fn token_url() -> String {
    endpoint("RHO_OAUTH_ANTHROPIC_TOKEN_URL", TOKEN_URL)
}

pub(super) async fn refresh(refresh_token: &str) -> Result<OAuthCredential, OAuthError> {
    let body = json!({
        "grant_type": "refresh_token",
        "client_id": CLIENT_ID,
        "refresh_token": refresh_token,
    });
    let what = "Anthropic token refresh";
    let answer = post_json(&token_url(), &body, what).await?;
    credential(&answer.expect_json(what)?, what)
}

/// The stored shape of a token answer; `expires` is five minutes before the real expiry.
fn credential(value: &serde_json::Value, what: &str) -> Result<OAuthCredential, OAuthError> {
    let (access, refresh, expires_in) = token_fields(value, what)?;
    Ok(OAuthCredential {
        access,
        refresh,
        expires: crate::now_ms() + (expires_in * 1000.0) as i64 - EARLY_MS,
        extra: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_authorization_url_carries_pkce_and_the_verifier_as_state() {
        let pkce = Pkce::from_verifier("v123".into());
        let url =
            reqwest::Url::parse(&authorize_url(&pkce, "http://localhost:1/callback")).unwrap();
        let q: std::collections::HashMap<_, _> = url.query_pairs().into_owned().collect();
        assert_eq!(q["client_id"], CLIENT_ID);
        assert_eq!(q["state"], "v123");
        assert_eq!(q["code_challenge"], pkce.challenge);
        assert_eq!(q["code_challenge_method"], "S256");
        assert_eq!(q["redirect_uri"], "http://localhost:1/callback");
        assert!(q["scope"].contains("user:inference"));
    }

    #[test]
    fn a_pasted_code_from_another_sign_in_is_refused() {
        let pkce = Pkce::from_verifier("v1".into());
        assert_eq!(
            pasted_code("abc#v1", &pkce).unwrap(),
            ("abc".into(), "v1".into())
        );
        assert_eq!(
            pasted_code("abc#other", &pkce).unwrap_err().to_string(),
            "OAuth state mismatch"
        );
        assert_eq!(pasted_code("abc", &pkce).unwrap().1, "v1");
    }

    #[test]
    fn token_answers_become_pi_credentials() {
        let now = crate::now_ms();
        let c = credential(
            &json!({"access_token": "sk-ant-oat-a", "refresh_token": "r", "expires_in": 3600}),
            "x",
        )
        .unwrap();
        assert_eq!(
            (c.access.as_str(), c.refresh.as_str()),
            ("sk-ant-oat-a", "r")
        );
        let expected = now + 3_600_000 - EARLY_MS;
        assert!((c.expires - expected).abs() < 5_000);
        assert!(credential(&json!({"access_token": "a"}), "x").is_err());
    }
}
