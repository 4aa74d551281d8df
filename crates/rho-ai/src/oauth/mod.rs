//! Subscription logins: the OAuth flows of the providers pi signs in to (Claude Pro/Max,
//! ChatGPT Plus/Pro through Codex, GitHub Copilot) and the refresh of their tokens. A flow
//! talks to the user only through a [`LoginUi`], so the command line and the interactive mode
//! drive the same code; it returns the credential in pi's auth.json shape
//! ([`OAuthCredential`]) and stores nothing itself.
//!
//! Every endpoint can be pointed elsewhere with an environment variable (tests use loopback
//! servers; nothing else needs to): `RHO_OAUTH_ANTHROPIC_AUTHORIZE_URL`,
//! `RHO_OAUTH_ANTHROPIC_TOKEN_URL`, `RHO_OAUTH_OPENAI_CODEX_URL` (the `https://auth.openai.com`
//! part), `RHO_OAUTH_GITHUB_URL` and `RHO_OAUTH_GITHUB_API_URL` (`https://github.com` and
//! `https://api.github.com`, or an Enterprise host's), `RHO_OAUTH_COPILOT_API_URL` (the
//! Copilot API a login lists and enables models on). The browser callback listens on
//! `127.0.0.1`, or on `PI_OAUTH_CALLBACK_HOST` as in pi.

mod anthropic;
pub mod browser;
pub mod callback;
mod codex;
mod copilot;
pub mod device;
pub mod pkce;
mod providers;
pub(crate) mod request;

use std::borrow::Cow;

use futures_util::future::BoxFuture;
use tokio_util::sync::CancellationToken;

pub use crate::auth::OAuthCredential;
pub use codex::account_id as codex_account_id;
pub use copilot::copilot_base_url;
pub use providers::{OAuthProvider, OAuthProviders};

/// What a flow shows the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginNotice {
    /// Open this page in a browser (the UI opens it when it can).
    AuthUrl {
        /// The authorization page.
        url: String,
        /// What to do there.
        instructions: String,
    },
    /// Enter `user_code` at `verification_uri`.
    DeviceCode {
        /// The code to type.
        user_code: String,
        /// Where to type it.
        verification_uri: String,
    },
    /// A step is under way ("Exchanging authorization code for tokens...").
    Progress(String),
}

/// One choice of a [`LoginPrompt::Select`] (borrowed for rho's own flows, owned for an
/// extension's).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginOption {
    /// What the flow gets back.
    pub id: Cow<'static, str>,
    /// What the user sees.
    pub label: Cow<'static, str>,
}

impl LoginOption {
    /// A choice of rho's own flows.
    pub const fn fixed(id: &'static str, label: &'static str) -> Self {
        Self {
            id: Cow::Borrowed(id),
            label: Cow::Borrowed(label),
        }
    }
}

/// What a flow asks the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LoginPrompt {
    /// Pick one option; the answer is its id. The first option is the default.
    Select {
        /// The question.
        message: String,
        /// The choices.
        options: Vec<LoginOption>,
    },
    /// A line of text (may be empty).
    Text {
        /// The question.
        message: String,
        /// An example answer.
        placeholder: String,
    },
    /// The code or redirect URL the user copies from the browser, asked while the callback
    /// server also waits: whichever comes first wins.
    ManualCode {
        /// The question.
        message: String,
        /// An example answer.
        placeholder: String,
    },
}

impl LoginPrompt {
    /// The message and placeholder of a question answered with typed text (`Text`,
    /// `ManualCode`); `None` for a selection.
    pub fn typed(&self) -> Option<(&str, &str)> {
        match self {
            LoginPrompt::Text {
                message,
                placeholder,
            }
            | LoginPrompt::ManualCode {
                message,
                placeholder,
            } => Some((message, placeholder)),
            LoginPrompt::Select { .. } => None,
        }
    }
}

/// How a flow reaches the user.
pub trait LoginUi: Send + Sync {
    /// Shows a notice.
    fn notify(&self, notice: LoginNotice);
    /// Asks a question; `None` when the user cancelled. `done` fires when the flow no longer
    /// needs the answer (the browser callback came first): the UI then closes the question.
    fn ask(
        &self,
        prompt: LoginPrompt,
        done: CancellationToken,
    ) -> BoxFuture<'static, Option<String>>;
}

/// Why a login or a refresh failed; the text is what the user sees.
#[derive(Debug, thiserror::Error)]
pub enum OAuthError {
    /// The user cancelled.
    #[error("Login cancelled")]
    Cancelled,
    /// The provider has no sign-in in rho.
    #[error("{0} has no account sign-in in rho; use an API key (/login lists both)")]
    NotOAuth(String),
    /// A server answered with an error status.
    #[error("{what} failed ({status}): {body}")]
    Status {
        /// The request ("Anthropic token refresh").
        what: String,
        /// The HTTP status.
        status: u16,
        /// The (cut) body.
        body: String,
    },
    /// A request could not be sent or its answer read.
    #[error("{what} failed: {}", crate::http::transport_message(.source))]
    Transport {
        /// The request.
        what: String,
        /// The transport error.
        source: reqwest::Error,
    },
    /// The callback server could not listen.
    #[error("cannot listen for the browser's redirect on {address}: {source}")]
    Bind {
        /// Host and port.
        address: String,
        /// Why.
        source: std::io::Error,
    },
    /// An extension's `login`, `refreshToken` or `getApiKey` failed (it threw, or its
    /// process is gone); `message` is its own text or why it cannot answer.
    #[error("{message}")]
    Extension {
        /// What the extension answered.
        message: String,
    },
    /// An answer that breaks the protocol, a state mismatch, a refusal, a timeout.
    #[error("{0}")]
    Invalid(String),
}

/// The name a provider's sign-in shows ("Anthropic (Claude Pro/Max)"), `None` when rho has no
/// sign-in for it.
pub fn provider_name(provider: &str) -> Option<&'static str> {
    crate::auth::OAUTH_PROVIDERS
        .iter()
        .find(|(id, _)| *id == provider)
        .map(|(_, name)| *name)
}

/// Signs in to `provider` (one of rho's own sign-ins) through `ui`; `cancel` stops the flow
/// at any step. A session's sign-ins, extensions' included, are its [`OAuthProviders`].
pub async fn login(
    provider: &str,
    ui: &dyn LoginUi,
    cancel: &CancellationToken,
) -> Result<OAuthCredential, OAuthError> {
    OAuthProviders::builtin().login(provider, ui, cancel).await
}

/// A new access token for a stored credential of one of rho's own sign-ins. The provider may
/// rotate the refresh token too; store the whole result.
pub async fn refresh(
    provider: &str,
    credential: &OAuthCredential,
) -> Result<OAuthCredential, OAuthError> {
    match OAuthProviders::builtin().get(provider) {
        Some(p) => p.refresh(credential).await,
        None => Err(OAuthError::NotOAuth(provider.to_string())),
    }
}

/// Asks which sign-in method to use; the answer is one of `options`' ids.
async fn choose(
    ui: &dyn LoginUi,
    message: &str,
    options: &[LoginOption],
) -> Result<String, OAuthError> {
    let prompt = LoginPrompt::Select {
        message: message.into(),
        options: options.to_vec(),
    };
    let answer = ui
        .ask(prompt, CancellationToken::new())
        .await
        .ok_or(OAuthError::Cancelled)?;
    options
        .iter()
        .find(|o| o.id == answer)
        .map(|o| o.id.to_string())
        .ok_or_else(|| OAuthError::Invalid(format!("Unknown login method: {answer}")))
}

/// `access_token`, `refresh_token` and `expires_in` (seconds) of a token answer.
fn token_fields(
    value: &serde_json::Value,
    what: &str,
) -> Result<(String, String, f64), OAuthError> {
    use request::{number, text};
    match (
        text(value, "access_token"),
        text(value, "refresh_token"),
        number(value, "expires_in"),
    ) {
        (Some(access), Some(refresh), Some(expires_in)) => Ok((access, refresh, expires_in)),
        _ => Err(OAuthError::Invalid(format!(
            "{what} returned no access_token, refresh_token and expires_in"
        ))),
    }
}

/// `var` when set and not empty, else `default`.
fn endpoint(var: &str, default: &str) -> String {
    std::env::var(var)
        .ok()
        .filter(|v| !v.trim().is_empty())
        .map(|v| v.trim_end_matches('/').to_string())
        .unwrap_or_else(|| default.to_string())
}

/// The address the browser callback binds: `PI_OAUTH_CALLBACK_HOST` (for containers), as pi.
fn callback_host() -> String {
    endpoint("PI_OAUTH_CALLBACK_HOST", "127.0.0.1")
}

/// Which answer came first to a question the browser callback may also answer.
#[derive(Debug)]
pub enum Answer {
    /// The browser's redirect reached the callback server.
    Callback(callback::Callback),
    /// The user typed or pasted this.
    Typed(String),
}

/// Asks a question that the browser callback may answer first: the callback wins when it
/// arrives before the user typed anything.
pub async fn callback_or_manual(
    ui: &dyn LoginUi,
    server: Option<&mut callback::CallbackServer>,
    prompt: LoginPrompt,
) -> Result<Answer, OAuthError> {
    let done = CancellationToken::new();
    let _close = done.clone().drop_guard();
    let typed = ui.ask(prompt, done.clone());
    let Some(server) = server else {
        return typed.await.map(Answer::Typed).ok_or(OAuthError::Cancelled);
    };
    tokio::select! {
        got = server.wait() => got.map(Answer::Callback),
        typed = typed => typed.map(Answer::Typed).ok_or(OAuthError::Cancelled),
    }
}

/// `code` and `state` from what the user pasted: a redirect URL, `code#state`, a query string,
/// or the bare code.
fn parse_pasted(input: &str) -> (Option<String>, Option<String>) {
    let value = input.trim();
    if value.is_empty() {
        return (None, None);
    }
    let from_query = |query: &str| {
        let url = reqwest::Url::parse(&format!("http://x/?{query}")).ok();
        let get = |k: &str| {
            url.as_ref().and_then(|u| {
                u.query_pairs()
                    .find(|(n, _)| n == k)
                    .map(|(_, v)| v.into_owned())
            })
        };
        (get("code"), get("state"))
    };
    if let Ok(url) = reqwest::Url::parse(value) {
        if url.has_host() {
            return from_query(url.query().unwrap_or_default());
        }
    }
    if let Some((code, state)) = value.split_once('#') {
        return (Some(code.to_string()), Some(state.to_string()));
    }
    if value.contains("code=") {
        return from_query(value);
    }
    (Some(value.to_string()), None)
}

/// The payload of a JWT (no signature check: the token came from the authorization server).
fn jwt_payload(token: &str) -> Option<serde_json::Value> {
    use base64::Engine;
    let payload = token.split('.').nth(1)?;
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .ok()?;
    serde_json::from_slice(&bytes).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_answers_in_every_shape() {
        let both = (Some("c1".to_string()), Some("s1".to_string()));
        assert_eq!(
            parse_pasted("http://localhost:53692/callback?code=c1&state=s1"),
            both
        );
        assert_eq!(parse_pasted(" c1#s1 "), both);
        assert_eq!(parse_pasted("code=c1&state=s1"), both);
        assert_eq!(parse_pasted("c1"), (Some("c1".into()), None));
        assert_eq!(parse_pasted("  "), (None, None));
    }

    #[test]
    fn jwt_payloads_decode() {
        // {"a":{"b":"c"}} as a payload between two dummy segments.
        let token = "x.eyJhIjp7ImIiOiJjIn19.y";
        assert_eq!(jwt_payload(token).unwrap()["a"]["b"], "c");
        assert!(jwt_payload("not-a-jwt").is_none());
    }
}
