//! `anthropic-messages` end to end: `rho_ai::stream` against `MockServer` speaking the real
//! SSE bytes and error bodies of the Anthropic API (providers spec §2, §3.1, §7, Appendix A).
//! Successful replies are tested here; failures in `anthropic/failures.rs`; request bodies
//! and headers are snapshot-tested in `anthropic/requests.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod common;
mod failures;
mod requests;

// The helpers are named `anthropic::common::…` here as in `oauth_requests`.
use crate::anthropic;

use anthropic::common::{collect, model, names, options, text_of};
use rho_ai::{AssistantMessageEvent as E, ContentBlock, PartialMessage, StopReason};
use rho_testkit::anthropic as wire;
use rho_testkit::{Chunk, MockResponse, MockServer};
use serde_json::json;

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[tokio::test]
async fn a1_text_reply_events_usage_cost_and_request() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse(wire::transcript_a1()));
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &anthropic::common::a1_context(), options()).await;

    assert_eq!(
        names(&events),
        [
            "start",
            "text_start",
            "text_delta",
            "text_delta",
            "text_end",
            "done"
        ]
    );
    // pi 1.6: the partial carries `message_start`'s usage from the first event on, so every
    // update reports the input tokens.
    let E::Start { partial } = &events[0] else {
        panic!("start expected")
    };
    let u = partial.usage;
    assert_eq!((u.input, u.output, u.cache_read), (412, 1, 1800));
    assert!(close(u.cost.input, 3.0 / 1e6 * 412.0));
    assert!(matches!(&events[2], E::TextDelta { content_index: 0, delta } if delta == "Hello! "));
    assert!(
        matches!(&events[3], E::TextDelta { content_index: 0, delta } if delta == "How can I help?")
    );
    assert!(
        matches!(&events[4], E::TextEnd { content_index: 0, text } if text.text == "Hello! How can I help?")
    );
    let E::Done { reason, message } = &events[5] else {
        panic!("done expected")
    };
    assert_eq!(*reason, StopReason::Stop);
    assert_eq!(message.stop_reason, StopReason::Stop);
    assert_eq!(message.response_id.as_deref(), Some("msg_01TEXT"));
    assert_eq!(message.text(), "Hello! How can I help?");
    let u = message.usage;
    assert_eq!(
        (
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.total_tokens
        ),
        (412, 9, 1800, 0, 2221)
    );
    // §7: 3 / 15 / 0.3 / 3.75 USD per million tokens.
    assert!(close(u.cost.input, 3.0 / 1e6 * 412.0));
    assert!(close(u.cost.output, 15.0 / 1e6 * 9.0));
    assert!(close(u.cost.cache_read, 0.3 / 1e6 * 1800.0));
    assert_eq!(u.cost.cache_write, 0.0);
    assert!(close(u.cost.total, 0.001911), "total {}", u.cost.total);

    let req = &server.requests()[0];
    assert_eq!(
        (req.method.as_str(), req.path.as_str()),
        ("POST", "/v1/messages")
    );
    assert_eq!(req.header("x-api-key"), Some("sk-ant-api03-test"));
    assert_eq!(req.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(
        req.header("anthropic-beta"),
        Some("interleaved-thinking-2025-05-14")
    );
    assert_eq!(req.header("content-type"), Some("application/json"));
    assert_eq!(req.json(), anthropic::common::a1_request_body());
}

#[tokio::test]
async fn a2_thinking_then_text_then_tool_call_split_across_deltas() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse(wire::transcript_a2()));
    let m = model(&server, "claude-sonnet-4-5");
    let mut opts = options();
    opts.reasoning = Some(rho_ai::ThinkingLevel::Medium);
    let events = collect(&m, &anthropic::common::a1_context(), opts).await;

    assert_eq!(
        names(&events),
        [
            "start",
            "thinking_start",
            "thinking_delta",
            "thinking_end",
            "text_start",
            "text_delta",
            "text_end",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_delta",
            "toolcall_delta",
            "toolcall_end",
            "done"
        ]
    );
    let deltas: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            E::ToolCallDelta {
                content_index: 2,
                delta,
            } => Some(delta.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(deltas, ["", "{\"path\": \"src/ma", "in.rs\"}"]);
    // The partial message a consumer folds holds the best-effort parse mid-stream.
    let mut partial = PartialMessage::new();
    for e in &events[..10] {
        partial.apply(e);
    }
    let mid = partial.message().expect("started");
    assert!(
        matches!(&mid.content[2], ContentBlock::ToolCall(tc) if tc.arguments == json!({"path": "src/ma"}))
    );
    let E::ThinkingEnd { thinking, .. } = &events[3] else {
        panic!("thinking_end expected")
    };
    assert_eq!(thinking.thinking, "I should read the file first.");
    assert_eq!(
        thinking.thinking_signature.as_deref(),
        Some("c2lnLXRlc3QtMDE=")
    );
    let E::ToolCallEnd {
        content_index: 2,
        tool_call,
    } = &events[11]
    else {
        panic!("toolcall_end expected")
    };
    assert_eq!(
        (tool_call.id.as_str(), tool_call.name.as_str()),
        ("toolu_01ABC", "read")
    );
    assert_eq!(tool_call.arguments, json!({"path": "src/main.rs"}));
    let E::Done { reason, message } = &events[12] else {
        panic!("done expected")
    };
    assert_eq!(*reason, StopReason::ToolUse);
    assert_eq!(message.response_id.as_deref(), Some("msg_01TOOL"));
    let u = message.usage;
    assert_eq!(
        (
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.total_tokens
        ),
        (980, 87, 0, 1500, 2567)
    );
    assert!(close(u.cost.total, 0.00987), "total {}", u.cost.total);
    let body = server.last_body();
    // pi 1.6: the model's whole cap (64,000) with the budget inside it.
    assert_eq!(body["max_tokens"], 64000);
    assert_eq!(
        body["thinking"],
        json!({"type": "enabled", "budget_tokens": 8192, "display": "summarized"})
    );
}

#[tokio::test]
async fn redacted_thinking_keeps_data_as_signature() {
    let server = MockServer::start().await;
    let usage = wire::Usage {
        input: 10,
        output: 30,
        ..Default::default()
    };
    server.push(MockResponse::sse(wire::thinking_reply(
        "msg_01RED",
        "claude-sonnet-4-5",
        &["Let me ", "think."],
        "c2ln",
        "RU5DUllQVEVE",
        "Done.",
        usage,
    )));
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &anthropic::common::a1_context(), options()).await;
    assert_eq!(
        names(&events),
        [
            "start",
            "thinking_start",
            "thinking_delta",
            "thinking_delta",
            "thinking_end",
            "thinking_start",
            "thinking_end",
            "text_start",
            "text_delta",
            "text_end",
            "done"
        ]
    );
    let E::Done { message, .. } = events.last().expect("events") else {
        panic!("done expected")
    };
    let ContentBlock::Thinking(first) = &message.content[0] else {
        panic!("thinking expected")
    };
    assert_eq!(
        (first.thinking.as_str(), first.thinking_signature.as_deref()),
        ("Let me think.", Some("c2ln"))
    );
    assert_eq!(first.redacted, None);
    let ContentBlock::Thinking(red) = &message.content[1] else {
        panic!("redacted thinking expected")
    };
    assert_eq!(red.thinking, "[Reasoning redacted]");
    assert_eq!(red.thinking_signature.as_deref(), Some("RU5DUllQVEVE"));
    assert_eq!(red.redacted, Some(true));
    assert_eq!(text_of(message), "Done.");
}

#[tokio::test]
async fn several_tool_calls_with_json_split_across_events_and_tcp_chunks() {
    let server = MockServer::start().await;
    let calls = [
        wire::ToolCallScript {
            id: "toolu_01A",
            name: "read",
            fragments: vec!["", "{\"pa", "th\": \"a.rs\", \"limit\"", ": 20}"],
        },
        wire::ToolCallScript {
            id: "toolu_01B",
            name: "bash",
            fragments: vec!["{\"command\": \"echo \\\"hi", "\\\"\\nls\"}"],
        },
    ];
    let usage = wire::Usage {
        input: 50,
        output: 40,
        ..Default::default()
    };
    let bytes = wire::tool_calls_reply("msg_01TWO", "claude-sonnet-4-5", &calls, usage).concat();
    // Cut the body into 7-byte TCP writes so events and JSON strings straddle chunks.
    let mut response = MockResponse::sse(Vec::<String>::new());
    for piece in bytes.as_bytes().chunks(7) {
        response = response.then(Chunk::Bytes(piece.to_vec()));
    }
    server.push(response);
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &anthropic::common::a1_context(), options()).await;
    assert_eq!(
        names(&events),
        [
            "start",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_delta",
            "toolcall_delta",
            "toolcall_delta",
            "toolcall_end",
            "toolcall_start",
            "toolcall_delta",
            "toolcall_delta",
            "toolcall_end",
            "done"
        ]
    );
    let fragments: Vec<(usize, &str)> = events
        .iter()
        .filter_map(|e| match e {
            E::ToolCallDelta {
                content_index,
                delta,
            } => Some((*content_index, delta.as_str())),
            _ => None,
        })
        .collect();
    assert_eq!(
        fragments,
        [
            (0, ""),
            (0, "{\"pa"),
            (0, "th\": \"a.rs\", \"limit\""),
            (0, ": 20}"),
            (1, "{\"command\": \"echo \\\"hi"),
            (1, "\\\"\\nls\"}"),
        ]
    );
    let E::Done { reason, message } = events.last().expect("events") else {
        panic!("done expected")
    };
    assert_eq!(*reason, StopReason::ToolUse);
    let calls: Vec<_> = message
        .tool_calls()
        .map(|tc| (tc.id.as_str(), tc.name.as_str(), tc.arguments.clone()))
        .collect();
    assert_eq!(
        calls,
        [
            ("toolu_01A", "read", json!({"path": "a.rs", "limit": 20})),
            ("toolu_01B", "bash", json!({"command": "echo \"hi\"\nls"})),
        ]
    );
}

#[tokio::test]
async fn max_tokens_is_length_and_message_delta_overrides_only_present_usage() {
    let server = MockServer::start().await;
    let mut events = wire::transcript_a1();
    let n = events.len();
    events[n - 2] = rho_testkit::sse_event(
        Some("message_delta"),
        "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"max_tokens\",\"stop_sequence\":null},\"usage\":{\"input_tokens\":500,\"cache_read_input_tokens\":null,\"output_tokens\":32000}}",
    );
    server.push(MockResponse::sse(events));
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &anthropic::common::a1_context(), options()).await;
    let E::Done { reason, message } = events.last().expect("events") else {
        panic!("done expected")
    };
    assert_eq!(*reason, StopReason::Length);
    let u = message.usage;
    assert_eq!(
        (
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.total_tokens
        ),
        (500, 32000, 1800, 0, 34300)
    );
    assert!(close(
        u.cost.total,
        3.0 / 1e6 * 500.0 + 15.0 / 1e6 * 32000.0 + 0.3 / 1e6 * 1800.0
    ));
}

#[tokio::test]
async fn oauth_call_looks_like_claude_code_and_maps_tool_names_back() {
    let server = MockServer::start().await;
    let calls = [wire::ToolCallScript {
        id: "toolu_01OA",
        name: "Read",
        fragments: vec!["{\"path\":\"x\"}"],
    }];
    server.push(MockResponse::sse(wire::tool_calls_reply(
        "msg_01OA",
        "claude-sonnet-4-5",
        &calls,
        wire::Usage::default(),
    )));
    let m = model(&server, "claude-sonnet-4-5");
    let mut opts = options();
    opts.api_key = Some("sk-ant-oat01-token".into());
    let events = collect(&m, &anthropic::common::a1_context(), opts).await;
    let E::Done { message, .. } = events.last().expect("events") else {
        panic!("done expected")
    };
    assert_eq!(
        message.tool_calls().next().map(|t| t.name.as_str()),
        Some("read")
    );
    let req = &server.requests()[0];
    assert_eq!(
        req.header("authorization"),
        Some("Bearer sk-ant-oat01-token")
    );
    assert_eq!(req.header("x-api-key"), None);
    assert_eq!(req.header("user-agent"), Some("claude-cli/2.1.322"));
    assert_eq!(req.header("x-app"), Some("cli"));
    assert_eq!(
        req.header("anthropic-beta"),
        Some("claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14")
    );
    let body = req.json();
    assert_eq!(body["tools"][0]["name"], "Read");
    assert_eq!(
        body["system"][0]["text"],
        "You are Claude Code, Anthropic's official CLI for Claude."
    );
    assert_eq!(body["system"][1]["text"], "You are a coding agent.");
}

#[tokio::test]
async fn non_canonical_json_layout_is_decoded_the_same() {
    let server = MockServer::start().await;
    let a1 = wire::transcript_a1();
    let spaced = |i: usize, text: &str| {
        rho_testkit::sse_event(
            Some("content_block_delta"),
            &format!(
                "{{ \"index\": {i}, \"type\": \"content_block_delta\", \"delta\": {{ \"text\": {}, \"type\": \"text_delta\" }} }}",
                serde_json::Value::String(text.into())
            ),
        )
    };
    let mut events = a1[..3].to_vec();
    events.push(spaced(0, "Hello! "));
    events.push(spaced(0, "\"quoted\"\n"));
    events.extend_from_slice(&a1[5..]);
    server.push(MockResponse::sse(events));
    let m = model(&server, "claude-sonnet-4-5");
    let events = collect(&m, &anthropic::common::a1_context(), options()).await;
    let E::Done { message, .. } = events.last().expect("events") else {
        panic!("done expected")
    };
    assert_eq!(text_of(message), "Hello! \"quoted\"\n");
}

#[tokio::test]
async fn in_memory_driver_gives_the_same_events_as_http() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse(wire::transcript_a2()));
    let m = model(&server, "claude-sonnet-4-5");
    let over_http = collect(&m, &anthropic::common::a1_context(), options()).await;

    let (sink, mut stream) = rho_ai::AssistantStream::channel();
    let reply = rho_ai::reply::ReplyBuilder::new(&m, sink, Default::default());
    let body = wire::transcript_a2().concat();
    rho_ai::provider::drive_bytes(
        body.as_bytes().chunks(5),
        rho_ai::providers::anthropic::Parser::new(&m),
        reply,
    );
    let mut in_memory = Vec::new();
    while let Some(e) = stream.next().await {
        in_memory.push(e);
    }
    assert_eq!(names(&in_memory), names(&over_http));
    let (E::Done { message: a, .. }, E::Done { message: b, .. }) = (
        in_memory.last().expect("events"),
        over_http.last().expect("events"),
    ) else {
        panic!("both must finish")
    };
    assert_eq!(
        (&a.content, a.usage, a.stop_reason),
        (&b.content, b.usage, b.stop_reason)
    );
}
