//! Refreshing model catalogs into `models-store.json` (issue 37) with the real binary against
//! loopback servers: one stands in for pi's catalog service (`RHO_MODEL_CATALOG_URL`), one for
//! OpenRouter's OpenAI-style `/models/user` list (models.json's `baseUrl`). `rho update
//! --models` writes what they serve and the model list shows it; `--offline` start-ups ask
//! nothing; a broken store is reported with its path and rebuilt.

use std::path::PathBuf;
use std::process::{Output, Stdio};
use std::time::Duration;

use rho_testkit::{MockResponse, MockServer};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// An agent dir, and the catalog service the binary is pointed at.
struct World {
    agent: tempfile::TempDir,
    catalog: MockServer,
}

impl World {
    async fn new() -> World {
        World {
            agent: tempfile::tempdir().expect("agent dir"),
            catalog: MockServer::start().await,
        }
    }

    fn store_path(&self) -> PathBuf {
        self.agent.path().join("models-store.json")
    }

    fn store(&self) -> Value {
        let text = std::fs::read_to_string(self.store_path()).expect("models-store.json");
        serde_json::from_str(&text).expect("valid JSON")
    }

    fn command(&self, args: &[&str], keys: &[(&str, &str)]) -> tokio::process::Command {
        let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"));
        cmd.args(args)
            .current_dir(self.agent.path())
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", self.agent.path())
            .env("RHO_CODING_AGENT_DIR", self.agent.path())
            .env("RHO_MODEL_CATALOG_URL", self.catalog.url())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (k, v) in keys {
            cmd.env(k, v);
        }
        cmd
    }

    async fn rho(&self, args: &[&str], keys: &[(&str, &str)]) -> Output {
        let mut child = self.command(args, keys).spawn().expect("spawn rho");
        drop(child.stdin.take());
        child.wait_with_output().await.expect("rho finishes")
    }
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A model as pi's catalog service serves it.
fn served(id: &str, context: u64) -> Value {
    json!({"id": id, "name": id, "api": "openai-responses", "provider": "xai",
           "baseUrl": "https://api.x.ai/v1", "reasoning": true, "input": ["text", "image"],
           "cost": {"input": 1, "output": 2, "cacheRead": 0.1, "cacheWrite": 0},
           "contextWindow": context, "maxTokens": 64000, "type": "chat"})
}

/// `(model, context, max-out)` of the listed rows.
fn listed(out: &Output) -> Vec<(String, String, String)> {
    text(&out.stdout)
        .lines()
        .skip(1)
        .map(|l| {
            let c: Vec<&str> = l.split_whitespace().collect();
            (c[1].to_string(), c[2].to_string(), c[3].to_string())
        })
        .collect()
}

const XAI: &[(&str, &str)] = &[("XAI_API_KEY", "xai-key")];

#[tokio::test]
async fn update_models_narrows_openrouter_to_the_keys_loopback_model_list() {
    let world = World::new().await;
    let openrouter = MockServer::start().await;
    let models =
        json!({"providers": {"openrouter": {"baseUrl": format!("{}/api/v1", openrouter.url())}}});
    std::fs::write(world.agent.path().join("models.json"), models.to_string()).expect("models");
    // No catalog of OpenRouter on the service: the built-in one is narrowed.
    world.catalog.push(MockResponse::error(404, "{}"));
    openrouter.push(MockResponse::json(&json!({"data": [
        {"id": "moonshotai/kimi-k2", "context_length": 4242,
         "top_provider": {"context_length": null, "max_completion_tokens": 777},
         "pricing": {"prompt": "0.000001", "completion": "0.000002"}},
        {"id": "not/in-the-catalog"}
    ]})));
    let keys = [("OPENROUTER_API_KEY", "or-key")];
    let out = world.rho(&["update", "--models"], &keys).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "Model catalogs refreshed\n");

    let asked = &world.catalog.requests()[0];
    assert_eq!(asked.method, "GET");
    assert_eq!(
        asked.path,
        "/api/models/providers/openrouter?types=chat,image,classifier"
    );
    assert!(
        asked
            .header("user-agent")
            .is_some_and(|ua| ua.starts_with("pi/1.6.0 (")),
        "{:?}",
        asked.header("user-agent")
    );
    let list = &openrouter.requests()[0];
    assert_eq!(list.path, "/api/v1/models/user");
    assert_eq!(list.header("authorization"), Some("Bearer or-key"));

    let entry = &world.store()["openrouter"];
    let stored = entry["models"].as_array().expect("models");
    assert_eq!(stored.len(), 1, "only the key's model: {stored:?}");
    assert_eq!(stored[0]["id"], "moonshotai/kimi-k2");
    assert_eq!(stored[0]["contextWindow"], 4242);
    assert_eq!(stored[0]["maxTokens"], 777);
    assert_eq!(stored[0]["cost"]["input"], 1.0);
    assert!(entry["checkedAt"].as_i64().is_some());

    let out = world.rho(&["--list-models", "openrouter"], &keys).await;
    assert_eq!(
        listed(&out),
        [("moonshotai/kimi-k2".into(), "4.2K".into(), "777".into())]
    );
}

#[tokio::test]
async fn a_newer_catalog_changes_and_adds_models_and_is_revalidated_with_its_etag() {
    let world = World::new().await;
    world.catalog.push(
        MockResponse::json(&json!([
            served("grok-4.7", 2_000_000),
            served("grok-5", 1_000_000)
        ]))
        .header("last-modified", "Fri, 01 Jan 2100 00:00:00 GMT")
        .header("etag", "\"v1\""),
    );
    let out = world.rho(&["update", "--models"], XAI).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let entry = world.store()["xai"].clone();
    assert_eq!(entry["etag"], "\"v1\"");
    assert_eq!(entry["lastModified"], 4_102_444_800_000_i64);
    let out = world.rho(&["--list-models", "xai"], XAI).await;
    let rows = listed(&out);
    assert!(
        rows.contains(&("grok-4.7".into(), "2M".into(), "64K".into())),
        "{rows:?}"
    );
    assert!(
        rows.contains(&("grok-5".into(), "1M".into(), "64K".into())),
        "{rows:?}"
    );
    assert_eq!(rows.len(), 5, "pi's four xAI models and the new one");

    // Forced again: the stored catalog is revalidated, and a 304 keeps it.
    world.catalog.push(MockResponse::error(304, ""));
    let out = world.rho(&["update", "--models"], XAI).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(
        world.catalog.requests()[1].header("if-none-match"),
        Some("\"v1\"")
    );
    let again = world.store()["xai"].clone();
    assert_eq!(again["models"], entry["models"]);
    assert!(again["checkedAt"].as_i64() >= entry["checkedAt"].as_i64());
}

#[tokio::test]
async fn a_failing_catalog_is_reported_per_provider() {
    let world = World::new().await;
    for _ in 0..3 {
        world.catalog.push(MockResponse::error(503, "{}"));
    }
    let out = world.rho(&["update", "--models"], XAI).await;
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr).trim(),
        "Error: Could not refresh model catalogs: xai: Model catalog request failed for xai: 503"
    );
    assert_eq!(
        world.catalog.requests().len(),
        3,
        "tried three times, as pi does"
    );
}

#[tokio::test]
async fn a_broken_store_is_reported_with_its_path_and_rebuilt() {
    let world = World::new().await;
    std::fs::write(world.store_path(), "{\"xai\": {\"models\": [").expect("write");
    let path = world.store_path().display().to_string();

    let out = world.rho(&["--list-models", "xai"], XAI).await;
    assert_eq!(out.status.code(), Some(0), "not fatal");
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&format!("Warning: {path} is not a valid model store")),
        "{stderr}"
    );
    assert_eq!(listed(&out).len(), 4, "the built-in catalog");

    world
        .catalog
        .push(MockResponse::json(&json!([served("grok-5", 1_000_000)])));
    let out = world.rho(&["update", "--models"], XAI).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(&path) && stderr.contains("rebuilding it"),
        "{stderr}"
    );
    assert_eq!(world.store()["xai"]["models"][0]["id"], "grok-5");
}

/// Starts `rho --mode rpc` with `extra` flags and `env`, asks `get_state` and then
/// `get_available_models` (which builds the whole model list), and ends it.
async fn rpc_session(world: &World, extra: &[&str], env: &[(&str, &str)], wait_for_catalog: bool) {
    let mut args = vec!["--mode", "rpc", "--no-session"];
    args.extend_from_slice(extra);
    let mut child = world.command(&args, env).spawn().expect("spawn rho");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
    for command in ["get_state", "get_available_models"] {
        let line = format!("{}\n", json!({"id": command, "type": command}));
        stdin.write_all(line.as_bytes()).await.expect("write");
        loop {
            let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
                .await
                .expect("rho answers")
                .expect("stdout")
                .expect("a line");
            if line.contains(&format!("\"id\":\"{command}\"")) {
                break;
            }
        }
    }
    if wait_for_catalog {
        let asked = world.catalog.wait_for_requests(1);
        tokio::time::timeout(Duration::from_secs(30), asked)
            .await
            .expect("the background refresh asks the catalog");
    }
    drop(stdin);
    let _ = tokio::time::timeout(Duration::from_secs(30), child.wait()).await;
}

#[tokio::test]
async fn start_up_refreshes_in_the_background_unless_offline() {
    let world = World::new().await;
    world.catalog.push(MockResponse::json(&json!([])));
    rpc_session(&world, &[], XAI, true).await;
    assert_eq!(
        world.catalog.requests()[0].path,
        "/api/models/providers/xai?types=chat,image,classifier"
    );

    for (extra, env) in [
        (&["--offline"][..], XAI.to_vec()),
        (&[][..], [XAI, &[("PI_OFFLINE", "1")]].concat()),
        (&[][..], [XAI, &[("RHO_OFFLINE", "true")]].concat()),
    ] {
        let offline = World::new().await;
        rpc_session(&offline, extra, &env, false).await;
        assert!(
            offline.catalog.requests().is_empty(),
            "{extra:?} {env:?}: {:?}",
            offline.catalog.requests()
        );
        assert!(!offline.store_path().exists());
    }
}
