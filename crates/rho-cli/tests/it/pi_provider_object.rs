//! A provider a pi extension registers as a pi-ai 1.6 `Provider` object (`createProvider` with
//! pi-ai's own `openAICompletionsApi()`, docs/extensions.md "pi.registerProvider") over RPC
//! against the loopback server: its models are selectable, its replies come through pi-ai's
//! own implementation, and the key is what its `auth.apiKey.resolve` makes of rho's stored
//! key, or finds by itself without one. Skipped, with the reason printed, without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support::{reply, Start};
use serde_json::{json, Value};

/// A provider object whose `resolve` prefixes a stored key and otherwise finds an ambient
/// one; its `baseUrl` is replaced by the user's models.json entry in the tests.
const OBJECT_PROVIDER: &str = r#"
import { createProvider, openAICompletionsApi } from "@earendil-works/pi-ai/compat";

export default function (pi) {
  pi.registerProvider(createProvider({
    id: "objprov",
    name: "Object Provider",
    baseUrl: "http://127.0.0.1:9/v1",
    auth: {
      apiKey: {
        name: "Object Provider key",
        async resolve({ credential }) {
          return { auth: { apiKey: credential?.key ? `stored:${credential.key}` : "ambient-key" }, source: "test" };
        },
      },
    },
    models: [{ id: "om", name: "Object model", api: "openai-completions", provider: "objprov",
               baseUrl: "http://127.0.0.1:9/v1", reasoning: false, input: ["text"],
               cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
               contextWindow: 100000, maxTokens: 1000 }],
    api: openAICompletionsApi(),
  }));
}
"#;

fn loopback(url: &str) -> Value {
    json!({"objprov": {"baseUrl": format!("{url}/v1")}})
}

fn options(files: Vec<(&'static str, &'static str)>) -> Start {
    Start {
        own_model: true,
        args: vec!["--model".into(), "objprov/om".into()],
        files,
        providers: Some(loopback),
        ..Start::default()
    }
}

#[tokio::test]
async fn a_provider_object_streams_through_pi_ai_with_the_key_its_auth_resolves() {
    let files = [("object-provider.ts", OBJECT_PROVIDER)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, options(vec![])).await else {
        return;
    };
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["model"]["provider"], "objprov", "{state}");
    assert_eq!(state["data"]["model"]["id"], "om", "{state}");

    rpc.server.push(reply("From the object."));
    assert_eq!(rpc.prompt_ok("p", "hello").await, "From the object.");
    let requests = rpc.server.requests();
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer ambient-key")
    );
    assert_eq!(requests[0].json()["model"], "om");
    let seen: Vec<String> = rpc.seen.iter().map(Value::to_string).collect();
    assert!(
        !seen.iter().any(|l| l.contains("not supported")),
        "no notice about the provider object: {seen:?}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test]
async fn a_stored_key_goes_through_the_provider_s_resolve() {
    let auth = r#"{"objprov": {"type": "api_key", "key": "k1"}}"#;
    let files = [("object-provider.ts", OBJECT_PROVIDER)];
    let opts = options(vec![("auth.json", auth)]);
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, opts).await else {
        return;
    };
    rpc.server.push(reply("Keyed."));
    assert_eq!(rpc.prompt_ok("p", "hello").await, "Keyed.");
    let requests = rpc.server.requests();
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer stored:k1")
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// A provider object that signs in: `refresh` marks the tokens, `toAuth` builds the key.
const OBJECT_SIGN_IN: &str = r#"
import { createProvider, openAICompletionsApi } from "@earendil-works/pi-ai/compat";

export default function (pi) {
  pi.registerProvider(createProvider({
    id: "objprov",
    name: "Object Provider",
    baseUrl: "http://127.0.0.1:9/v1",
    auth: {
      oauth: {
        name: "Object Sign-In",
        async login(interaction) {
          const code = await interaction.prompt({ type: "text", message: "Code:" });
          return { type: "oauth", access: `a-${code}`, refresh: `r-${code}`, expires: Date.now() + 3600000 };
        },
        async refresh(credential) {
          return { ...credential, access: `${credential.access}-refreshed`, expires: Date.now() + 3600000 };
        },
        async toAuth(credential) {
          return { apiKey: `oauth:${credential.access}`, headers: { "x-signed-in-as": credential.access } };
        },
      },
    },
    models: [{ id: "om", name: "Object model", api: "openai-completions", provider: "objprov",
               baseUrl: "http://127.0.0.1:9/v1", reasoning: false, input: ["text"],
               cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
               contextWindow: 100000, maxTokens: 1000 }],
    api: openAICompletionsApi(),
  }));
}
"#;

/// An expired sign-in of a provider object is refreshed through its `auth.oauth.refresh`,
/// saved, and the request carries the key and the headers its `toAuth` makes.
#[tokio::test]
async fn a_provider_object_s_sign_in_is_refreshed_and_turned_into_the_key() {
    let auth =
        r#"{"objprov": {"type": "oauth", "access": "old", "refresh": "r0", "expires": 1000}}"#;
    let files = [("object-sign-in.ts", OBJECT_SIGN_IN)];
    let opts = options(vec![("auth.json", auth)]);
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, opts).await else {
        return;
    };
    rpc.server.push(reply("Signed."));
    assert_eq!(rpc.prompt_ok("p", "hello").await, "Signed.");
    let requests = rpc.server.requests();
    assert_eq!(
        requests[0].header("authorization"),
        Some("Bearer oauth:old-refreshed")
    );
    assert_eq!(
        requests[0].header("x-signed-in-as"),
        Some("old-refreshed"),
        "the headers toAuth adds go with the request"
    );
    let saved = std::fs::read_to_string(rpc.agent_dir().join("auth.json")).unwrap();
    let saved: Value = serde_json::from_str(&saved).unwrap();
    assert_eq!(saved["objprov"]["access"], "old-refreshed", "{saved}");
    assert_eq!(rpc.close().await, Some(0));
}

/// A provider object with pi-ai's `fetchModels`: it lists one more model, named after the key
/// its auth resolved.
const OBJECT_FETCHES: &str = r#"
import { createProvider, openAICompletionsApi } from "@earendil-works/pi-ai/compat";

const model = (id, name) => ({ id, name, api: "openai-completions", provider: "objprov",
  baseUrl: "http://127.0.0.1:9/v1", reasoning: false, input: ["text"],
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, contextWindow: 100000, maxTokens: 1000 });

export default function (pi) {
  pi.registerProvider(createProvider({
    id: "objprov",
    name: "Object Provider",
    baseUrl: "http://127.0.0.1:9/v1",
    auth: { apiKey: { name: "key", async resolve() { return { auth: { apiKey: "ambient-key" }, source: "test" }; } } },
    models: [model("om", "Object model")],
    async fetchModels({ credential }) {
      return [model("fetched", `fetched with ${credential?.key}`)];
    },
    api: openAICompletionsApi(),
  }));
}
"#;

/// pi-ai's `fetchModels` of a provider object runs in rho's network refresh: the fetched
/// model joins the provider's, is persisted as pi-ai persists it, and answers a prompt.
#[tokio::test]
async fn a_provider_object_s_fetched_models_are_listed_persisted_and_used() {
    let files = [("object-fetches.ts", OBJECT_FETCHES)];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, options(vec![])).await else {
        return;
    };
    let deadline = tokio::time::Instant::now() + std::time::Duration::from_secs(20);
    let fetched = loop {
        let r = rpc
            .call(json!({"id": "am", "type": "get_available_models"}))
            .await;
        let models = r["data"]["models"].as_array().cloned().unwrap_or_default();
        let found = models.into_iter().find(|m| m["id"] == "fetched");
        if found.is_some() || tokio::time::Instant::now() > deadline {
            break found.unwrap_or_else(|| panic!("objprov/fetched never listed: {r}"));
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    };
    assert_eq!(fetched["provider"], "objprov");
    assert_eq!(fetched["name"], "fetched with ambient-key");
    let store = std::fs::read_to_string(rpc.agent_dir().join("models-store.json")).unwrap();
    let store: Value = serde_json::from_str(&store).unwrap();
    assert_eq!(store["objprov"]["models"][0]["id"], "fetched", "{store}");

    let set = json!({"id": "sm", "type": "set_model", "provider": "objprov", "modelId": "fetched"});
    let r = rpc.call(set).await;
    assert_eq!(r["success"], true, "{r}");
    rpc.server.push(reply("From the fetched model."));
    assert_eq!(rpc.prompt_ok("p", "hello").await, "From the fetched model.");
    assert_eq!(rpc.server.requests()[0].json()["model"], "fetched");
    assert_eq!(rpc.close().await, Some(0));
}
