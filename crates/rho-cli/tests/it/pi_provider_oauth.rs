//! A provider a pi extension registers with a sign-in (pi 1.6's `registerProvider(name, {
//! oauth })`, docs/custom-provider.md) over RPC against the loopback server: it loads without a
//! "not supported" notice; a stored credential that expired is refreshed through the
//! extension's `refreshToken` before the request, the refreshed credential is saved in pi's
//! auth.json shape (extras kept), and the request carries the key the extension's `getApiKey`
//! makes of it; a credential still valid is used as it is. Skipped, with the reason printed,
//! without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support::{self, reply, Start};
use serde_json::{json, Value};

/// A provider that signs in: `login` shows a URL, asks for a code, reports progress and
/// returns a credential made from the code (a code `crash` ends the whole host instead);
/// `refreshToken` marks the tokens it refreshed; `getApiKey` builds the key from the access
/// token and the credential's own extra field. No `apiKey`: pi asks none of a provider that
/// signs in. Its `baseUrl` is replaced by the user's models.json entry in the tests.
pub const SIGN_IN_PROVIDER: &str = r#"
export default function (pi) {
  pi.registerProvider("oauthext", {
    baseUrl: "http://127.0.0.1:9/v1",
    api: "openai-completions",
    models: [{ id: "om1", name: "OAuth model", reasoning: false, input: ["text"],
               cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
               contextWindow: 100000, maxTokens: 1000 }],
    oauth: {
      name: "Loopback Sign-In",
      async login(callbacks) {
        callbacks.onAuth({ url: "https://auth.example/authorize?client=rho-test", instructions: "Sign in there, then paste the code." });
        const code = await callbacks.onPrompt({ message: "Paste the code:", placeholder: "the code" });
        if (code === "crash") process.exit(3);
        callbacks.onProgress("Exchanging the code for tokens...");
        return { access: `access-${code}`, refresh: `refresh-${code}`, expires: Date.now() + 3600000, account: "acct-7" };
      },
      async refreshToken(credentials) {
        return { ...credentials, access: `${credentials.access}-refreshed`, refresh: `${credentials.refresh}-rotated`, expires: Date.now() + 3600000 };
      },
      getApiKey: (credentials) => `key:${credentials.access}:${credentials.account}`,
    },
  });
}
"#;

/// Asserts the credential stored under `oauthext` in auth.json `auth`: pi's shape with the
/// extension's extra field, and the other entry left as it was.
pub fn assert_saved(auth: &Value, access: &str, refresh: &str) {
    let saved = &auth["oauthext"];
    assert_eq!(saved["type"], "oauth", "{auth}");
    assert_eq!(saved["access"], access, "{auth}");
    assert_eq!(saved["refresh"], refresh, "{auth}");
    assert_eq!(saved["account"], "acct-7", "extras survive: {auth}");
    assert!(saved["expires"].as_i64().unwrap() > 1000, "{auth}");
    assert_eq!(auth["other"]["key"], "kept", "other entries stay: {auth}");
}

/// The user's models.json entry pointing the provider at the loopback server.
fn loopback(url: &str) -> Value {
    json!({"oauthext": {"baseUrl": format!("{url}/v1")}})
}

const EXPIRED: &str = r#"{"oauthext": {"type": "oauth", "access": "old", "refresh": "r0", "expires": 1000, "account": "acct-7"},
 "other": {"type": "api_key", "key": "kept"}}"#;

async fn prompt(rpc: &mut support::Rpc, id: &str, text: &str) {
    let r = rpc
        .call(json!({"id": id, "type": "prompt", "message": text}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    rpc.wait(|v| v["type"] == "agent_end").await;
}

#[tokio::test]
async fn an_expired_credential_is_refreshed_through_the_extension_and_its_key_is_sent() {
    let opts = Start {
        own_model: true,
        args: vec!["--model".into(), "oauthext/om1".into()],
        files: vec![("auth.json", EXPIRED)],
        providers: Some(loopback),
        ..Start::default()
    };
    let files = [("sign-in.ts", SIGN_IN_PROVIDER)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, opts).await else {
        return;
    };
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["model"]["provider"], "oauthext", "{state}");

    rpc.server.push(reply("Signed-in answer."));
    prompt(&mut rpc, "p1", "hello").await;
    let requests = rpc.server.requests();
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer key:old-refreshed:acct-7"),
        "the key getApiKey made of the refreshed credential"
    );
    let auth: Value =
        serde_json::from_str(&std::fs::read_to_string(rpc.agent_dir().join("auth.json")).unwrap())
            .unwrap();
    assert_saved(&auth, "old-refreshed", "r0-rotated");

    // Now valid: no second refresh, the same key.
    rpc.server.push(reply("Second answer."));
    prompt(&mut rpc, "p2", "again").await;
    let requests = rpc.server.requests();
    assert_eq!(
        requests[1].header("authorization"),
        Some("Bearer key:old-refreshed:acct-7")
    );
    let again = std::fs::read_to_string(rpc.agent_dir().join("auth.json")).unwrap();
    assert!(!again.contains("refreshed-refreshed"), "{again}");
    let seen: Vec<String> = rpc.seen.iter().map(Value::to_string).collect();
    assert!(
        !seen.iter().any(|l| l.contains("not supported")),
        "no notice about the sign-in: {seen:?}"
    );
}
