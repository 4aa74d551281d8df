//! Subscription logins with the real binary against loopback servers: `rho login anthropic`
//! (PKCE; a fake browser, curl, follows the authorization server's redirect to rho's loopback
//! callback) and `rho login github-copilot` (GitHub's device flow; the fake browser opening the
//! verification page approves the code) store tokens in pi's auth.json shape; a later request
//! refreshes a token that is due and carries the new one; a 401 refreshes once and retries; a
//! refresh that fails says to log in again. Nothing here reaches the internet.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use common::{stderr, stdout, Sandbox};
use rho_testkit::anthropic as wire;
use rho_testkit::oauth::MockOAuth;
use rho_testkit::openai_chat::ChatStream;
use rho_testkit::MockResponse;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

/// A `BROWSER` that fetches the page it is given, following redirects, as a browser would.
fn fake_browser(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join("fake-browser.sh");
    std::fs::write(&path, "#!/bin/sh\nexec curl -s -L -o /dev/null \"$1\"\n").unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// The environment that points every sign-in endpoint at `auth`.
fn oauth_env(auth: &MockOAuth, browser: &Path) -> Vec<(String, String)> {
    let base = auth.url();
    vec![
        ("BROWSER".into(), browser.display().to_string()),
        (
            "RHO_OAUTH_ANTHROPIC_AUTHORIZE_URL".into(),
            format!("{base}/oauth/authorize"),
        ),
        (
            "RHO_OAUTH_ANTHROPIC_TOKEN_URL".into(),
            format!("{base}/v1/oauth/token"),
        ),
        ("RHO_OAUTH_GITHUB_URL".into(), base.clone()),
        ("RHO_OAUTH_GITHUB_API_URL".into(), base.clone()),
        ("RHO_OAUTH_COPILOT_API_URL".into(), base),
    ]
}

/// Runs rho with the sign-in environment. For `login`, `stdin` is written and then kept open
/// (as a terminal would be: end of input cancels a sign-in) until rho exits; otherwise closed.
async fn run(sb: &Sandbox, env: &[(String, String)], args: &[&str], stdin: &str) -> Output {
    let mut cmd = sb.command(args);
    cmd.envs(env.iter().map(|(k, v)| (k, v)));
    let log = sb.agent.path().join(format!("{}.out", args[0]));
    cmd.stdout(std::fs::File::create(&log).unwrap());
    let elog = sb.agent.path().join(format!("{}.err", args[0]));
    cmd.stderr(std::fs::File::create(&elog).unwrap());
    let mut child = cmd.spawn().expect("spawn rho");
    let mut input = child.stdin.take().expect("stdin");
    input.write_all(stdin.as_bytes()).await.expect("stdin");
    let input = (args[0] == "login").then_some(input);
    let out = match tokio::time::timeout(Duration::from_secs(60), child.wait_with_output()).await {
        Ok(out) => out.expect("rho output"),
        Err(_) => panic!(
            "rho did not finish; stdout so far:\n{}\nstderr:\n{}\nmock: {:?}",
            std::fs::read_to_string(&log).unwrap_or_default(),
            std::fs::read_to_string(&elog).unwrap_or_default(),
            env
        ),
    };
    drop(input);
    Output {
        stdout: std::fs::read(&log).unwrap_or_default(),
        stderr: std::fs::read(&elog).unwrap_or_default(),
        ..out
    }
}

fn auth_json(sb: &Sandbox) -> Value {
    let text = std::fs::read_to_string(sb.agent.path().join("auth.json")).expect("auth.json");
    serde_json::from_str(&text).expect("auth.json is JSON")
}

fn anthropic_at(sb: &Sandbox) {
    sb.write_models(&json!({"providers": {"anthropic": {"baseUrl": sb.server.url()}}}));
}

fn anthropic_reply(text: &str) -> MockResponse {
    MockResponse::sse(wire::text_reply(
        "msg_1",
        "claude-sonnet-4-5",
        &[text],
        Default::default(),
    ))
}

const CLAUDE: &[&str] = &[
    "-p",
    "--no-session",
    "--model",
    "anthropic/claude-sonnet-4-5",
    "hi",
];

/// A sandbox, an authorization server issuing tokens for `expires_in` seconds, and the
/// environment pointing rho at it.
async fn world(expires_in: i64) -> (Sandbox, MockOAuth, Vec<(String, String)>) {
    let sb = Sandbox::new().await;
    let auth = MockOAuth::start().await;
    auth.set_expires_in(expires_in);
    let env = oauth_env(&auth, &fake_browser(sb.agent.path()));
    (sb, auth, env)
}

/// Signs in to Anthropic through the fake browser; the stored credential.
async fn sign_in_to_anthropic(sb: &Sandbox, env: &[(String, String)]) -> Value {
    let out = run(sb, env, &["login", "anthropic"], "").await;
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {text}\nstderr: {}",
        stderr(&out)
    );
    assert!(text.contains("Open this URL to sign in:"), "{text}");
    assert!(
        text.contains("Logged in to Anthropic (Claude Pro/Max). Credentials saved to"),
        "{text}"
    );
    auth_json(sb)["anthropic"].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pkce_login_stores_pi_credentials_and_a_due_token_is_refreshed_for_the_request() {
    // Stored five minutes early, a one-minute token is due at once.
    let (sb, auth, env) = world(60).await;
    let stored = sign_in_to_anthropic(&sb, &env).await;

    // pi's shape: {"type":"oauth","access","refresh","expires"}.
    assert_eq!(stored["type"], "oauth");
    let access = stored["access"].as_str().unwrap().to_string();
    assert!(access.starts_with("sk-ant-oat01-access-"), "{stored}");
    assert!(stored["refresh"]
        .as_str()
        .unwrap()
        .starts_with("anthropic-refresh-"));
    assert!(stored["expires"].is_i64());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(sb.agent.path().join("auth.json"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    // The browser went to the authorization page with a PKCE challenge, and the exchange
    // (which the mock checks against it) used the loopback redirect.
    let requests = auth.requests();
    let authorize = requests
        .iter()
        .find(|r| r.path.starts_with("/oauth/authorize?"))
        .unwrap();
    assert!(
        authorize.path.contains("code_challenge_method=S256"),
        "{}",
        authorize.path
    );
    let exchange = requests
        .iter()
        .find(|r| r.path == "/v1/oauth/token")
        .unwrap()
        .json();
    assert_eq!(exchange["grant_type"], "authorization_code");
    assert!(exchange["redirect_uri"]
        .as_str()
        .unwrap()
        .starts_with("http://localhost:"));
    assert!(exchange["code_verifier"]
        .as_str()
        .is_some_and(|v| v.len() >= 43));

    anthropic_at(&sb);
    sb.server.push(anthropic_reply("Hello from Claude"));
    let out = run(&sb, &env, CLAUDE, "").await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Hello from Claude\n");
    let refreshed = auth_json(&sb)["anthropic"].clone();
    let new_access = refreshed["access"].as_str().unwrap();
    assert_ne!(new_access, access, "the due token was refreshed");
    assert_ne!(
        refreshed["refresh"], stored["refresh"],
        "the rotated refresh token is kept"
    );
    let refresh = auth
        .requests()
        .into_iter()
        .filter(|r| r.path == "/v1/oauth/token")
        .nth(1)
        .unwrap()
        .json();
    assert_eq!(refresh["grant_type"], "refresh_token");
    assert_eq!(refresh["refresh_token"], stored["refresh"]);
    // The request carries the new token as Claude Code does.
    let req = &sb.server.requests()[0];
    assert_eq!(
        req.header("authorization"),
        Some(&*format!("Bearer {new_access}"))
    );
    assert!(req.header("x-api-key").is_none());
    assert!(req
        .header("anthropic-beta")
        .unwrap()
        .contains("oauth-2025-04-20"));
    assert_eq!(
        req.json()["system"][0]["text"],
        "You are Claude Code, Anthropic's official CLI for Claude."
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_refreshes_once_and_a_failed_refresh_says_to_log_in_again() {
    let (sb, auth, env) = world(3600).await;
    let stored = sign_in_to_anthropic(&sb, &env).await;
    let old = stored["access"].as_str().unwrap().to_string();
    anthropic_at(&sb);

    sb.server.push(MockResponse::error(401, r#"{"type":"error","error":{"type":"authentication_error","message":"OAuth token revoked"}}"#));
    sb.server.push(anthropic_reply("Retried"));
    let out = run(&sb, &env, CLAUDE, "").await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "Retried\n");
    let new = auth_json(&sb)["anthropic"]["access"]
        .as_str()
        .unwrap()
        .to_string();
    assert_ne!(new, old);
    let llm = sb.server.requests();
    assert_eq!(
        llm[0].header("authorization"),
        Some(&*format!("Bearer {old}"))
    );
    assert_eq!(
        llm[1].header("authorization"),
        Some(&*format!("Bearer {new}"))
    );

    auth.fail_refresh();
    sb.server.push(MockResponse::error(401, r#"{"type":"error","error":{"type":"authentication_error","message":"OAuth token revoked"}}"#));
    let out = run(&sb, &env, CLAUDE, "").await;
    assert_eq!(out.status.code(), Some(1));
    let err = stderr(&out);
    assert!(
        err.contains("Authentication failed for \"anthropic\". Credentials may have expired or network is unavailable. Run '/login anthropic' to re-authenticate."),
        "{err}"
    );
    assert!(
        err.contains("invalid_grant"),
        "the refresh's answer is named: {err}"
    );
    assert_eq!(
        auth_json(&sb)["anthropic"]["access"],
        new,
        "a failed refresh stores nothing"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_device_code_login_to_copilot_stores_pi_credentials_and_a_due_token_is_refreshed() {
    let (sb, auth, env) = world(60).await;
    // A blank answer: github.com, not an Enterprise host.
    let out = run(&sb, &env, &["login", "github-copilot"], "\n").await;
    let text = stdout(&out);
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout: {text}\nstderr: {}",
        stderr(&out)
    );
    assert!(
        text.contains(&format!(
            "Open {}/login/device and enter code: ABCD-1234",
            auth.url()
        )),
        "{text}"
    );
    assert!(
        text.contains("Logged in to GitHub Copilot. Credentials saved to"),
        "{text}"
    );
    let stored = auth_json(&sb)["github-copilot"].clone();
    assert_eq!(stored["type"], "oauth");
    let access = stored["access"].as_str().unwrap().to_string();
    assert!(
        access.starts_with("tid-") && access.contains(";exp="),
        "{stored}"
    );
    assert!(
        stored["refresh"].as_str().unwrap().starts_with("gho-"),
        "the GitHub token is the refresh token"
    );
    assert_eq!(
        stored["availableModelIds"],
        json!(["gpt-4.1", "claude-sonnet-4.6"])
    );
    assert!(stored.get("enterpriseUrl").is_none());
    assert_eq!(
        auth.count("POST", "/models/claude-sonnet-4.6/policy"),
        1,
        "the unset policy was enabled"
    );

    sb.write_models(&json!({"providers": {"github-copilot": {"baseUrl": sb.server.url()}}}));
    // A Copilot model of pi 1.6's catalog that speaks Chat Completions.
    sb.server.push(
        ChatStream::new("c1", "kimi-k3")
            .role()
            .text("From Copilot")
            .finish("stop")
            .done()
            .response(),
    );
    let args = [
        "-p",
        "--no-session",
        "--model",
        "github-copilot/kimi-k3",
        "hi",
    ];
    let out = run(&sb, &env, &args, "").await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "From Copilot\n");
    let refreshed = auth_json(&sb)["github-copilot"].clone();
    let new_access = refreshed["access"].as_str().unwrap();
    assert_ne!(new_access, access);
    assert_eq!(
        refreshed["refresh"], stored["refresh"],
        "the GitHub token stays"
    );
    assert_eq!(auth.count("GET", "/copilot_internal/v2/token"), 2);
    let req = &sb.server.requests()[0];
    assert_eq!(req.path, "/chat/completions");
    assert_eq!(
        req.header("authorization"),
        Some(&*format!("Bearer {new_access}"))
    );
    assert_eq!(req.header("copilot-integration-id"), Some("vscode-chat"));
}

#[tokio::test]
async fn logout_removes_the_stored_credential_and_unknown_providers_are_named() {
    let sb = Sandbox::new().await;
    std::fs::write(
        sb.agent.path().join("auth.json"),
        r#"{"anthropic": {"type": "oauth", "access": "a", "refresh": "r", "expires": 1}, "openai": {"type": "api_key", "key": "k"}}"#,
    )
    .unwrap();
    let out = sb.rho(&["logout", "anthropic"], None).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).starts_with("Logged out of anthropic."));
    let left = auth_json(&sb);
    assert!(left.get("anthropic").is_none() && left.get("openai").is_some());
    let out = sb.rho(&["auth", "logout", "anthropic"], None).await;
    assert_eq!(stdout(&out), "No stored credential for anthropic.\n");
    let out = sb.rho(&["login", "no-such-provider"], None).await;
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).starts_with("Unknown provider \"no-such-provider\"."),
        "{}",
        stderr(&out)
    );
    let out = sb
        .rho(&["login", "openai", "--api-key"], Some("sk-typed\n"))
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        auth_json(&sb)["openai"],
        json!({"type": "api_key", "key": "sk-typed"})
    );
}
