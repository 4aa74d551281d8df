//! MCP servers behind OAuth, as pi 1.6 signs in to them (`docs/mcp.md`), on rmcp's `auth`
//! support: discovery of the authorization server (RFC 9728 protected resource metadata, RFC
//! 8414 metadata with its issuer checked), dynamic client registration as `rho` (or a client
//! from mcp.json), PKCE with a loopback redirect or a pasted redirect URL, and tokens stored in
//! pi's `mcp-auth.json` ([`store`]).
//!
//! A connection never starts a sign-in: it sends the stored access token, and rmcp refreshes it
//! when it is about to expire and once when the server answers 401. When that is not possible
//! the server needs the user ([`crate::ServerState::NeedsAuth`]), who signs in with `/mcp` or
//! `rho mcp login <server>` ([`sign_in`]). OAuth applies to HTTP servers without an
//! `Authorization` header.

pub mod settings;
pub mod store;

use rho_ai::oauth::callback::{CallbackOptions, CallbackServer};
use rho_ai::oauth::{LoginNotice, LoginPrompt, LoginUi};
use rmcp::transport::auth::{
    AuthClient, AuthError, AuthorizationCallback, AuthorizationManager, AuthorizationMetadata,
    AuthorizationRequest, AuthorizationSession, OAuthClientConfig,
};
use rmcp::transport::streamable_http_client::AuthRequiredError;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::config::{ServerConfig, Transport};
use settings::{OAuthSettings, Registration};
use store::{McpAuthStore, ServerCredentials};

/// The name rho registers under, unless `oauth.clientName` says otherwise.
const CLIENT_NAME: &str = "rho";
const CALLBACK_PATH: &str = "/callback";

/// Why a sign-in failed; the text is what the user sees.
#[derive(Debug, thiserror::Error)]
pub enum SignInError {
    /// The server is not an HTTP server, or sends its own `Authorization` header.
    #[error("MCP server \"{0}\" does not use OAuth. Only HTTP servers without an Authorization header do.")]
    NotOAuth(String),
    /// The user gave up.
    #[error("Sign-in cancelled.")]
    Cancelled,
    /// The authorization server or the flow failed.
    #[error("Sign-in failed: {0}")]
    Failed(String),
}

impl From<AuthError> for SignInError {
    fn from(e: AuthError) -> Self {
        SignInError::Failed(chain(&e))
    }
}

impl From<rho_ai::oauth::OAuthError> for SignInError {
    fn from(e: rho_ai::oauth::OAuthError) -> Self {
        match e {
            rho_ai::oauth::OAuthError::Cancelled => SignInError::Cancelled,
            other => SignInError::Failed(other.to_string()),
        }
    }
}

impl From<store::StoreError> for SignInError {
    fn from(e: store::StoreError) -> Self {
        SignInError::Failed(e.to_string())
    }
}

/// An error and its sources, joined.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        let more = s.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = s.source();
    }
    text
}

/// The URL and settings of a server that authenticates with OAuth, `None` for the others.
pub fn oauth_target(config: &ServerConfig) -> Option<(&str, Option<&OAuthSettings>)> {
    match &config.transport {
        Transport::Http {
            url,
            headers,
            oauth,
        } if !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("authorization")) =>
        {
            Some((url.as_str(), oauth.as_ref()))
        }
        _ => None,
    }
}

/// The `WWW-Authenticate` challenge when `error` (or one of its sources) is the server asking
/// for authorization.
pub fn auth_challenge(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut current = Some(error);
    while let Some(e) = current {
        if let Some(required) = e.downcast_ref::<AuthRequiredError>() {
            return Some(required.www_authenticate_header.clone());
        }
        current = e.source();
    }
    let text = chain(error).to_ascii_lowercase();
    (text.contains("auth required") || text.contains("401") || text.contains("unauthorized"))
        .then(String::new)
}

/// The client secret of `settings`, resolved (`${VAR}`, `!command`).
fn client_secret(settings: &OAuthSettings) -> Result<Option<String>, String> {
    settings
        .client_secret
        .as_deref()
        .map(|raw| crate::values::resolve(raw).map_err(|e| format!("oauth.clientSecret: {e}")))
        .transpose()
}

/// An HTTP client that sends the server's stored token and refreshes it; `None` when nothing
/// is stored (the connection then goes out without a token, and a 401 asks for sign-in).
pub async fn authorized_client(
    config: &ServerConfig,
    store: &McpAuthStore,
) -> Result<Option<AuthClient<reqwest::Client>>, String> {
    let Some((url, settings)) = oauth_target(config) else {
        return Ok(None);
    };
    if !store.has_tokens(&config.name, url) {
        return Ok(None);
    }
    let settings = settings.cloned().unwrap_or_default();
    let credentials =
        ServerCredentials::new(store.clone(), &config.name, url, settings.client_id.clone());
    let mut manager = manager_for(url).await.map_err(|e| chain(&e))?;
    manager.set_credential_store(credentials);
    if let Some(metadata) = configured_metadata(&settings).await? {
        manager.set_metadata(metadata);
    }
    if !manager
        .initialize_from_store()
        .await
        .map_err(|e| chain(&e))?
    {
        return Ok(None);
    }
    if let (Some(id), Some(secret)) = (&settings.client_id, client_secret(&settings)?) {
        let client =
            OAuthClientConfig::new(id.clone(), loopback_uri(&settings)).with_client_secret(secret);
        manager.configure_client(client).map_err(|e| chain(&e))?;
    }
    install_tls();
    Ok(Some(AuthClient::new(reqwest::Client::new(), manager)))
}

/// rmcp's manager for `url`; loopback servers may name loopback authorization servers.
async fn manager_for(url: &str) -> Result<AuthorizationManager, AuthError> {
    install_tls();
    AuthorizationManager::new(url).await
}

/// rmcp's HTTP clients use rustls without a built-in provider: ring, as the transport does.
pub fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The metadata document `oauth.authServerMetadataUrl` names, used as configured.
async fn configured_metadata(
    settings: &OAuthSettings,
) -> Result<Option<AuthorizationMetadata>, String> {
    let Some(url) = &settings.auth_server_metadata_url else {
        return Ok(None);
    };
    let fail =
        |e: &dyn std::error::Error| format!("authorization server metadata at {url}: {}", chain(e));
    let response = reqwest::Client::new()
        .get(url)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| fail(&e))?;
    if !response.status().is_success() {
        return Err(format!(
            "HTTP {} loading authorization server metadata from {url}",
            response.status().as_u16()
        ));
    }
    response.json().await.map(Some).map_err(|e| fail(&e))
}

/// The redirect URI the settings fix, or the default loopback one.
fn loopback_uri(settings: &OAuthSettings) -> String {
    settings
        .callback_url
        .clone()
        .unwrap_or_else(|| match settings.callback_port {
            Some(port) => format!("http://127.0.0.1:{port}{CALLBACK_PATH}"),
            None => format!("http://127.0.0.1{CALLBACK_PATH}"),
        })
}

/// The callback server of a sign-in: where the settings say, else on the port of the stored
/// client's redirect URI (so that client stays valid) or a free one. Also the redirect URI.
async fn listen(
    config: &ServerConfig,
    settings: &OAuthSettings,
    stored_redirect: Option<&str>,
) -> Result<(CallbackServer, String), SignInError> {
    let configured = settings
        .callback_url
        .as_deref()
        .and_then(|u| reqwest::Url::parse(u).ok());
    let host = configured
        .as_ref()
        .and_then(|u| u.host_str().map(|h| h.trim_matches(['[', ']']).to_string()))
        .unwrap_or_else(|| "127.0.0.1".into());
    let path = configured
        .as_ref()
        .map_or_else(|| CALLBACK_PATH.to_string(), |u| u.path().to_string());
    let fixed_port = configured
        .as_ref()
        .and_then(|u| u.port())
        .or(settings.callback_port);
    let preferred = stored_redirect
        .and_then(|u| reqwest::Url::parse(u).ok())
        .and_then(|u| u.port());
    let server = CallbackServer::bind(CallbackOptions {
        host: if host == "localhost" {
            "127.0.0.1".into()
        } else {
            host.clone()
        },
        redirect_host: host,
        port: fixed_port.or(preferred),
        fallback_to_free_port: fixed_port.is_none(),
        path,
        provider_name: format!("the MCP server \"{}\"", config.name),
        state: None,
    })
    .await?;
    // A configured URI with a port is sent exactly as written: servers compare it as a string.
    let redirect = match &settings.callback_url {
        Some(url) if configured.as_ref().and_then(|u| u.port()).is_some() => url.clone(),
        _ => server.redirect_uri().to_string(),
    };
    Ok((server, redirect))
}

/// Signs in to `config`'s server: the browser opens the authorization page (`ui` shows its URL
/// and takes a pasted redirect URL), and the tokens are stored. `challenge` is the server's
/// last `WWW-Authenticate` value, which names its metadata and scope.
pub async fn sign_in(
    config: &ServerConfig,
    store: &McpAuthStore,
    ui: &dyn LoginUi,
    challenge: Option<&str>,
    cancel: &CancellationToken,
) -> Result<(), SignInError> {
    tokio::select! {
        r = sign_in_flow(config, store, ui, challenge) => r,
        _ = cancel.cancelled() => Err(SignInError::Cancelled),
    }
}

async fn sign_in_flow(
    config: &ServerConfig,
    store: &McpAuthStore,
    ui: &dyn LoginUi,
    challenge: Option<&str>,
) -> Result<(), SignInError> {
    let (url, settings) =
        oauth_target(config).ok_or_else(|| SignInError::NotOAuth(config.name.clone()))?;
    let settings = settings.cloned().unwrap_or_default();
    let stored = store.load(&config.name, url)?;
    let stored_client = stored.as_ref().and_then(|s| s.get("clientInformation"));
    let stored_id = stored_client
        .and_then(|c| c.get("client_id"))
        .and_then(Value::as_str);
    let stored_redirect = stored_client
        .and_then(|c| c.get("redirect_uris"))
        .and_then(|r| r.get(0))
        .and_then(Value::as_str);
    let (mut server, redirect_uri) = listen(config, &settings, stored_redirect).await?;

    let credentials =
        ServerCredentials::new(store.clone(), &config.name, url, settings.client_id.clone());
    credentials.set_redirect_uri(&redirect_uri);
    let mut manager = manager_for(url).await?;
    manager.set_credential_store(credentials);
    let metadata = match configured_metadata(&settings)
        .await
        .map_err(SignInError::Failed)?
    {
        Some(m) => m,
        None => {
            manager
                .resolve_metadata_from_challenge(challenge.filter(|c| !c.is_empty()))
                .await?
                .metadata
        }
    };
    manager.set_metadata(metadata);

    let mut request = AuthorizationRequest::new(&redirect_uri)
        .with_client_name(settings.client_name.as_deref().unwrap_or(CLIENT_NAME));
    if let Some(scope) = &settings.scope {
        request = request.with_scopes(scope.split_whitespace());
    }
    // A client registered before stays in use while its redirect URI matches.
    let reuse = stored_id.filter(|_| {
        settings.registration == Registration::Auto
            && stored_redirect == Some(redirect_uri.as_str())
    });
    match (&settings.client_id, reuse) {
        (Some(id), _) => {
            request = request.with_preregistered_client(id);
            if let Some(secret) = client_secret(&settings).map_err(SignInError::Failed)? {
                request = request.with_client_secret(secret);
            }
        }
        (None, Some(id)) => request = request.with_preregistered_client(id),
        (None, None) => {}
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| SignInError::from(e))?;
    ui.notify(LoginNotice::AuthUrl {
        url: session.get_authorization_url().to_string(),
        instructions:
            "If the browser runs on another machine, paste the URL it was redirected to here."
                .into(),
    });
    let prompt = LoginPrompt::ManualCode {
        message: format!(
            "Waiting for sign-in to \"{}\"; or paste the URL the browser was redirected to",
            config.name
        ),
        placeholder: format!("{redirect_uri}?code=..."),
    };
    let answer = rho_ai::oauth::callback_or_manual(ui, Some(&mut server), prompt).await?;
    drop(server);
    let (code, state, issuer) = match answer {
        rho_ai::oauth::Answer::Callback(c) => (c.code, c.state, c.iss),
        rho_ai::oauth::Answer::Typed(pasted) => {
            let c = pasted_callback(&pasted, &redirect_uri)?;
            (c.code, c.csrf_token, c.issuer)
        }
    };
    session
        .handle_callback_with_issuer(&code, &state, issuer.as_deref())
        .await?;
    Ok(())
}

/// The authorization response in a redirect URL the user pasted; it must be on the sign-in's
/// redirect URI.
fn pasted_callback(pasted: &str, redirect_uri: &str) -> Result<AuthorizationCallback, SignInError> {
    let fail = |m: &str| SignInError::Failed(m.to_string());
    let url = reqwest::Url::parse(pasted.trim())
        .map_err(|_| fail("Expected the full redirect URL from the browser address bar"))?;
    let expected = reqwest::Url::parse(redirect_uri).map_err(|_| fail("invalid redirect URI"))?;
    if url.origin() != expected.origin() || url.path() != expected.path() {
        return Err(fail(
            "The redirect URL does not match this sign-in's redirect URI",
        ));
    }
    if let Some((_, error)) = url.query_pairs().find(|(k, _)| k == "error") {
        let description = url
            .query_pairs()
            .find(|(k, _)| k == "error_description")
            .map_or(error.to_string(), |(_, d)| d.to_string());
        return Err(SignInError::Failed(description));
    }
    AuthorizationCallback::from_redirect_url(url.as_str()).map_err(SignInError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pasted_redirects_must_be_on_the_redirect_uri() {
        let uri = "http://127.0.0.1:4444/callback";
        let ok = pasted_callback(
            "http://127.0.0.1:4444/callback?code=c&state=s&iss=https%3A%2F%2Fa",
            uri,
        )
        .unwrap();
        assert_eq!(
            (
                ok.code.as_str(),
                ok.csrf_token.as_str(),
                ok.issuer.as_deref()
            ),
            ("c", "s", Some("https://a"))
        );
        assert!(pasted_callback("http://127.0.0.1:5555/callback?code=c&state=s", uri).is_err());
        let denied = pasted_callback(
            "http://127.0.0.1:4444/callback?error=access_denied&error_description=No",
            uri,
        );
        assert_eq!(denied.unwrap_err().to_string(), "Sign-in failed: No");
        assert!(pasted_callback("not a url", uri).is_err());
    }
}
