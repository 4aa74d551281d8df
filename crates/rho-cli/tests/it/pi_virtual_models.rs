//! A virtual model (pi 1.6's `registerVirtualModel`, docs/virtual-models.md) registered by a pi
//! extension and used over RPC against the loopback server: it is listed and selectable like
//! any model, each request goes to the physical model its router picks (by the selected
//! thinking level here), tool follow-ups keep the route, the session file records the
//! selection in `model_change` and the physical model in each assistant message, router state
//! lands on the branch, a resumed session selects the virtual model again, compaction measures
//! against the routed model and routes its summary as `direct`, and a router that names no
//! physical model ends the request with pi's error; pi's jev-router example routes to its
//! planning model. Skipped, with the reason printed,
//! without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support;

use pi_support::tool_call;
use serde_json::{json, Value};
use support::{reply, Start};

/// A router extension: `low` goes to mock/`low`, `high` to mock/`high` (at `medium`, clamped
/// to that model), `minimal` names a model the catalog does not have. Follow-ups and retries
/// stay where the turn went. It counts its calls in router state and records why it was
/// asked.
pub fn router(low: &str, high: &str) -> String {
    r#"
export default function (pi) {
  pi.registerVirtualModel({
    provider: "router",
    id: "auto",
    name: "Auto",
    thinkingLevels: ["minimal", "low", "high"],
    contextWindow: 50000,
    route(request, ctx) {
      const state = { calls: (request.state?.calls ?? 0) + 1, reason: request.reason };
      const sticky = request.failed ?? request.previous;
      if (request.reason !== "user" && sticky) {
        return { model: sticky.model, thinkingLevel: sticky.thinkingLevel ?? "off", state };
      }
      if (request.thinkingLevel === "minimal") return { model: { provider: "mock", id: "nope" }, thinkingLevel: "low" };
      const id = request.thinkingLevel === "high" ? "HIGH" : "LOW";
      return { model: ctx.modelRegistry.find("mock", id), thinkingLevel: "medium", state };
    },
  });
}
"#
    .replace("HIGH", high)
    .replace("LOW", low)
}

async fn start(args: Vec<String>, home: Option<tempfile::TempDir>) -> Option<support::Rpc> {
    let own_model = !args.is_empty();
    let opts = Start {
        with_sessions: true,
        args,
        own_model,
        home,
        ..Start::default()
    };
    let source = router("m1", "r1");
    pi_support::start_with_files(&[], &[("router.ts", &source)], opts).await
}

async fn state(rpc: &mut support::Rpc) -> Value {
    rpc.call(json!({"id": "s", "type": "get_state"})).await["data"].clone()
}

fn entries(file: &str) -> Vec<Value> {
    crate::common::read_jsonl(std::path::Path::new(file))
}

/// The `model` of each request the loopback server got, in order.
fn sent_models(rpc: &support::Rpc) -> Vec<Value> {
    let requests = rpc.server.requests();
    requests.iter().map(|r| r.json()["model"].clone()).collect()
}

fn of_type<'a>(entries: &'a [Value], kind: &str) -> Vec<&'a Value> {
    entries.iter().filter(|e| e["type"] == kind).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_virtual_model_is_selectable_and_each_request_goes_where_its_router_says() {
    let Some(mut rpc) = start(Vec::new(), None).await else {
        return;
    };
    let models = rpc
        .call(json!({"id": "m", "type": "get_available_models"}))
        .await;
    let auto = models["data"]["models"]
        .as_array()
        .and_then(|m| m.iter().find(|m| m["provider"] == "router"))
        .cloned()
        .expect("router/auto listed");
    assert_eq!(
        (auto["id"].as_str(), auto["api"].as_str()),
        (Some("auto"), Some("pi-virtual"))
    );
    assert_eq!(auto["contextWindow"], 50000);

    let set = rpc
        .call(json!({"id": "sm", "type": "set_model", "provider": "router", "modelId": "auto"}))
        .await;
    assert_eq!(set["success"], true, "{set}");
    let level = json!({"id": "t", "type": "set_thinking_level", "level": "high"});
    assert_eq!(rpc.call(level).await["success"], true);

    // high → r1; the tool follow-up stays on r1 ("continuation", previous).
    rpc.server.push(tool_call("ls", json!({})));
    rpc.server.push(reply("Listed."));
    rpc.prompt_ok("p1", "list the files").await;
    // low → m1.
    let level = json!({"id": "t2", "type": "set_thinking_level", "level": "low"});
    assert_eq!(rpc.call(level).await["success"], true);
    rpc.server.push(reply("Small answer."));
    rpc.prompt_ok("p2", "a quick question").await;

    let sent = sent_models(&rpc);
    let ends: Vec<&Value> = rpc
        .seen
        .iter()
        .filter(|l| l["type"] == "agent_end")
        .collect();
    assert_eq!(sent, [json!("r1"), json!("r1"), json!("m1")], "{ends:#?}");

    let s = state(&mut rpc).await;
    assert_eq!(
        (s["model"]["provider"].as_str(), s["model"]["id"].as_str()),
        (Some("router"), Some("auto"))
    );
    let stats = rpc
        .call(json!({"id": "st", "type": "get_session_stats"}))
        .await;
    assert_eq!(
        stats["data"]["contextUsage"]["contextWindow"], 100000,
        "context usage is measured against the physical model that answered last: {stats}"
    );

    let file = s["sessionFile"].as_str().expect("session file").to_string();
    let all = entries(&file);
    let changes = of_type(&all, "model_change");
    let last = changes.last().expect("model_change");
    assert_eq!(
        (last["provider"].as_str(), last["modelId"].as_str()),
        (Some("router"), Some("auto"))
    );
    let replies: Vec<(String, String, String)> = of_type(&all, "message")
        .into_iter()
        .filter(|e| e["message"]["role"] == "assistant")
        .map(|e| {
            let m = &e["message"];
            let text = |k: &str| m[k].as_str().unwrap_or_default().to_string();
            (text("provider"), text("model"), text("thinkingLevel"))
        })
        .collect();
    let r1 = ("mock".to_string(), "r1".to_string(), "medium".to_string());
    let m1 = ("mock".to_string(), "m1".to_string(), "off".to_string());
    assert_eq!(
        replies,
        [r1.clone(), r1, m1],
        "each reply names the physical model and level"
    );
    let states: Vec<Value> = all
        .iter()
        .filter(|e| e["type"] == "custom" && e["customType"] == "pi.virtual-model-state")
        .map(|e| {
            assert_eq!(
                (
                    e["data"]["provider"].as_str(),
                    e["data"]["modelId"].as_str()
                ),
                (Some("router"), Some("auto"))
            );
            e["data"]["state"].clone()
        })
        .collect();
    assert_eq!(
        states,
        [
            json!({"calls": 1, "reason": "user"}),
            json!({"calls": 2, "reason": "continuation"}),
            json!({"calls": 3, "reason": "user"}),
        ],
        "router state is stored on the branch and handed back"
    );
    // Resumed, the session selects the virtual model again (its latest model_change), not
    // the physical model that answered last.
    let home = tempfile::tempdir().expect("home");
    let copy = home.path().join("resumed.jsonl");
    let text = std::fs::read_to_string(&file).expect("session file");
    let (old_work, new_work) = (rpc.work_dir(), home.path().join("work"));
    let moved = text.replace(&*old_work.to_string_lossy(), &new_work.to_string_lossy());
    std::fs::create_dir_all(&new_work).expect("work dir");
    std::fs::write(&copy, moved).expect("copy the session");
    assert_eq!(rpc.close().await, Some(0));
    let args = vec!["--session".into(), copy.display().to_string()];
    let Some(mut again) = start(args, Some(home)).await else {
        return;
    };
    let s = state(&mut again).await;
    assert_eq!(
        (s["model"]["provider"].as_str(), s["model"]["id"].as_str()),
        (Some("router"), Some("auto"))
    );
    assert_eq!(again.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_router_that_names_no_physical_model_ends_the_request_with_an_error() {
    let Some(mut rpc) = start(
        vec![
            "--model".into(),
            "router/auto".into(),
            "--thinking".into(),
            "minimal".into(),
        ],
        None,
    )
    .await
    else {
        return;
    };
    let s = state(&mut rpc).await;
    assert_eq!(
        s["model"]["id"], "auto",
        "--model selects the virtual model"
    );
    let r = rpc
        .call(json!({"id": "p", "type": "prompt", "message": "hi"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    let end = rpc.event("agent_end").await;
    let last = end["messages"]
        .as_array()
        .and_then(|m| m.last())
        .cloned()
        .expect("a reply");
    assert_eq!(last["stopReason"], "error");
    assert_eq!(
        last["errorMessage"],
        "Virtual model router/auto routed to mock/nope, which is not a physical model."
    );
    assert!(
        rpc.server.requests().is_empty(),
        "nothing reached a provider"
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// A reply from `model` whose usage fills `prompt` tokens of the context.
fn big_reply(model: &str, text: &str, prompt: u64) -> rho_testkit::MockResponse {
    rho_testkit::openai_chat::ChatStream::new("chatcmpl-big", model)
        .role()
        .text(text)
        .finish("stop")
        .usage(prompt, 10, None)
        .done()
        .response()
}

/// Compaction measures the reply against the physical model that produced it (its window,
/// not the virtual model's), and its summary request is routed as `direct`, whose router
/// state is not stored.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compaction_under_a_virtual_selection_uses_the_routed_model() {
    let args = ["--model", "router/auto", "--thinking", "high"];
    let opts = Start {
        with_sessions: true,
        args: args.map(String::from).to_vec(),
        own_model: true,
        // Only the second exchange (about 3 tokens) kept: the first is summarised.
        settings: Some(json!({"compaction": {"keepRecentTokens": 3}})),
        ..Start::default()
    };
    let source = router("m1", "r1");
    let files = [("router.ts", source.as_str())];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, opts).await else {
        return;
    };
    // r1's window is 100k: 30k tokens stay under its threshold, 95k pass it.
    rpc.server.push(big_reply("r1", "First.", 30_000));
    rpc.prompt_ok("p1", "one").await;
    rpc.server.push(big_reply("r1", "Second.", 95_000));
    rpc.server.push(reply("## Goal\nsummary"));
    rpc.call(json!({"id": "p2", "type": "prompt", "message": "two"}))
        .await;
    let end = rpc.event("compaction_end").await;
    assert_eq!(end["reason"], "threshold", "{end}");
    assert!(end["result"]["summary"].is_string(), "{end}");
    let sent = sent_models(&rpc);
    assert_eq!(
        sent,
        [json!("r1"), json!("r1"), json!("r1")],
        "the summary went to r1 too"
    );
    let file = state(&mut rpc).await["sessionFile"]
        .as_str()
        .expect("session file")
        .to_string();
    let reasons: Vec<Value> = entries(&file)
        .iter()
        .filter(|e| e["customType"] == "pi.virtual-model-state")
        .map(|e| e["data"]["state"]["reason"].clone())
        .collect();
    assert_eq!(
        reasons,
        [json!("user"), json!("user")],
        "no state from the direct request"
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// pi's own jev-router example: `--model jev/auto` selects it, and its `route()` runs to its
/// choice (the classifier lookup finds none, so it plans on GPT-5.6 Terra); without an OpenAI
/// Codex login the request ends with pi's error, word for word.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn jev_router_routes_to_its_planning_model() {
    let opts = Start {
        args: vec!["--model".into(), "jev/auto".into()],
        own_model: true,
        ..Start::default()
    };
    let Some(mut rpc) = pi_support::start(&["jev-router.ts"], opts).await else {
        return;
    };
    assert_eq!(state(&mut rpc).await["model"]["name"], "Auto (Jev)");
    let r = rpc
        .call(json!({"id": "p", "type": "prompt", "message": "hi"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    let end = rpc.event("agent_end").await;
    let last = end["messages"].as_array().and_then(|m| m.last()).cloned();
    assert_eq!(
        last.expect("a reply")["errorMessage"],
        "Virtual model jev/auto routed to openai-codex/gpt-5.6-terra, which has no credentials."
    );
    assert_eq!(rpc.close().await, Some(0));
}
