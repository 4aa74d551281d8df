//! The HTTP requests of a sign-in or refresh: form and JSON posts and GETs with a time limit,
//! answering the status and the body (error bodies cut to a readable size).

use std::time::Duration;

use serde_json::Value;

use super::OAuthError;

/// Each request to an authorization server gets this long.
const TIMEOUT: Duration = Duration::from_secs(30);
/// How much of an error body an error message keeps.
const BODY_CAP: usize = 2000;

/// A status and a body.
pub(crate) struct Answer {
    pub status: u16,
    pub body: String,
}

impl Answer {
    /// The body as JSON (`Null` when it is not JSON).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }

    pub fn ok(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// The JSON body of a 2xx answer; otherwise an error naming `what`.
    pub fn expect_json(self, what: &str) -> Result<Value, OAuthError> {
        if !self.ok() {
            return Err(self.failure(what));
        }
        serde_json::from_str(&self.body).map_err(|_| {
            OAuthError::Invalid(format!("{what} returned invalid JSON: {}", cap(&self.body)))
        })
    }

    /// The error for a non-2xx answer.
    pub fn failure(&self, what: &str) -> OAuthError {
        OAuthError::Status {
            what: what.to_string(),
            status: self.status,
            body: cap(&self.body),
        }
    }
}

fn cap(body: &str) -> String {
    match body.char_indices().nth(BODY_CAP) {
        Some((i, _)) => format!("{}…", &body[..i]),
        None => body.to_string(),
    }
}

/// Sends `request`; `what` names it in errors ("Anthropic token refresh").
pub(crate) async fn send(
    request: reqwest::RequestBuilder,
    what: &str,
) -> Result<Answer, OAuthError> {
    let response =
        request
            .timeout(TIMEOUT)
            .send()
            .await
            .map_err(|source| OAuthError::Transport {
                what: what.to_string(),
                source,
            })?;
    let status = response.status().as_u16();
    let body = response
        .text()
        .await
        .map_err(|source| OAuthError::Transport {
            what: what.to_string(),
            source,
        })?;
    Ok(Answer { status, body })
}

/// `POST` with a form body.
pub(crate) async fn post_form(
    url: &str,
    params: &[(&str, &str)],
    headers: &[(&str, &str)],
    what: &str,
) -> Result<Answer, OAuthError> {
    let body = reqwest::Url::parse_with_params("http://x/", params)
        .ok()
        .and_then(|u| u.query().map(str::to_string))
        .unwrap_or_default();
    let mut req = crate::http::client()
        .post(url)
        .header("content-type", "application/x-www-form-urlencoded")
        .header("accept", "application/json")
        .body(body);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    send(req, what).await
}

/// `POST` with a JSON body.
pub(crate) async fn post_json(url: &str, body: &Value, what: &str) -> Result<Answer, OAuthError> {
    let req = crate::http::client()
        .post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json")
        .body(body.to_string());
    send(req, what).await
}

/// `GET` with headers.
pub(crate) async fn get(
    url: &str,
    headers: &[(&str, &str)],
    what: &str,
) -> Result<Answer, OAuthError> {
    let mut req = crate::http::client()
        .get(url)
        .header("accept", "application/json");
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    send(req, what).await
}

/// A string field of a JSON object.
pub(crate) fn text(value: &Value, key: &str) -> Option<String> {
    value
        .get(key)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
}

/// A number field (also a numeric string, as some servers send `interval`).
pub(crate) fn number(value: &Value, key: &str) -> Option<f64> {
    match value.get(key)? {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}
