//! `google-generative-ai` against the loopback server speaking the real Gemini SSE stream.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashSet;
use std::time::Duration;

use rho_ai::providers::google::build_request;
use rho_ai::{
    AssistantMessage, AssistantMessageEvent as E, AssistantStream, ContentBlock, Context,
    ImageContent, InputKind, Message, Model, ModelCost, StopReason, StreamOptions, TextContent,
    ThinkingBudgets, ThinkingContent, ThinkingLevel, Tool, ToolCall, ToolResultMessage,
    UserContent, UserMessage,
};
use rho_testkit::google::{self as wire, GeminiStream};
use rho_testkit::{Chunk, MockResponse, MockServer};
use serde_json::json;

const LIMIT: Duration = Duration::from_secs(10);

fn model_named(base: &str, id: &str) -> Model {
    Model {
        id: id.into(),
        name: id.into(),
        api: "google-generative-ai".into(),
        provider: "google".into(),
        base_url: format!("{base}/v1beta"),
        reasoning: true,
        thinking_level_map: None,
        input: vec![InputKind::Text, InputKind::Image],
        cost: ModelCost {
            input: 0.3,
            output: 2.5,
            cache_read: 0.075,
            cache_write: 0.0,
            ..Default::default()
        },
        context_window: 1_048_576,
        max_tokens: 65_536,
        headers: None,
        compat: None,
        ..Default::default()
    }
}

fn model(base: &str) -> Model {
    model_named(base, "gemini-2.5-flash")
}

fn options() -> StreamOptions {
    StreamOptions {
        api_key: Some("AIza-test".into()),
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

/// A compact trace of the events; generated tool ids are shown as `<gen:name>`.
fn trace(events: &[E]) -> Vec<String> {
    let id = |id: &str, name: &str| {
        if id.starts_with(&format!("{name}_")) {
            format!("<gen:{name}>")
        } else {
            id.to_string()
        }
    };
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
                id: tid,
                name,
            } => {
                format!("toolcall_start({i},{},{name})", id(tid, name))
            }
            E::ToolCallDelta {
                content_index: i,
                delta,
            } => {
                format!("toolcall_delta({i},{delta})")
            }
            E::ToolCallEnd {
                content_index: i,
                tool_call: tc,
            } => {
                format!(
                    "toolcall_end({i},{},{})",
                    id(&tc.id, &tc.name),
                    tc.arguments
                )
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

fn final_message(events: &[E]) -> &AssistantMessage {
    match events.last().expect("at least one event") {
        E::Done { message, .. } => message,
        E::Error { error, .. } => error,
        other => panic!("last event is not terminal: {other:?}"),
    }
}

fn last(events: &[E]) -> String {
    trace(events).pop().expect("events")
}

#[tokio::test]
async fn text_reply_streams_and_records_the_request() {
    let server = MockServer::start().await;
    let chunks = GeminiStream::new("resp-t1", "gemini-2.5-flash")
        .parts(vec![wire::text("Hello")])
        .finish(
            vec![wire::text(" there.")],
            "STOP",
            wire::usage(12, 3, 0, 0),
        );
    server.push(MockResponse::sse(chunks));
    let events = run(&server, &ask("Hi"), options()).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,\"Hello\")",
            "text_delta(0,\" there.\")",
            "text_end(0,\"Hello there.\")",
            "done(stop)",
        ]
    );
    let msg = final_message(&events);
    assert_eq!(msg.response_id.as_deref(), Some("resp-t1"));
    let req = &server.requests()[0];
    assert_eq!(
        req.path,
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(req.header("x-goog-api-key"), Some("AIza-test"));
    assert!(req.header("authorization").is_none());
    // pi 1.6: the model's whole cap, fitted to the context window.
    assert_eq!(req.json()["generationConfig"]["maxOutputTokens"], 65_536);
}

/// Appendix A.5 of the providers spec (Gemini part), event for event.
#[tokio::test]
async fn thought_text_and_call_match_appendix_a5() {
    let server = MockServer::start().await;
    let call = wire::function_call(
        "read",
        json!({"path": "src/main.rs"}),
        Some("c2lnLWdlbWluaQ=="),
    );
    let usage = json!({"promptTokenCount": 300, "candidatesTokenCount": 20, "thoughtsTokenCount": 15, "totalTokenCount": 335});
    let chunks = GeminiStream::new("resp-g1", "gemini-2.5-flash")
        .parts(vec![wire::thought("Checking the file.")])
        .parts(vec![wire::text("I'll read it.")])
        .finish(vec![call], "STOP", usage);
    server.push(MockResponse::sse(chunks));
    let mut opts = options();
    opts.reasoning = Some(ThinkingLevel::Medium);
    let events = run(&server, &ask("Read main"), opts).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "thinking_start(0)",
            "thinking_delta(0,\"Checking the file.\")",
            "thinking_end(0,\"Checking the file.\")",
            "text_start(1)",
            "text_delta(1,\"I'll read it.\")",
            "text_end(1,\"I'll read it.\")",
            "toolcall_start(2,<gen:read>,read)",
            "toolcall_delta(2,{\"path\":\"src/main.rs\"})",
            "toolcall_end(2,<gen:read>,{\"path\":\"src/main.rs\"})",
            "done(toolUse)",
        ]
    );
    let msg = final_message(&events);
    let u = msg.usage;
    assert_eq!(
        (u.input, u.output, u.cache_read, u.total_tokens),
        (300, 35, 0, 335)
    );
    let call = msg.tool_calls().next().expect("call");
    assert_eq!(call.thought_signature.as_deref(), Some("c2lnLWdlbWluaQ=="));
    let id_parts: Vec<&str> = call.id.split('_').collect();
    assert_eq!(id_parts.len(), 3, "{}", call.id);
    assert!(id_parts[1].parse::<i64>().is_ok() && id_parts[2].parse::<u64>().is_ok());
    assert_eq!(msg.response_id.as_deref(), Some("resp-g1"));
    let thinking = &server.last_body()["generationConfig"]["thinkingConfig"];
    assert_eq!(
        *thinking,
        json!({"includeThoughts": true, "thinkingBudget": 8192})
    );
}

#[tokio::test]
async fn several_calls_across_chunks_get_unique_ids() {
    let server = MockServer::start().await;
    let mut with_id = wire::function_call("bash", json!({"command": "ls"}), None);
    with_id["functionCall"]["id"] = json!("call-x");
    let chunks = GeminiStream::new("resp-m", "gemini-2.5-flash")
        .parts(vec![
            wire::function_call("read", json!({"path": "a.rs"}), None),
            wire::function_call("read", json!({"path": "b.rs"}), None),
        ])
        .parts(vec![with_id.clone()])
        .finish(vec![with_id], "STOP", wire::usage(50, 20, 0, 0));
    server.push(MockResponse::sse(chunks));
    let events = run(&server, &ask("go"), options()).await;
    let msg = final_message(&events);
    assert_eq!(msg.stop_reason, StopReason::ToolUse);
    let calls: Vec<&ToolCall> = msg.tool_calls().collect();
    assert_eq!(calls.len(), 4);
    let ids: HashSet<&str> = calls.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids.len(), 4, "ids must be unique: {ids:?}");
    assert_eq!(calls[2].id, "call-x");
    assert!(
        calls[3].id.starts_with("bash_"),
        "reused id is replaced: {}",
        calls[3].id
    );
    assert_eq!(calls[0].arguments, json!({"path": "a.rs"}));
    assert_eq!(calls[1].arguments, json!({"path": "b.rs"}));
    let deltas = events
        .iter()
        .filter(|e| matches!(e, E::ToolCallDelta { .. }))
        .count();
    assert_eq!(deltas, 4, "one delta per whole functionCall");
}

#[tokio::test]
async fn signatures_are_kept_on_text_and_thinking() {
    let server = MockServer::start().await;
    let mut signed_thought = wire::thought("Hmm.");
    signed_thought["thoughtSignature"] = json!("dGhpbms=");
    let mut signed_text = wire::text("Answer");
    signed_text["thoughtSignature"] = json!("dGV4dA==");
    let chunks = GeminiStream::new("resp-s", "gemini-2.5-flash")
        .parts(vec![signed_thought])
        .parts(vec![wire::thought(" More.")])
        .parts(vec![signed_text])
        .finish(vec![wire::text(".")], "STOP", wire::usage(5, 5, 5, 0));
    server.push(MockResponse::sse(chunks));
    let events = run(&server, &ask("x"), options()).await;
    let msg = final_message(&events);
    assert_eq!(msg.stop_reason, StopReason::Stop);
    let ContentBlock::Thinking(t) = &msg.content[0] else {
        panic!("thinking first");
    };
    assert_eq!(t.thinking, "Hmm. More.");
    assert_eq!(t.thinking_signature.as_deref(), Some("dGhpbms="));
    let ContentBlock::Text(x) = &msg.content[1] else {
        panic!("text second");
    };
    assert_eq!(x.text, "Answer.");
    assert_eq!(x.text_signature.as_deref(), Some("dGV4dA=="));
}

#[tokio::test]
async fn usage_with_cache_and_cost() {
    let server = MockServer::start().await;
    let chunks = GeminiStream::new("resp-u", "gemini-2.5-flash").finish(
        vec![wire::text("ok")],
        "STOP",
        wire::usage(1000, 50, 30, 400),
    );
    server.push(MockResponse::sse(chunks));
    let events = run(&server, &ask("x"), options()).await;
    let u = final_message(&events).usage;
    assert_eq!(
        (u.input, u.output, u.cache_read, u.cache_write),
        (600, 80, 400, 0)
    );
    assert_eq!(u.total_tokens, 1080);
    let expected = 600.0 * 0.3e-6 + 80.0 * 2.5e-6 + 400.0 * 0.075e-6;
    assert!((u.cost.total - expected).abs() < 1e-12, "{}", u.cost.total);
}

#[tokio::test]
async fn finish_reasons_length_and_safety() {
    let server = MockServer::start().await;
    let usage = || wire::usage(5, 5, 0, 0);
    server.push(MockResponse::sse(GeminiStream::new("r1", "m").finish(
        vec![wire::text("cut")],
        "MAX_TOKENS",
        usage(),
    )));
    server.push(MockResponse::sse(GeminiStream::new("r2", "m").finish(
        vec![wire::text("bad")],
        "SAFETY",
        usage(),
    )));
    assert_eq!(
        last(&run(&server, &ask("a"), options()).await),
        "done(length)"
    );
    let safety = run(&server, &ask("b"), options()).await;
    assert_eq!(last(&safety), "error(error,An unknown error occurred)");
    assert_eq!(final_message(&safety).text(), "bad");
}

#[tokio::test]
async fn http_errors_give_compact_json_and_no_start() {
    let cases = [
        (
            400,
            wire::OVERFLOW_BODY,
            r#"{"error":{"code":400,"message":"The input token count (1196265) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}"#,
        ),
        (
            429,
            wire::RATE_LIMIT_BODY,
            r#"{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"37s"}]}}"#,
        ),
        (
            500,
            wire::INTERNAL_BODY,
            r#"{"error":{"code":500,"message":"An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting","status":"INTERNAL"}}"#,
        ),
        (
            503,
            wire::OVERLOADED_BODY,
            r#"{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}"#,
        ),
    ];
    for (status, body, message) in cases {
        let server = MockServer::start().await;
        server.push(MockResponse::error(status, body));
        let events = run(&server, &ask("hi"), options()).await;
        assert_eq!(
            trace(&events),
            [format!("error(error,{message})")],
            "{status}"
        );
    }
}

#[tokio::test]
async fn error_object_inside_the_stream_fails() {
    let server = MockServer::start().await;
    let error = r#"{"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}"#;
    let chunks = GeminiStream::new("r", "m")
        .parts(vec![wire::text("so far")])
        .raw(wire::frame(error))
        .chunks();
    server.push(MockResponse::sse(chunks));
    let events = run(&server, &ask("x"), options()).await;
    assert_eq!(
        last(&events),
        r#"error(error,got status: UNAVAILABLE. {"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}})"#
    );
    assert_eq!(final_message(&events).text(), "so far");
}

#[tokio::test]
async fn invalid_json_chunk_is_a_clear_error() {
    let server = MockServer::start().await;
    let chunks = GeminiStream::new("r", "m")
        .parts(vec![wire::text("kept")])
        .raw(wire::frame("{\"candidates\": [{\"content\": "))
        .chunks();
    server.push(MockResponse::sse(chunks));
    let events = run(&server, &ask("x"), options()).await;
    let msg = final_message(&events);
    assert_eq!(msg.stop_reason, StopReason::Error);
    let err = msg.error_message.as_deref().expect("message");
    assert!(
        err.starts_with("Invalid JSON in Gemini stream chunk"),
        "{err}"
    );
    assert_eq!(msg.text(), "kept");
}

#[tokio::test]
async fn dropped_connection_keeps_streamed_content() {
    let server = MockServer::start().await;
    let chunks = GeminiStream::new("r", "m")
        .parts(vec![wire::thought("Plan.")])
        .parts(vec![wire::text("half a sen")])
        .chunks();
    server.push(MockResponse::sse(chunks).then(Chunk::Drop));
    let events = run(&server, &ask("x"), options()).await;
    let msg = final_message(&events);
    assert_eq!(msg.stop_reason, StopReason::Error);
    assert_eq!(
        msg.error_message.as_deref(),
        Some("Google stream ended without a finish reason")
    );
    assert_eq!(msg.text(), "half a sen");
    assert_eq!(msg.content.len(), 2);
}

#[tokio::test]
async fn abort_mid_stream_closes_the_connection() {
    let server = MockServer::start().await;
    let chunks = GeminiStream::new("r", "m")
        .parts(vec![wire::text("first")])
        .chunks();
    server.push(MockResponse::sse(chunks).then(Chunk::Hang));
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

#[path = "google/requests.rs"]
mod requests;
