//! `mistral-conversations` against the loopback server speaking Mistral's real SSE stream:
//! text with usage, a tool-call round trip, an error reply, an abort mid-stream.

use rho_ai::{AssistantMessageEvent as E, StopReason, StreamOptions};
use rho_testkit::mistral as wire;
use rho_testkit::replies::{ask, collect, final_message, model, with_results};
use rho_testkit::{Chunk, MockResponse, MockServer};
use serde_json::json;

fn mistral(base: &str) -> rho_ai::Model {
    model("mistral-conversations", "mistral", "devstral-2512", base)
}

fn options() -> StreamOptions {
    StreamOptions {
        api_key: Some("mistral-key".into()),
        session_id: Some("session-36".into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn text_and_usage_from_the_last_chunk() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse([
        wire::text("Hello"),
        wire::text(" there"),
        wire::finish("stop", wire::usage(120, 7, 100)),
        wire::done(),
    ]));
    let m = mistral(&server.url());
    let stream = rho_ai::stream(&m, &ask("hi"), options()).expect("starts");
    let events = collect(stream, None).await;
    let reply = final_message(&events);
    assert_eq!(reply.stop_reason, StopReason::Stop);
    assert_eq!(reply.text(), "Hello there");
    assert_eq!(reply.response_id.as_deref(), Some("cmpl-36"));
    let u = &reply.usage;
    assert_eq!(
        (u.input, u.output, u.cache_read, u.total_tokens),
        (20, 7, 100, 127)
    );
    assert!(u.cost.total > 0.0);

    let request = &server.requests()[0];
    assert_eq!(request.path, "/v1/chat/completions");
    assert_eq!(request.header("authorization"), Some("Bearer mistral-key"));
    assert_eq!(request.header("x-affinity"), Some("session-36"));
    let body = request.json();
    assert_eq!(body["model"], "devstral-2512");
    assert_eq!(body["stream"], true);
    assert_eq!(body["max_tokens"], 32000);
    assert_eq!(body["prompt_cache_key"], "session-36");
    assert_eq!(
        body["messages"][0],
        json!({"role": "system", "content": "You are terse."})
    );
    assert_eq!(
        body["messages"][1],
        json!({"role": "user", "content": [{"type": "text", "text": "hi"}]})
    );
    assert_eq!(body["tools"][0]["function"]["name"], "read");
    assert_eq!(body["tools"][0]["function"]["strict"], false);
}

#[tokio::test]
async fn a_tool_call_round_trip_uses_nine_character_ids_and_named_results() {
    let server = MockServer::start().await;
    let call = |id: &str, args: &str| {
        wire::chunk(
            json!({"tool_calls": [{"id": id, "index": 0,
                "function": {"name": "read", "arguments": args}}]}),
            None,
            None,
        )
    };
    server.push(MockResponse::sse([
        wire::text("Reading."),
        call("aB3dE6gH9", "{\"path\":"),
        call("null", "\"a.txt\"}"),
        wire::finish("tool_calls", wire::usage(50, 9, 0)),
        wire::done(),
    ]));
    server.push(MockResponse::sse([
        wire::text("It says hi."),
        wire::finish("stop", wire::usage(80, 4, 0)),
        wire::done(),
    ]));
    let m = mistral(&server.url());
    let first = collect(
        rho_ai::stream(&m, &ask("read a.txt"), options()).unwrap(),
        None,
    )
    .await;
    let reply = final_message(&first);
    assert_eq!(reply.stop_reason, StopReason::ToolUse);
    let call = reply.tool_calls().next().expect("a tool call");
    assert_eq!(call.id, "aB3dE6gH9");
    assert_eq!(call.arguments, json!({"path": "a.txt"}));
    let ends = first
        .iter()
        .filter(|e| matches!(e, E::ToolCallEnd { .. }))
        .count();
    assert_eq!(ends, 1);

    let context = with_results(ask("read a.txt"), reply, "hi");
    let second = collect(rho_ai::stream(&m, &context, options()).unwrap(), None).await;
    assert_eq!(final_message(&second).text(), "It says hi.");
    let body = server.requests()[1].json();
    let messages = body["messages"].as_array().expect("messages");
    assert_eq!(
        messages[2],
        json!({"role": "assistant", "prefix": false,
            "content": [{"type": "text", "text": "Reading."}],
            "tool_calls": [{"id": "aB3dE6gH9", "type": "function",
                "function": {"name": "read", "arguments": "{\"path\":\"a.txt\"}"}, "index": 0}]})
    );
    assert_eq!(
        messages[3],
        json!({"role": "tool", "tool_call_id": "aB3dE6gH9", "name": "read",
            "content": [{"type": "text", "text": "hi"}]})
    );
}

#[tokio::test]
async fn a_foreign_tool_call_id_becomes_a_mistral_id_on_both_sides() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse([
        wire::text("ok"),
        wire::finish("stop", wire::usage(1, 1, 0)),
        wire::done(),
    ]));
    let mut foreign = rho_ai::AssistantMessage::empty("anthropic-messages", "anthropic", "claude");
    foreign
        .content
        .push(rho_ai::ContentBlock::ToolCall(rho_ai::ToolCall {
            id: "toolu_01AbCdEfGhIjKlMnOpQrStUv".into(),
            name: "read".into(),
            arguments: json!({"path": "x"}),
            ..Default::default()
        }));
    foreign.stop_reason = StopReason::ToolUse;
    let context = with_results(ask("x"), &foreign, "data");
    let m = mistral(&server.url());
    collect(rho_ai::stream(&m, &context, options()).unwrap(), None).await;
    let body = server.requests()[0].json();
    let call_id = body["messages"][2]["tool_calls"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(call_id.len(), 9);
    assert!(call_id.chars().all(|c| c.is_ascii_alphanumeric()));
    assert_eq!(body["messages"][3]["tool_call_id"], call_id.as_str());
}

#[tokio::test]
async fn an_error_reply_has_pi_text_and_classification() {
    let server = MockServer::start().await;
    let overflow = r#"{"object":"error","message":"Prompt contains 300000 tokens and 0 draft tokens, too large for model with 262144 maximum context length","type":"invalid_request_message_error","param":null,"code":"3051"}"#;
    server.push(MockResponse::error(400, overflow));
    server.push(MockResponse::error(
        429,
        r#"{"message":"Requests rate limit exceeded"}"#,
    ));
    let m = mistral(&server.url());
    let events = collect(rho_ai::stream(&m, &ask("x"), options()).unwrap(), None).await;
    let reply = final_message(&events).clone();
    assert_eq!(reply.stop_reason, StopReason::Error);
    assert_eq!(
        reply.error_message.as_deref(),
        Some(&*format!("Mistral API error (400): {overflow}"))
    );
    assert!(rho_ai::overflow::is_context_overflow(&reply, 262_144));
    let events = collect(rho_ai::stream(&m, &ask("x"), options()).unwrap(), None).await;
    let reply = final_message(&events);
    assert_eq!(
        reply.error_message.as_deref(),
        Some(r#"Mistral API error (429): {"message":"Requests rate limit exceeded"}"#)
    );
    assert!(rho_ai::retry::is_retryable(reply, 262_144));
}

#[tokio::test]
async fn an_error_finish_reason_is_a_retryable_server_error() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse([
        wire::text("half"),
        wire::finish("error", wire::usage(1, 1, 0)),
        wire::done(),
    ]));
    let m = mistral(&server.url());
    let events = collect(rho_ai::stream(&m, &ask("x"), options()).unwrap(), None).await;
    let reply = final_message(&events);
    assert_eq!(
        reply.error_message.as_deref(),
        Some("Provider stopped with: error (server error)")
    );
    assert!(rho_ai::retry::is_retryable(reply, 262_144));
}

#[tokio::test]
async fn abort_mid_stream_ends_aborted_and_closes_the_connection() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse([wire::text("first")]).then(Chunk::Hang));
    let opts = options();
    let cancel = opts.cancel.clone();
    let m = mistral(&server.url());
    let events = collect(rho_ai::stream(&m, &ask("x"), opts).unwrap(), Some(cancel)).await;
    let reply = final_message(&events);
    assert_eq!(reply.stop_reason, StopReason::Aborted);
    assert_eq!(reply.error_message.as_deref(), Some("Request was aborted"));
    assert_eq!(reply.text(), "first");
    tokio::time::timeout(rho_testkit::replies::LIMIT, server.wait_for_closed(1))
        .await
        .expect("connection closed after abort");
}
