//! [`MockOAuth`]: a loopback authorization server speaking the sign-in wire shapes rho's flows
//! use, so login tests run real processes without the internet. One server answers:
//!
//! - Anthropic's PKCE flow: `GET /oauth/authorize` redirects (302) to the `redirect_uri` with a
//!   code; `POST /v1/oauth/token` (JSON) exchanges it, checking the PKCE verifier against the
//!   challenge, and refreshes.
//! - GitHub's device flow and Copilot: `POST /login/device/code`, `GET /login/device` (the page
//!   the browser opens; visiting it approves the code), `POST /login/oauth/access_token`,
//!   `GET /copilot_internal/v2/token`, `GET /models`, `POST /models/<id>/policy`.
//! - An MCP server behind OAuth (RFC 9728 / 8414 discovery, dynamic client registration,
//!   `/authorize`, `/token` with PKCE, refresh): requests to `/mcp` without a valid bearer
//!   token get 401 with a `WWW-Authenticate` challenge; with one they are passed to the real
//!   MCP server given to [`MockOAuth::start_with_upstream`].
//!
//! Every token it issues is unique (`<prefix>-<n>`), so a test can tell which one a request
//! carried; [`MockOAuth::fail_refresh`] makes refreshes answer `invalid_grant`.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::server::{read_request, RecordedRequest};

/// A pending authorization code.
struct Grant {
    challenge: String,
    redirect_uri: String,
}

#[derive(Default)]
struct State {
    grants: HashMap<String, Grant>,
    /// Refresh token → kind ("anthropic", "mcp").
    refresh_tokens: HashMap<String, &'static str>,
    /// Valid access tokens of the MCP server.
    mcp_tokens: Vec<String>,
    /// Device code → approved.
    devices: HashMap<String, bool>,
    github_tokens: Vec<String>,
    counter: u64,
    expires_in: i64,
    refresh_fails: bool,
    requests: Vec<RecordedRequest>,
    clients: Vec<Value>,
}

impl State {
    fn next(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}-{}", self.counter)
    }
}

struct Shared {
    base: String,
    upstream: Option<String>,
    state: Mutex<State>,
}

/// The server; it stops when dropped.
pub struct MockOAuth {
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for MockOAuth {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl MockOAuth {
    /// Starts on an ephemeral loopback port.
    pub async fn start() -> MockOAuth {
        Self::start_inner(None).await
    }

    /// Starts, passing authorized `/mcp` requests to the MCP server at `upstream`
    /// (`http://127.0.0.1:<port>`).
    pub async fn start_with_upstream(upstream: &str) -> MockOAuth {
        Self::start_inner(Some(upstream.trim_end_matches('/').to_string())).await
    }

    async fn start_inner(upstream: Option<String>) -> MockOAuth {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr: SocketAddr = listener.local_addr().expect("addr");
        let shared = Arc::new(Shared {
            base: format!("http://{addr}"),
            upstream,
            state: Mutex::new(State {
                expires_in: 3600,
                ..Default::default()
            }),
        });
        let s = shared.clone();
        let task = tokio::spawn(async move {
            while let Ok((sock, _)) = listener.accept().await {
                let s = s.clone();
                tokio::spawn(async move { serve(sock, &s).await });
            }
        });
        MockOAuth { shared, task }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        self.shared.base.clone()
    }

    /// Lifetime of the tokens issued from now on, in seconds (default 3600). Anthropic and
    /// Copilot credentials are stored five minutes early, so under 300 they are due at once.
    pub fn set_expires_in(&self, seconds: i64) {
        self.state().expires_in = seconds;
    }

    /// Makes every refresh answer `400 invalid_grant` from now on.
    pub fn fail_refresh(&self) {
        self.state().refresh_fails = true;
    }

    /// Every request so far.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state().requests.clone()
    }

    /// How many requests had this method and path (without the query).
    pub fn count(&self, method: &str, path: &str) -> usize {
        self.requests()
            .iter()
            .filter(|r| r.method == method && r.path.split('?').next() == Some(path))
            .count()
    }

    /// The clients registered dynamically (`POST /register` bodies).
    pub fn registered_clients(&self) -> Vec<Value> {
        self.state().clients.clone()
    }

    /// Forgets every MCP access token issued so far (as a server that revoked them): the next
    /// `/mcp` request with one gets 401.
    pub fn revoke_mcp_tokens(&self) {
        self.state().mcp_tokens.clear();
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.state.lock().expect("state")
    }
}

/// A response: status, headers, body.
struct Reply {
    status: u16,
    headers: Vec<(String, String)>,
    body: String,
}

fn reply(status: u16, body: Value) -> Reply {
    Reply {
        status,
        headers: vec![("content-type".into(), "application/json".into())],
        body: body.to_string(),
    }
}

fn redirect(location: String) -> Reply {
    Reply {
        status: 302,
        headers: vec![("location".into(), location)],
        body: String::new(),
    }
}

async fn serve(mut sock: TcpStream, shared: &Shared) {
    let Some(request) = read_request(&mut sock).await else {
        return;
    };
    shared
        .state
        .lock()
        .expect("state")
        .requests
        .push(request.clone());
    let path = request
        .path
        .split('?')
        .next()
        .unwrap_or_default()
        .to_string();
    if path == "/mcp" || path.starts_with("/mcp/") {
        return mcp(sock, shared, &request).await;
    }
    let answer = route(shared, &request, &path);
    let mut head = format!("HTTP/1.1 {} X\r\n", answer.status);
    for (k, v) in &answer.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        answer.body.len()
    ));
    let _ = sock.write_all(head.as_bytes()).await;
    let _ = sock.write_all(answer.body.as_bytes()).await;
    let _ = sock.shutdown().await;
}

/// The query or form parameters of `text`.
fn params(text: &str) -> HashMap<String, String> {
    text.split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}

fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b'+', _) => {
                out.push(b' ');
                i += 1;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn route(shared: &Shared, request: &RecordedRequest, path: &str) -> Reply {
    let query = params(request.path.split_once('?').map_or("", |(_, q)| q));
    let form = params(&request.body);
    let json = request.json();
    let base = &shared.base;
    let mut st = shared.state.lock().expect("state");
    match (request.method.as_str(), path) {
        ("GET", "/oauth/authorize" | "/authorize") => authorize(&mut st, &query),
        ("POST", "/v1/oauth/token") => {
            let field = |k: &str| {
                json.get(k)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .to_string()
            };
            let fields: HashMap<String, String> = [
                "grant_type",
                "code",
                "code_verifier",
                "redirect_uri",
                "refresh_token",
            ]
            .iter()
            .map(|k| (k.to_string(), field(k)))
            .collect();
            token(&mut st, &fields, "anthropic", "sk-ant-oat01-access")
        }
        ("POST", "/token") => token(&mut st, &form, "mcp", "mcp-access"),
        ("POST", "/login/device/code") => {
            let device = st.next("device");
            st.devices.insert(device.clone(), false);
            reply(
                200,
                json!({
                    "device_code": device, "user_code": "ABCD-1234",
                    "verification_uri": format!("{base}/login/device"),
                    "interval": 1, "expires_in": 900,
                }),
            )
        }
        ("GET", "/login/device") => {
            st.devices
                .values_mut()
                .for_each(|approved| *approved = true);
            Reply {
                status: 200,
                headers: vec![("content-type".into(), "text/html".into())],
                body: "<p>Device approved</p>".into(),
            }
        }
        ("POST", "/login/oauth/access_token") => {
            let approved = form
                .get("device_code")
                .and_then(|d| st.devices.get(d).copied());
            match approved {
                Some(true) => {
                    let token = st.next("gho");
                    st.github_tokens.push(token.clone());
                    reply(
                        200,
                        json!({"access_token": token, "token_type": "bearer", "scope": "read:user"}),
                    )
                }
                Some(false) => reply(200, json!({"error": "authorization_pending"})),
                None => reply(
                    200,
                    json!({"error": "expired_token", "error_description": "unknown device code"}),
                ),
            }
        }
        ("GET", "/copilot_internal/v2/token") => {
            let bearer = request.header("authorization").unwrap_or_default();
            let known = st
                .github_tokens
                .iter()
                .any(|t| bearer == format!("Bearer {t}"));
            if !known || st.refresh_fails {
                return reply(401, json!({"message": "Bad credentials"}));
            }
            let token = st.next("tid");
            let expires_at = now_secs() + st.expires_in;
            reply(
                200,
                json!({"token": format!("{token};exp={expires_at};sku=free"), "expires_at": expires_at}),
            )
        }
        ("GET", "/models") => reply(
            200,
            json!({"data": [
                {"id": "gpt-4.1", "model_picker_enabled": true, "policy": {"state": "enabled"}},
                {"id": "claude-sonnet-4.6", "model_picker_enabled": true, "policy": {"state": "unconfigured"}}
            ]}),
        ),
        ("POST", p) if p.starts_with("/models/") && p.ends_with("/policy") => reply(200, json!({})),
        ("GET", p) if p.starts_with("/.well-known/oauth-protected-resource") => reply(
            200,
            json!({
                "resource": format!("{base}/mcp"),
                "authorization_servers": [base],
                "scopes_supported": ["mcp:tools"],
            }),
        ),
        ("GET", "/.well-known/oauth-authorization-server") => reply(
            200,
            json!({
                "issuer": base,
                "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"),
                "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
            }),
        ),
        ("POST", "/register") => {
            let client_id = st.next("client");
            let mut client = json.clone();
            client["client_id"] = json!(client_id);
            st.clients.push(client.clone());
            reply(201, client)
        }
        _ => reply(404, json!({"error": "not_found", "path": path})),
    }
}

/// `/authorize`: remembers the challenge and sends the browser back with a code.
fn authorize(st: &mut State, query: &HashMap<String, String>) -> Reply {
    let (Some(redirect_uri), Some(challenge)) =
        (query.get("redirect_uri"), query.get("code_challenge"))
    else {
        return reply(400, json!({"error": "invalid_request"}));
    };
    if query.get("code_challenge_method").map(String::as_str) != Some("S256") {
        return reply(
            400,
            json!({"error": "invalid_request", "error_description": "S256 only"}),
        );
    }
    let code = st.next("code");
    st.grants.insert(
        code.clone(),
        Grant {
            challenge: challenge.clone(),
            redirect_uri: redirect_uri.clone(),
        },
    );
    let state = query.get("state").cloned().unwrap_or_default();
    let sep = if redirect_uri.contains('?') { '&' } else { '?' };
    redirect(format!(
        "{redirect_uri}{sep}code={}&state={}",
        encode(&code),
        encode(&state)
    ))
}

/// The token endpoint: a code exchange (PKCE checked) or a refresh.
fn token(st: &mut State, f: &HashMap<String, String>, kind: &'static str, prefix: &str) -> Reply {
    let get = |k: &str| f.get(k).map(String::as_str).unwrap_or_default();
    match get("grant_type") {
        "authorization_code" => {
            let Some(grant) = st.grants.remove(get("code")) else {
                return reply(
                    400,
                    json!({"error": "invalid_grant", "error_description": "unknown code"}),
                );
            };
            let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(get("code_verifier").as_bytes()));
            if computed != grant.challenge || grant.redirect_uri != get("redirect_uri") {
                return reply(
                    400,
                    json!({"error": "invalid_grant", "error_description": "PKCE or redirect_uri mismatch"}),
                );
            }
        }
        "refresh_token" => {
            if st.refresh_fails || st.refresh_tokens.remove(get("refresh_token")).is_none() {
                return reply(
                    400,
                    json!({"error": "invalid_grant", "error_description": "Refresh token revoked"}),
                );
            }
        }
        _ => return reply(400, json!({"error": "unsupported_grant_type"})),
    }
    let access = st.next(prefix);
    let refresh = st.next(&format!("{kind}-refresh"));
    st.refresh_tokens.insert(refresh.clone(), kind);
    if kind == "mcp" {
        st.mcp_tokens.push(access.clone());
    }
    reply(
        200,
        json!({
            "access_token": access, "refresh_token": refresh,
            "token_type": "Bearer", "expires_in": st.expires_in,
        }),
    )
}

fn now_secs() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// `/mcp`: 401 with a challenge unless the bearer token is valid; then the request goes to
/// the upstream MCP server and its answer (an SSE stream too) comes back until it ends.
async fn mcp(mut sock: TcpStream, shared: &Shared, request: &RecordedRequest) {
    let bearer = request
        .header("authorization")
        .unwrap_or_default()
        .to_string();
    let valid = {
        let st = shared.state.lock().expect("state");
        st.mcp_tokens
            .iter()
            .any(|t| bearer == format!("Bearer {t}"))
    };
    let Some(upstream) = shared.upstream.as_ref().filter(|_| valid) else {
        let challenge = format!(
            "Bearer error=\"invalid_token\", resource_metadata=\"{}/.well-known/oauth-protected-resource/mcp\"",
            shared.base
        );
        let body = r#"{"error":"invalid_token"}"#;
        let head = format!(
            "HTTP/1.1 401 Unauthorized\r\nwww-authenticate: {challenge}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        let _ = sock.write_all(head.as_bytes()).await;
        let _ = sock.write_all(body.as_bytes()).await;
        let _ = sock.shutdown().await;
        return;
    };
    let Ok(mut up) = TcpStream::connect(upstream.trim_start_matches("http://")).await else {
        return;
    };
    let host = upstream.trim_start_matches("http://");
    let mut head = format!(
        "{} {} HTTP/1.1\r\nhost: {host}\r\n",
        request.method, request.path
    );
    for (k, v) in &request.headers {
        if !matches!(
            k.as_str(),
            "host" | "connection" | "keep-alive" | "content-length" | "authorization"
        ) {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
    }
    head.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        request.body.len()
    ));
    if up.write_all(head.as_bytes()).await.is_err()
        || up.write_all(request.body.as_bytes()).await.is_err()
    {
        return;
    }
    relay(&mut up, &mut sock).await;
    let _ = sock.shutdown().await;
}

/// Copies one response from `up` to `client`, telling the client the connection closes after
/// it (the upstream keeps it alive, and this proxy serves one request per connection): the
/// head with `connection: close`, then the body until its length or last chunk, or until the
/// upstream closes (a stream that stays open, as an SSE `GET`, is copied as it comes).
async fn relay(up: &mut TcpStream, client: &mut TcpStream) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(p) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break p + 4;
        }
        match up.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut rewritten = String::new();
    let (mut length, mut chunked) = (None, false);
    for line in head.trim_end().split("\r\n") {
        let lower = line.to_ascii_lowercase();
        if lower.starts_with("connection:") {
            continue;
        }
        if let Some(v) = lower.strip_prefix("content-length:") {
            length = v.trim().parse::<usize>().ok();
        }
        chunked |= lower.starts_with("transfer-encoding:") && lower.contains("chunked");
        rewritten.push_str(line);
        rewritten.push_str("\r\n");
    }
    rewritten.push_str("connection: close\r\n\r\n");
    if client.write_all(rewritten.as_bytes()).await.is_err() {
        return;
    }
    let mut body = buf[head_end..].to_vec();
    let mut sent = 0usize;
    loop {
        if client.write_all(&body).await.is_err() {
            return;
        }
        sent += body.len();
        let done = match length {
            Some(n) => sent >= n,
            None => chunked && body.ends_with(b"0\r\n\r\n"),
        };
        if done {
            return;
        }
        body = match up.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => chunk[..n].to_vec(),
        };
    }
}
