//! `openai-responses` against the loopback server speaking the real Responses SSE stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use rho_ai::provider::HttpRequest;
use rho_ai::providers::openai_responses::build_request;
use rho_ai::{
    AssistantMessageEvent as E, AssistantStream, CacheRetention, ContentBlock, Context,
    ImageContent, InputKind, Message, Model, ModelCost, StopReason, StreamOptions, ThinkingLevel,
    Tool, ToolCall, ToolResultMessage, UserContent, UserMessage,
};
use rho_testkit::openai_responses::{self as wire, ResponsesStream};
use rho_testkit::{sse_event, Chunk, MockResponse, MockServer};
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(10);

fn model(base: &str) -> Model {
    Model {
        id: "gpt-5".into(),
        name: "GPT-5".into(),
        api: "openai-responses".into(),
        provider: "openai".into(),
        base_url: format!("{base}/v1"),
        reasoning: true,
        thinking_level_map: None,
        input: vec![InputKind::Text, InputKind::Image],
        cost: ModelCost {
            input: 1.25,
            output: 10.0,
            cache_read: 0.125,
            cache_write: 0.0,
            ..Default::default()
        },
        context_window: 400_000,
        max_tokens: 128_000,
        headers: None,
        compat: None,
        ..Default::default()
    }
}

fn options() -> StreamOptions {
    StreamOptions {
        api_key: Some("sk-test".into()),
        ..Default::default()
    }
}

fn ask(text: &str) -> Context {
    Context {
        system_prompt: Some("You are terse.".into()),
        messages: vec![Message::User(UserMessage::text(text))],
        tools: vec![],
    }
}

/// Runs one call against `server` and returns every event, bounded by [`LIMIT`].
async fn run(server: &MockServer, context: &Context, opts: StreamOptions) -> Vec<E> {
    let stream = rho_ai::stream(&model(&server.url()), context, opts).expect("stream starts");
    collect(stream).await
}

async fn collect(mut stream: AssistantStream) -> Vec<E> {
    tokio::time::timeout(LIMIT, async {
        let mut out = Vec::new();
        while let Some(e) = stream.next().await {
            out.push(e);
        }
        out
    })
    .await
    .expect("stream ends in time")
}

/// A compact trace of the events: name, index and payload.
fn trace(events: &[E]) -> Vec<String> {
    events
        .iter()
        .map(|e| match e {
            E::Start { .. } => "start".to_string(),
            E::TextStart { content_index: i } => format!("text_start({i})"),
            E::TextDelta {
                content_index: i,
                delta,
            } => format!("text_delta({i},{delta:?})"),
            E::TextEnd {
                content_index: i,
                text,
            } => format!("text_end({i},{:?})", text.text),
            E::ThinkingStart { content_index: i } => format!("thinking_start({i})"),
            E::ThinkingDelta {
                content_index: i,
                delta,
            } => {
                format!("thinking_delta({i},{delta:?})")
            }
            E::ThinkingEnd {
                content_index: i,
                thinking,
            } => {
                format!("thinking_end({i},{:?})", thinking.thinking)
            }
            E::ToolCallStart {
                content_index: i,
                id,
                name,
            } => {
                format!("toolcall_start({i},{id},{name})")
            }
            E::ToolCallDelta {
                content_index: i,
                delta,
            } => {
                format!("toolcall_delta({i},{delta:?})")
            }
            E::ToolCallEnd {
                content_index: i,
                tool_call,
            } => {
                format!("toolcall_end({i},{},{})", tool_call.id, tool_call.arguments)
            }
            E::Done { reason, .. } => format!("done({})", reason.as_str()),
            E::Error { reason, error } => format!(
                "error({},{})",
                reason.as_str(),
                error.error_message.as_deref().unwrap_or("")
            ),
        })
        .collect()
}

fn final_message(events: &[E]) -> &rho_ai::AssistantMessage {
    match events.last().expect("at least one event") {
        E::Done { message, .. } => message,
        E::Error { error, .. } => error,
        other => panic!("last event is not terminal: {other:?}"),
    }
}

#[tokio::test]
async fn text_reply_streams_and_records_the_request() {
    let server = MockServer::start().await;
    let events = ResponsesStream::new("resp_t1", "gpt-5")
        .message("msg_t1", &["Hel", "lo ", "there."])
        .completed(wire::usage(20, 0, 5, 0));
    server.push(MockResponse::sse(events));
    let mut opts = options();
    opts.session_id = Some("sess-1".into());
    let events = run(&server, &ask("Hi"), opts).await;

    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,\"Hel\")",
            "text_delta(0,\"lo \")",
            "text_delta(0,\"there.\")",
            "text_end(0,\"Hello there.\")",
            "done(stop)",
        ]
    );
    let msg = final_message(&events);
    assert_eq!(msg.response_id.as_deref(), Some("resp_t1"));
    assert_eq!(msg.stop_reason, StopReason::Stop);
    match &msg.content[0] {
        ContentBlock::Text(t) => {
            assert_eq!(
                t.text_signature.as_deref(),
                Some(r#"{"v":1,"id":"msg_t1"}"#)
            )
        }
        other => panic!("expected text, got {other:?}"),
    }
    let req = &server.requests()[0];
    assert_eq!(req.path, "/v1/responses");
    assert_eq!(req.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(req.header("session_id"), Some("sess-1"));
    assert_eq!(req.header("x-client-request-id"), Some("sess-1"));
    let body = req.json();
    assert_eq!(body["stream"], true);
    assert_eq!(body["prompt_cache_key"], "sess-1");
    // pi 1.6: the model's whole cap, fitted to the context window.
    assert_eq!(body["max_output_tokens"], 128_000);
}

/// Appendix A.5 of the providers spec, event for event.
#[tokio::test]
async fn reasoning_and_tool_call_match_appendix_a5() {
    let server = MockServer::start().await;
    let mut s = ResponsesStream::new("resp_01", "gpt-5");
    let reasoning = json!({"id": "rs_01", "type": "reasoning", "summary": []});
    s.push(
        "response.output_item.added",
        json!({"output_index": 0, "item": reasoning}),
    );
    let part = json!({"type": "summary_text", "text": ""});
    s.push(
        "response.reasoning_summary_part.added",
        json!({"item_id": "rs_01", "part": part}),
    );
    s.push(
        "response.reasoning_summary_text.delta",
        json!({"item_id": "rs_01", "delta": "Reading the file."}),
    );
    s.push(
        "response.reasoning_summary_part.done",
        json!({"item_id": "rs_01"}),
    );
    let done = json!({"id": "rs_01", "type": "reasoning", "encrypted_content": "ZW5jLXRlc3Q=",
        "summary": [{"type": "summary_text", "text": "Reading the file."}]});
    s.push(
        "response.output_item.done",
        json!({"output_index": 0, "item": done}),
    );
    let events = s
        .function_call(
            "fc_01",
            "call_01",
            "read",
            &["{\"path\":", "\"src/main.rs\"}"],
        )
        .completed(wire::usage(900, 512, 60, 20));
    server.push(MockResponse::sse(events));
    let mut opts = options();
    opts.reasoning = Some(ThinkingLevel::High);
    let events = run(&server, &ask("Read main"), opts).await;

    assert_eq!(
        trace(&events),
        [
            "start",
            "thinking_start(0)",
            "thinking_delta(0,\"Reading the file.\")",
            "thinking_delta(0,\"\\n\\n\")",
            "thinking_end(0,\"Reading the file.\")",
            "toolcall_start(1,call_01|fc_01,read)",
            "toolcall_delta(1,\"{\\\"path\\\":\")",
            "toolcall_delta(1,\"\\\"src/main.rs\\\"}\")",
            "toolcall_end(1,call_01|fc_01,{\"path\":\"src/main.rs\"})",
            "done(toolUse)",
        ]
    );
    let msg = final_message(&events);
    assert_eq!(msg.usage.input, 388);
    assert_eq!(msg.usage.cache_read, 512);
    assert_eq!(msg.usage.output, 60);
    assert_eq!(msg.usage.total_tokens, 960);
    let ContentBlock::Thinking(t) = &msg.content[0] else {
        panic!("expected thinking first");
    };
    let sig: serde_json::Value =
        serde_json::from_str(t.thinking_signature.as_deref().expect("signature")).expect("json");
    assert_eq!(sig["encrypted_content"], "ZW5jLXRlc3Q=");
    assert_eq!(sig["id"], "rs_01");
    let body = server.last_body();
    assert_eq!(
        body["reasoning"],
        json!({"effort": "high", "summary": "auto"})
    );
    assert_eq!(body["include"], json!(["reasoning.encrypted_content"]));
}

#[tokio::test]
async fn several_tool_calls_with_split_arguments() {
    let server = MockServer::start().await;
    let events = ResponsesStream::new("resp_m", "gpt-5")
        .reasoning("rs_1", &["Two files to read."], "ZW5j")
        .function_call("fc_a", "call_a", "read", &["{\"pa", "th\": \"a.", "rs\"}"])
        .function_call(
            "fc_b",
            "call_b",
            "bash",
            &["{\"command\"", ": \"ls -la\",", " \"timeout\": 5}"],
        )
        .completed(wire::usage(100, 0, 40, 10));
    server.push(MockResponse::sse(events));
    let events = run(&server, &ask("go"), options()).await;

    let deltas = |i: usize| {
        events
            .iter()
            .filter(|e| matches!(e, E::ToolCallDelta { content_index, .. } if *content_index == i))
            .count()
    };
    assert_eq!((deltas(1), deltas(2)), (3, 3));
    let msg = final_message(&events);
    assert_eq!(msg.stop_reason, StopReason::ToolUse);
    let calls: Vec<&ToolCall> = msg.tool_calls().collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0].id, "call_a|fc_a");
    assert_eq!(calls[0].arguments, json!({"path": "a.rs"}));
    assert_eq!(calls[1].id, "call_b|fc_b");
    assert_eq!(
        calls[1].arguments,
        json!({"command": "ls -la", "timeout": 5})
    );
    // Blocks close before the next opens.
    let t = trace(&events);
    let end_a = t
        .iter()
        .position(|s| s.starts_with("toolcall_end(1"))
        .expect("end a");
    let start_b = t
        .iter()
        .position(|s| s.starts_with("toolcall_start(2"))
        .expect("start b");
    assert!(end_a < start_b);
}

#[tokio::test]
async fn usage_cost_and_service_tier_multipliers() {
    let expected = 388.0 * 1.25e-6 + 60.0 * 10e-6 + 512.0 * 0.125e-6;
    for (tier, factor) in [("default", 1.0), ("flex", 0.5), ("priority", 2.0)] {
        let server = MockServer::start().await;
        let events = ResponsesStream::new("resp_u", "gpt-5")
            .message("msg_u", &["ok"])
            .finished(
                "response.completed",
                "completed",
                wire::usage(900, 512, 60, 0),
                Some(tier),
            );
        server.push(MockResponse::sse(events));
        let events = run(&server, &ask("cost?"), options()).await;
        let u = final_message(&events).usage;
        assert_eq!(
            (u.input, u.output, u.cache_read, u.cache_write),
            (388, 60, 512, 0)
        );
        assert!(
            (u.cost.total - expected * factor).abs() < 1e-12,
            "{tier}: {}",
            u.cost.total
        );
        assert!((u.cost.output - 60.0 * 10e-6 * factor).abs() < 1e-12);
    }
}

#[tokio::test]
async fn incomplete_status_maps_to_length() {
    let server = MockServer::start().await;
    let events = ResponsesStream::new("resp_i", "gpt-5")
        .message("msg_i", &["cut"])
        .finished(
            "response.incomplete",
            "incomplete",
            wire::usage(10, 0, 5, 0),
            None,
        );
    server.push(MockResponse::sse(events));
    let events = run(&server, &ask("long"), options()).await;
    assert_eq!(
        trace(&events).last().map(String::as_str),
        Some("done(length)")
    );
}

#[tokio::test]
async fn http_errors_give_exact_messages_and_no_start() {
    let cases = [
        (400, wire::OVERFLOW_BODY, "400 Your input exceeds the context window of this model. Please adjust your input and try again."),
        (429, wire::RATE_LIMIT_BODY, "429 Rate limit reached for gpt-5 in organization org-test on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000. Please try again in 2s. Visit https://platform.openai.com/account/rate-limits to learn more."),
        (500, wire::SERVER_ERROR_BODY, "500 The server had an error while processing your request. Sorry about that!"),
        (503, wire::OVERLOADED_BODY, "503 The engine is currently overloaded, please try again later"),
        (502, "<html>Bad gateway</html>", "502 <html>Bad gateway</html>"),
        (500, "", "500 status code (no body)"),
    ];
    for (status, body, message) in cases {
        let server = MockServer::start().await;
        server.push(MockResponse::error(status, body));
        let events = run(&server, &ask("hi"), options()).await;
        assert_eq!(events.len(), 1, "{status}: {:?}", trace(&events));
        assert_eq!(trace(&events), [format!("error(error,{message})")]);
        assert!(final_message(&events).content.is_empty());
    }
}

#[tokio::test]
async fn stream_error_events_fail_with_their_texts() {
    let server = MockServer::start().await;
    let mut events = ResponsesStream::new("resp_e", "gpt-5")
        .message("msg_e", &["partial"])
        .events();
    events.push(wire::error_event("server_error", "The server had an error"));
    server.push(MockResponse::sse(events));
    let failed = ResponsesStream::new("resp_f", "gpt-5")
        .failed(json!({"code": "rate_limit_exceeded", "message": "Slow down"}));
    server.push(MockResponse::sse(failed));
    let no_details = ResponsesStream::new("resp_g", "gpt-5").failed(serde_json::Value::Null);
    server.push(MockResponse::sse(no_details));

    let first = run(&server, &ask("a"), options()).await;
    assert_eq!(
        trace(&first).last().map(String::as_str),
        Some("error(error,Error Code server_error: The server had an error)")
    );
    assert_eq!(final_message(&first).text(), "partial");
    let second = run(&server, &ask("b"), options()).await;
    assert_eq!(
        trace(&second).last().map(String::as_str),
        Some("error(error,rate_limit_exceeded: Slow down)")
    );
    let third = run(&server, &ask("c"), options()).await;
    assert_eq!(
        trace(&third).last().map(String::as_str),
        Some("error(error,Unknown error (no error details in response))")
    );
}

#[tokio::test]
async fn invalid_json_in_the_stream_is_a_clear_error() {
    let server = MockServer::start().await;
    let events = ResponsesStream::new("resp_j", "gpt-5")
        .message("msg_j", &["kept"])
        .raw(sse_event(
            Some("response.output_text.delta"),
            "{\"type\":\"response.output_text.delta\",\"delta\":",
        ))
        .events();
    server.push(MockResponse::sse(events));
    let events = run(&server, &ask("x"), options()).await;
    let msg = final_message(&events);
    assert_eq!(msg.stop_reason, StopReason::Error);
    let err = msg.error_message.as_deref().expect("message");
    assert!(
        err.starts_with("Invalid JSON in Responses stream event"),
        "{err}"
    );
    assert_eq!(msg.text(), "kept");
}

#[tokio::test]
async fn dropped_connection_keeps_streamed_content() {
    let server = MockServer::start().await;
    let mut s = ResponsesStream::new("resp_d", "gpt-5");
    let item = json!({"id": "msg_d", "type": "message", "content": [], "role": "assistant"});
    s.push(
        "response.output_item.added",
        json!({"output_index": 0, "item": item}),
    );
    let part = json!({"type": "output_text", "text": "", "annotations": []});
    s.push(
        "response.content_part.added",
        json!({"item_id": "msg_d", "part": part}),
    );
    s.push(
        "response.output_text.delta",
        json!({"item_id": "msg_d", "delta": "half a sen"}),
    );
    server.push(MockResponse::sse(s.events()).then(Chunk::Drop));
    let events = run(&server, &ask("x"), options()).await;
    let msg = final_message(&events);
    assert_eq!(msg.stop_reason, StopReason::Error);
    assert_eq!(
        msg.error_message.as_deref(),
        Some("OpenAI Responses stream ended before a terminal response event")
    );
    assert_eq!(msg.text(), "half a sen");
    assert!(matches!(events[0], E::Start { .. }));
}

#[tokio::test]
async fn abort_mid_stream_closes_the_connection() {
    let server = MockServer::start().await;
    let mut s = ResponsesStream::new("resp_a", "gpt-5");
    let item = json!({"id": "msg_a", "type": "message", "content": [], "role": "assistant"});
    s.push(
        "response.output_item.added",
        json!({"output_index": 0, "item": item}),
    );
    let part = json!({"type": "output_text", "text": "", "annotations": []});
    s.push(
        "response.content_part.added",
        json!({"item_id": "msg_a", "part": part}),
    );
    s.push(
        "response.output_text.delta",
        json!({"item_id": "msg_a", "delta": "first"}),
    );
    server.push(MockResponse::sse(s.events()).then(Chunk::Hang));
    let opts = options();
    let cancel = opts.cancel.clone();
    let mut stream = rho_ai::stream(&model(&server.url()), &ask("x"), opts).expect("starts");
    let mut events = Vec::new();
    let outcome = tokio::time::timeout(LIMIT, async {
        while let Some(e) = stream.next().await {
            if matches!(e, E::TextDelta { .. }) {
                cancel.cancel();
            }
            events.push(e);
        }
    })
    .await;
    assert!(outcome.is_ok(), "stream did not end after abort");
    let msg = final_message(&events);
    assert_eq!(msg.stop_reason, StopReason::Aborted);
    assert_eq!(msg.text(), "first");
    tokio::time::timeout(LIMIT, server.wait_for_closed(1))
        .await
        .expect("connection closed after abort");
}

#[path = "openai_responses/requests.rs"]
mod requests;
