//! The `oauth` object of an HTTP server entry (pi 1.6's `docs/mcp.md`): a registered client
//! (`clientId`, `clientSecret`), the redirect (`callbackPort`, `callbackUrl`), `scope`,
//! `clientName`, `clientRegistration` and `authServerMetadataUrl`, validated with pi's texts.

use crate::ordered::Json;

/// How the client identifies itself to the authorization server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Registration {
    /// Dynamic client registration unless a client is configured (rho has no Client ID
    /// Metadata Document, so `auto` registers, as pi does when rebranded).
    #[default]
    Auto,
    /// Always register dynamically.
    Dcr,
}

/// A server's OAuth settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OAuthSettings {
    /// A client registered out of band.
    pub client_id: Option<String>,
    /// Its secret, as written (`${VAR}` or `!command` allowed).
    pub client_secret: Option<String>,
    /// The loopback port of the redirect URI.
    pub callback_port: Option<u16>,
    /// The whole redirect URI (loopback, http).
    pub callback_url: Option<String>,
    /// Scopes to ask for (space-separated).
    pub scope: Option<String>,
    /// The name sent when registering (default `rho`).
    pub client_name: Option<String>,
    /// `auto` or `dcr`.
    pub registration: Registration,
    /// The authorization server's metadata document, instead of discovery.
    pub auth_server_metadata_url: Option<String>,
}

/// Whether `url` is an http URL on a loopback host without query or fragment.
fn loopback_redirect(url: &str) -> Option<reqwest::Url> {
    let parsed = reqwest::Url::parse(url).ok()?;
    let host = parsed.host_str()?;
    let loopback = matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "::1");
    (parsed.scheme() == "http"
        && loopback
        && parsed.query().is_none()
        && parsed.fragment().is_none())
    .then_some(parsed)
}

/// Parses and checks `oauth`; the error is pi's text for the first wrong field.
pub fn parse(value: Option<&Json>) -> Result<Option<OAuthSettings>, &'static str> {
    let Some(value) = value else {
        return Ok(None);
    };
    if value.as_object().is_none() {
        return Err("oauth must be an object");
    }
    let text = |key: &str, problem: &'static str| match value.get(key) {
        None => Ok(None),
        Some(Json::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(problem),
    };
    let mut settings = OAuthSettings {
        client_id: text("clientId", "oauth.clientId must be a string")?,
        client_secret: text("clientSecret", "oauth.clientSecret must be a string")?,
        scope: text("scope", "oauth.scope must be a string")?,
        ..Default::default()
    };
    settings.callback_port = match value.get("callbackPort") {
        None => None,
        Some(Json::Number(n)) => Some(
            n.as_f64()
                .filter(|p| p.fract() == 0.0 && (1.0..=65535.0).contains(p))
                .map(|p| p as u16)
                .ok_or("oauth.callbackPort must be a port number")?,
        ),
        Some(_) => return Err("oauth.callbackPort must be a port number"),
    };
    if let Some(url) = text("callbackUrl", "oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment")? {
        let parsed = loopback_redirect(&url).ok_or("oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment")?;
        if let (Some(a), Some(b)) = (parsed.port(), settings.callback_port) {
            if a != b {
                return Err("oauth.callbackUrl and oauth.callbackPort name different ports");
            }
        }
        settings.callback_url = Some(url);
    }
    settings.client_name = match value.get("clientName") {
        None => None,
        Some(Json::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(_) => return Err("oauth.clientName must be a non-empty string"),
    };
    settings.registration = match value.get("clientRegistration").map(Json::as_str) {
        None | Some(Some("auto")) => Registration::Auto,
        Some(Some("dcr")) => Registration::Dcr,
        // pi's order: the combination is refused before the missing documents.
        Some(Some("cimd")) if settings.client_id.is_some() || value.get("clientName").is_some() => {
            return Err("oauth.clientRegistration \"cimd\" cannot be combined with oauth.clientId or oauth.clientName")
        }
        Some(Some("cimd")) => {
            return Err("oauth.clientRegistration \"cimd\" is not supported: there are no Client ID Metadata Documents")
        }
        Some(_) => return Err("oauth.clientRegistration must be \"auto\", \"dcr\", or \"cimd\""),
    };
    if let Some(url) = text("authServerMetadataUrl", "oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]")? {
        let parsed = reqwest::Url::parse(&url).ok();
        let ok = parsed.as_ref().is_some_and(|u| {
            u.scheme() == "https"
                || (u.scheme() == "http"
                    && matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]" | "::1")))
        });
        if !ok {
            return Err("oauth.authServerMetadataUrl must be an https URL, or http on localhost, 127.0.0.1, or [::1]");
        }
        settings.auth_server_metadata_url = Some(url);
    }
    Ok(Some(settings))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> Result<Option<OAuthSettings>, &'static str> {
        parse(Some(&Json::parse(text).unwrap()))
    }

    #[test]
    fn settings_and_pi_s_texts() {
        let s = parsed(r#"{"clientId": "c", "clientSecret": "${S}", "callbackPort": 8765, "scope": "a b", "clientName": "Claude Code"}"#)
            .unwrap()
            .unwrap();
        assert_eq!(s.client_id.as_deref(), Some("c"));
        assert_eq!(s.callback_port, Some(8765));
        assert_eq!(s.client_name.as_deref(), Some("Claude Code"));
        assert_eq!(parse(None), Ok(None));
        assert_eq!(parsed("1"), Err("oauth must be an object"));
        assert_eq!(
            parsed(r#"{"callbackPort": 70000}"#),
            Err("oauth.callbackPort must be a port number")
        );
        assert_eq!(
            parsed(r#"{"callbackUrl": "https://example.com/cb"}"#).unwrap_err(),
            "oauth.callbackUrl must be an http URI on localhost, 127.0.0.1, or [::1] without query or fragment"
        );
        assert_eq!(
            parsed(r#"{"callbackUrl": "http://localhost:1/cb", "callbackPort": 2}"#),
            Err("oauth.callbackUrl and oauth.callbackPort name different ports")
        );
        assert!(parsed(r#"{"clientRegistration": "cimd"}"#)
            .unwrap_err()
            .contains("not supported"));
        assert_eq!(
            parsed(r#"{"clientRegistration": "cimd", "clientName": "x"}"#),
            Err("oauth.clientRegistration \"cimd\" cannot be combined with oauth.clientId or oauth.clientName")
        );
        assert_eq!(
            parsed(r#"{"clientRegistration": "x"}"#),
            Err("oauth.clientRegistration must be \"auto\", \"dcr\", or \"cimd\"")
        );
        assert!(parsed(r#"{"authServerMetadataUrl": "http://example.com/x"}"#).is_err());
        assert!(parsed(r#"{"authServerMetadataUrl": "http://127.0.0.1:9/x"}"#).is_ok());
    }
}
