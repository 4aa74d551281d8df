//! Issue 37: the models.json fields pi 1.6 reads change rho's request as pi's
//! `docs/models-configuration.md` says (pi-ai's request builders are the reference for how):
//! `samplingParams` and `samplingParamsByThinkingLevel` are merged into the body last, model
//! overrides merge them key by key, `cost.tiers` prices a long prompt at its tier, and the
//! Chat Completions and Responses compat flags `vllmPriority`,
//! `requiresNonNullAssistantContent`, `supportsFinishReason` and `supportsMaxOutputTokens` do
//! what their rows say, and `promptCacheKeyMode` sends the session's id as `prompt_cache_key`.
//! Each test runs the real binary against a loopback server.

use rho_testkit::openai_chat::ChatStream;
use rho_testkit::openai_responses::{self, ResponsesStream};
use rho_testkit::MockResponse;
use serde_json::{json, Value};

use crate::common::{reply, stderr, stdout, Sandbox};

/// The sandbox's `mock` provider with one model, `mock-model`, whose record is `model`
/// (merged over the id) and whose provider-level compat is `compat`.
fn write_mock(sb: &Sandbox, model: Value, compat: Value) {
    let mut record = json!({"id": "mock-model", "name": "Mock Model", "contextWindow": 32000});
    for (k, v) in model.as_object().into_iter().flatten() {
        record[k] = v.clone();
    }
    let mut provider_compat = json!({"supportsDeveloperRole": false, "supportsStore": false});
    for (k, v) in compat.as_object().into_iter().flatten() {
        provider_compat[k] = v.clone();
    }
    sb.write_models(&json!({
        "providers": {
            "mock": {
                "baseUrl": format!("{}/v1", sb.server.url()),
                "api": "openai-completions",
                "apiKey": "test-key",
                "compat": provider_compat,
                "models": [record]
            }
        }
    }));
}

/// One print-mode prompt; the body of the one request it sent.
async fn body_of_print(sb: &Sandbox, extra: &[&str]) -> Value {
    sb.server.push(reply("ok"));
    let mut args = vec!["-p", "--no-session"];
    args.extend_from_slice(extra);
    args.push("hi");
    let out = sb.rho(&args, None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    sb.server.last_body()
}

#[tokio::test]
async fn sampling_params_are_merged_into_the_body_last() {
    let sb = Sandbox::new().await;
    let params = json!({"top_k": 20, "min_p": 0.05, "max_completion_tokens": 777});
    write_mock(&sb, json!({"samplingParams": params}), json!({}));
    let body = body_of_print(&sb, &[]).await;
    assert_eq!(body["top_k"], 20);
    assert_eq!(body["min_p"], 0.05);
    // Last, so a field rho sets itself is replaced.
    assert_eq!(body["max_completion_tokens"], 777);

    // Without the field the body has none of them.
    write_mock(&sb, json!({}), json!({}));
    let body = body_of_print(&sb, &[]).await;
    assert!(body.get("top_k").is_none(), "{body}");
    assert_ne!(body["max_completion_tokens"], 777);
}

#[tokio::test]
async fn sampling_params_by_thinking_level_go_over_sampling_params_at_the_clamped_level() {
    let sb = Sandbox::new().await;
    write_mock(
        &sb,
        json!({
            "reasoning": true,
            "samplingParams": {"temperature": 1.0, "top_p": 0.95},
            "samplingParamsByThinkingLevel": {
                "off": {"temperature": 0.2},
                "high": {"temperature": 0.6, "top_k": 40}
            }
        }),
        json!({}),
    );
    let high = body_of_print(&sb, &["--thinking", "high"]).await;
    assert_eq!(
        (&high["temperature"], &high["top_p"], &high["top_k"]),
        (&json!(0.6), &json!(0.95), &json!(40))
    );
    let off = body_of_print(&sb, &["--thinking", "off"]).await;
    assert_eq!(
        (&off["temperature"], &off["top_p"]),
        (&json!(0.2), &json!(0.95))
    );
    assert!(off.get("top_k").is_none(), "{off}");
    // A level without an entry has samplingParams alone.
    let low = body_of_print(&sb, &["--thinking", "low"]).await;
    assert_eq!(low["temperature"], 1.0);
    // xhigh is not supported without a thinkingLevelMap entry: pi clamps it to high first.
    let xhigh = body_of_print(&sb, &["--thinking", "xhigh"]).await;
    assert_eq!(xhigh["temperature"], 0.6);
}

#[tokio::test]
async fn a_model_override_adds_sampling_params_to_a_built_in_model() {
    let sb = Sandbox::new().await;
    sb.write_models(&json!({
        "providers": {
            "groq": {
                "baseUrl": format!("{}/v1", sb.server.url()),
                "modelOverrides": {
                    "llama-3.3-70b-versatile": {"samplingParams": {"top_k": 7, "seed": 42}}
                }
            }
        }
    }));
    sb.server.push(reply("ok"));
    let out = sb
        .command(&[
            "-p",
            "--no-session",
            "--model",
            "groq/llama-3.3-70b-versatile",
            "hi",
        ])
        .env("GROQ_API_KEY", "gsk-test")
        .output()
        .await
        .expect("rho runs");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let body = sb.server.last_body();
    assert_eq!(body["model"], "llama-3.3-70b-versatile");
    assert_eq!((&body["top_k"], &body["seed"]), (&json!(7), &json!(42)));
}

/// The `usage.cost` of the assistant message in JSON mode's `message_end` events.
fn assistant_cost(out: &std::process::Output) -> Value {
    stdout(out)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "message_end" && e["message"]["role"] == "assistant")
        .map(|e| e["message"]["usage"]["cost"].clone())
        .next_back()
        .expect("an assistant message_end")
}

#[tokio::test]
async fn cost_tiers_price_a_long_prompt_at_its_tier() {
    let sb = Sandbox::new().await;
    let cost = |tiers: Value| json!({"cost": {"input": 1.0, "output": 2.0, "cacheRead": 0, "cacheWrite": 0, "tiers": tiers}});
    // The reply's usage has 12 prompt tokens and 3 output tokens.
    let tier = json!([{"inputTokensAbove": 10, "input": 100.0, "output": 200.0, "cacheRead": 0, "cacheWrite": 0}]);
    write_mock(&sb, cost(tier), json!({}));
    sb.server.push(reply("ok"));
    let out = sb
        .rho(&["--mode", "json", "--no-session", "hi"], None)
        .await;
    let priced = assistant_cost(&out);
    assert!(
        (priced["input"].as_f64().unwrap() - 12.0 * 100.0 / 1e6).abs() < 1e-12,
        "{priced}"
    );
    assert!(
        (priced["output"].as_f64().unwrap() - 3.0 * 200.0 / 1e6).abs() < 1e-12,
        "{priced}"
    );

    // Above the prompt's size, the tier does not apply.
    let tier = json!([{"inputTokensAbove": 1000, "input": 100.0, "output": 200.0, "cacheRead": 0, "cacheWrite": 0}]);
    write_mock(&sb, cost(tier), json!({}));
    sb.server.push(reply("ok"));
    let out = sb
        .rho(&["--mode", "json", "--no-session", "hi"], None)
        .await;
    let base = assistant_cost(&out);
    assert!(
        (base["input"].as_f64().unwrap() - 12.0 / 1e6).abs() < 1e-12,
        "{base}"
    );
}

#[tokio::test]
async fn vllm_priority_is_sent_as_the_top_level_priority() {
    let sb = Sandbox::new().await;
    write_mock(&sb, json!({"compat": {"vllmPriority": -5}}), json!({}));
    let body = body_of_print(&sb, &[]).await;
    assert_eq!(body["priority"], -5.0);
}

/// A reply that calls `ls` (no text), ending with `tool_calls`.
fn ls_call() -> MockResponse {
    ChatStream::new("chatcmpl-1", "mock-model")
        .role()
        .tool_call_start(0, "call_1", "ls")
        .tool_args(0, "{}")
        .finish("tool_calls")
        .usage(12, 3, None)
        .done()
        .response()
}

#[tokio::test]
async fn requires_non_null_assistant_content_replays_an_empty_string() {
    for (flag, expected) in [(false, Value::Null), (true, json!(""))] {
        let sb = Sandbox::new().await;
        write_mock(
            &sb,
            json!({"compat": {"requiresNonNullAssistantContent": flag}}),
            json!({}),
        );
        sb.server.push(ls_call());
        sb.server.push(reply("done"));
        let out = sb.rho(&["-p", "--no-session", "list"], None).await;
        assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
        let second = &sb.server.requests()[1].json();
        let assistant = second["messages"]
            .as_array()
            .expect("messages")
            .iter()
            .find(|m| m["role"] == "assistant")
            .expect("the replayed tool call")
            .clone();
        assert_eq!(assistant["content"], expected, "flag {flag}: {assistant}");
    }
}

/// A text reply that ends with `[DONE]` and never says why it stopped.
fn no_finish_reason() -> MockResponse {
    ChatStream::new("chatcmpl-1", "mock-model")
        .role()
        .text("partial")
        .done()
        .response()
}

#[tokio::test]
async fn a_stream_without_finish_reason_fails_unless_compat_says_the_server_sends_none() {
    let sb = Sandbox::new().await;
    // The error is one auto-retry would retry; this test is about the error itself.
    let settings = sb.agent.path().join("settings.json");
    std::fs::write(settings, r#"{"retry": {"enabled": false}}"#).expect("settings.json");
    sb.server.push(no_finish_reason());
    let out = sb.rho(&["-p", "--no-session", "hi"], None).await;
    let all = format!("{}{}", stdout(&out), stderr(&out));
    assert_ne!(out.status.code(), Some(0), "{all}");
    assert!(all.contains("Stream ended without finish_reason"), "{all}");

    write_mock(
        &sb,
        json!({"compat": {"supportsFinishReason": false}}),
        json!({}),
    );
    sb.server.push(no_finish_reason());
    let out = sb.rho(&["-p", "--no-session", "hi"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert_eq!(stdout(&out), "partial\n");
}

#[tokio::test]
async fn supports_max_output_tokens_false_leaves_the_cap_out_of_a_responses_request() {
    let sb = Sandbox::new().await;
    let responses = |sb: &Sandbox, compat: Value| {
        write_mock(
            sb,
            json!({"api": "openai-responses", "compat": compat}),
            json!({}),
        );
        let events = ResponsesStream::new("resp_1", "mock-model")
            .message("msg_1", &["o", "k"])
            .completed(openai_responses::usage(12, 0, 3, 0));
        sb.server.push(MockResponse::sse(events));
    };
    responses(&sb, json!({}));
    let out = sb.rho(&["-p", "--no-session", "hi"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(sb.server.last_body()["max_output_tokens"].is_u64());

    responses(&sb, json!({"supportsMaxOutputTokens": false}));
    let out = sb.rho(&["-p", "--no-session", "hi"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let body = sb.server.last_body();
    assert!(body.get("max_output_tokens").is_none(), "{body}");
}

/// `compat.promptCacheKeyMode`: "enabled" sends the session's id as `prompt_cache_key` (the
/// id of the session file's header, the same on every request of the session); "disabled"
/// and the default for a non-OpenAI base URL send none.
#[tokio::test]
async fn prompt_cache_key_mode_sends_the_session_id() {
    let sb = Sandbox::new().await;
    write_mock(&sb, json!({}), json!({"promptCacheKeyMode": "enabled"}));
    sb.server.push(reply("ok"));
    let out = sb.rho(&["-p", "hi"], None).await;
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    let key = sb.server.last_body()["prompt_cache_key"].clone();
    let file = sb.session_files().pop().expect("a session file");
    let header = crate::common::read_jsonl(&file).swap_remove(0);
    assert_eq!(key, header["id"], "the session's id");

    write_mock(&sb, json!({}), json!({"promptCacheKeyMode": "disabled"}));
    let body = body_of_print(&sb, &[]).await;
    assert!(body.get("prompt_cache_key").is_none(), "{body}");
    write_mock(&sb, json!({}), json!({}));
    let body = body_of_print(&sb, &[]).await;
    assert!(body.get("prompt_cache_key").is_none(), "{body}");
}
