//! Chat Completions calls over real HTTP against the mock server: replies, usage, errors,
//! broken streams and aborts.

use std::time::Duration;

use rho_ai::{AssistantMessageEvent, ContentBlock, StopReason};
use rho_testkit::openai_chat::{self, ChatStream};
use rho_testkit::MockServer;
use serde_json::json;

use super::common::*;

async fn run(model: &rho_ai::Model) -> Vec<AssistantMessageEvent> {
    let stream =
        rho_ai::stream(model, &show_main_context(), options("sk-test")).expect("stream starts");
    collect(stream).await
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[tokio::test]
async fn text_reply_matches_appendix_a3() {
    let server = MockServer::start().await;
    server.push(openai_chat::text_reply().response());
    let model = groq(&format!("{}/openai/v1", server.url()));
    let events = run(&model).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,Hello)",
            "text_delta(0, there!)",
            "text_end(0,Hello there!)",
            "done(stop)"
        ]
    );
    let m = final_message(&events);
    assert_eq!(m.response_id.as_deref(), Some("chatcmpl-T1"));
    assert_eq!(m.response_model, None);
    let u = m.usage;
    assert_eq!(
        (
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.total_tokens
        ),
        (57, 3, 0, 0, 60)
    );
    assert!(close(u.cost.total, 0.000036), "cost {}", u.cost.total);

    let req = &server.requests()[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.path, "/openai/v1/chat/completions");
    assert_eq!(req.header("authorization"), Some("Bearer sk-test"));
    assert_eq!(req.header("content-type"), Some("application/json"));
    let expected = json!({"model":"llama-3.3-70b-versatile","messages":[{"role":"system","content":"You are a coding agent."},{"role":"user","content":"Show me src/main.rs"}],
        "stream":true,"stream_options":{"include_usage":true},"store":false,"max_completion_tokens":32000,
        "tools":[{"type":"function","function":{"name":"read","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]},"strict":false}}]});
    assert_eq!(req.json(), expected);
}

#[tokio::test]
async fn reasoning_and_tool_call_match_appendix_a4() {
    let server = MockServer::start().await;
    server.push(openai_chat::reasoning_tool_call().response());
    let model = deepseek(&server.url());
    let mut opts = options("sk-ds");
    opts.reasoning = Some(rho_ai::ThinkingLevel::High);
    let stream = rho_ai::stream(&model, &show_main_context(), opts).expect("stream starts");
    let events = collect(stream).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "thinking_start(0)",
            "thinking_delta(0,Need the file.)",
            "thinking_delta(0, Calling read.)",
            "toolcall_start(1,call_0_a1b2,read)",
            "toolcall_delta(1,)",
            "toolcall_delta(1,{\"path\":)",
            "toolcall_delta(1,\"src/main.rs\"})",
            "thinking_end(0,Need the file. Calling read.)",
            "toolcall_end(1,call_0_a1b2,read,{\"path\":\"src/main.rs\"})",
            "done(toolUse)"
        ]
    );
    let body = server.last_body();
    assert_eq!(body["thinking"], json!({"type": "enabled"}));
    assert_eq!(body["reasoning_effort"], "high");

    let m = final_message(&events).clone();
    let ContentBlock::Thinking(t) = &m.content[0] else {
        panic!("thinking first")
    };
    assert_eq!(t.thinking_signature.as_deref(), Some("reasoning_content"));
    let u = m.usage;
    assert_eq!(
        (
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.total_tokens
        ),
        (176, 40, 1024, 0, 1240)
    );
    assert!(close(u.cost.total, 0.0000387072), "cost {}", u.cost.total);

    // Replaying the turn sends the reasoning back in the field it came from.
    let mut ctx = show_main_context();
    ctx.messages.push(rho_ai::Message::Assistant(m));
    let req = rho_ai::providers::openai_completions::build_request(&model, &ctx, &options("k"));
    assert_eq!(
        req.body["messages"][2],
        json!({"role":"assistant","content":null,"reasoning_content":"Need the file. Calling read.",
            "tool_calls":[{"id":"call_0_a1b2","type":"function","function":{"name":"read","arguments":"{\"path\":\"src/main.rs\"}"}}]})
    );
}

#[tokio::test]
async fn reasoning_field_then_text_uses_the_first_non_empty_field() {
    let server = MockServer::start().await;
    // chutes-style duplicate: the same reasoning in two fields must not be doubled.
    let stream = ChatStream::new("gen-7", "qwen/qwen3-32b")
        .role()
        .delta(
            json!({"reasoning": "Think", "reasoning_text": "Think"}),
            None,
        )
        .reasoning("reasoning", "ing.")
        .text("Answer.")
        .reasoning("reasoning", " More.")
        .finish("stop")
        .done();
    server.push(stream.response());
    let model = groq(&server.url());
    let events = run(&model).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "thinking_start(0)",
            "thinking_delta(0,Think)",
            "thinking_delta(0,ing.)",
            "text_start(1)",
            "text_delta(1,Answer.)",
            "thinking_delta(0, More.)",
            "thinking_end(0,Thinking. More.)",
            "text_end(1,Answer.)",
            "done(stop)"
        ]
    );
    let m = final_message(&events);
    let ContentBlock::Thinking(t) = &m.content[0] else {
        panic!("thinking first")
    };
    assert_eq!(t.thinking_signature.as_deref(), Some("reasoning"));
    assert_eq!(m.response_model.as_deref(), Some("qwen/qwen3-32b"));
    assert_eq!(m.response_id.as_deref(), Some("gen-7"));
}

#[tokio::test]
async fn reasoning_text_field_is_read_too() {
    let server = MockServer::start().await;
    let stream = ChatStream::new("c", "llama-3.3-70b-versatile")
        .reasoning("reasoning_text", "Plan.")
        .finish("stop")
        .done();
    server.push(stream.response());
    let events = run(&groq(&server.url())).await;
    let ContentBlock::Thinking(t) = &final_message(&events).content[0] else {
        panic!()
    };
    assert_eq!(
        (t.thinking.as_str(), t.thinking_signature.as_deref()),
        ("Plan.", Some("reasoning_text"))
    );
}

#[tokio::test]
async fn several_tool_calls_with_interleaved_split_arguments() {
    let server = MockServer::start().await;
    let stream = ChatStream::new("chatcmpl-M", "llama-3.3-70b-versatile")
        .role()
        .text("Reading both.")
        .tool_call_start(0, "call_a", "read")
        .tool_args(0, "{\"pa")
        .tool_call_start(1, "call_b", "read")
        .tool_args(1, "{\"path\": \"b.rs\"")
        .tool_args(0, "th\": \"a.rs\"}")
        .tool_args(1, "}")
        .finish("tool_calls")
        .usage(100, 20, None)
        .done();
    server.push(stream.response());
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,Reading both.)",
            "toolcall_start(1,call_a,read)",
            "toolcall_delta(1,)",
            "toolcall_delta(1,{\"pa)",
            "toolcall_start(2,call_b,read)",
            "toolcall_delta(2,)",
            "toolcall_delta(2,{\"path\": \"b.rs\")",
            "toolcall_delta(1,th\": \"a.rs\"})",
            "toolcall_delta(2,})",
            "text_end(0,Reading both.)",
            "toolcall_end(1,call_a,read,{\"path\":\"a.rs\"})",
            "toolcall_end(2,call_b,read,{\"path\":\"b.rs\"})",
            "done(toolUse)"
        ]
    );
}

#[tokio::test]
async fn partial_message_sees_best_effort_arguments_while_streaming() {
    let server = MockServer::start().await;
    let stream = ChatStream::new("c", "m")
        .tool_call_start(0, "call_a", "read")
        .tool_args(0, "{\"path\": \"src/ma")
        .tool_args(0, "in.rs\"}")
        .finish("tool_calls")
        .done();
    server.push(stream.response());
    let mut s = rho_ai::stream(&groq(&server.url()), &show_main_context(), options("k"))
        .expect("stream starts");
    let mut partial = rho_ai::PartialMessage::new();
    let mut seen = Vec::new();
    while let Some(e) = s.next().await {
        partial.apply(&e);
        if let AssistantMessageEvent::ToolCallDelta { .. } = e {
            let m = partial.message().expect("started");
            let rho_ai::ContentBlock::ToolCall(tc) = &m.content[0] else {
                panic!()
            };
            seen.push(tc.arguments.clone());
        }
    }
    assert_eq!(
        seen,
        [
            json!({}),
            json!({"path": "src/ma"}),
            json!({"path": "src/main.rs"})
        ]
    );
}

#[tokio::test]
async fn usage_subtracts_cache_reads_and_writes_from_input() {
    let server = MockServer::start().await;
    let usage = json!({"id":"c","object":"chat.completion.chunk","model":"llama-3.3-70b-versatile","choices":[],
        "usage":{"prompt_tokens":1000,"completion_tokens":50,"total_tokens":1050,
                 "prompt_tokens_details":{"cached_tokens":600,"cache_write_tokens":100}}});
    let stream = ChatStream::new("c", "llama-3.3-70b-versatile")
        .text("ok")
        .finish("stop")
        .data(&usage.to_string())
        .done();
    server.push(stream.response());
    let mut model = groq(&server.url());
    model.cost = rho_ai::ModelCost {
        input: 3.0,
        output: 15.0,
        cache_read: 0.3,
        cache_write: 3.75,
    };
    let events = run(&model).await;
    let u = final_message(&events).usage;
    assert_eq!(
        (
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.total_tokens
        ),
        (400, 50, 500, 100, 1050)
    );
    let expected = (400.0 * 3.0 + 50.0 * 15.0 + 500.0 * 0.3 + 100.0 * 3.75) / 1e6;
    assert!(
        close(u.cost.total, expected),
        "{} vs {expected}",
        u.cost.total
    );
    assert!(close(u.cost.cache_write, 100.0 * 3.75 / 1e6));
}

#[tokio::test]
async fn deepseek_cache_hit_tokens_and_moonshot_choice_usage() {
    let server = MockServer::start().await;
    let ds = json!({"id":"c","choices":[],"usage":{"prompt_tokens":300,"completion_tokens":7,"prompt_cache_hit_tokens":256,"prompt_cache_miss_tokens":44}});
    server.push(
        ChatStream::new("c", "m")
            .text("a")
            .finish("stop")
            .data(&ds.to_string())
            .done()
            .response(),
    );
    let moon = json!({"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop","usage":{"prompt_tokens":90,"completion_tokens":4,"cached_tokens":0}}]});
    server.push(
        ChatStream::new("c", "m")
            .text("b")
            .data(&moon.to_string())
            .done()
            .response(),
    );
    let model = groq(&server.url());
    let u = final_message(&run(&model).await).usage;
    assert_eq!((u.input, u.cache_read, u.output), (44, 256, 7));
    let u = final_message(&run(&model).await).usage;
    assert_eq!((u.input, u.cache_read, u.output), (90, 0, 4));
}

#[tokio::test]
async fn http_errors_give_one_error_event_with_the_exact_message() {
    let cases = [
        (openai_chat::error(429, openai_chat::ERROR_RATE_LIMIT), "429 Rate limit reached for gpt-4o in organization org-test on tokens per min (TPM): Limit 30000, Used 29500, Requested 1200. Please try again in 1.4s. Visit https://platform.openai.com/account/rate-limits to learn more."),
        (openai_chat::error(500, openai_chat::ERROR_SERVER), "500 The server had an error while processing your request. Sorry about that!"),
        (openai_chat::error(401, openai_chat::ERROR_INVALID_KEY), "401 Incorrect API key provided: sk-bad. You can find your API key at https://platform.openai.com/account/api-keys."),
        (openai_chat::error(400, openai_chat::ERROR_CONTEXT_LENGTH), "400 This model's maximum context length is 128000 tokens. However, your messages resulted in 140563 tokens. Please reduce the length of the messages."),
        (openai_chat::error(400, r#"{"error":{"message":"This model's maximum context length is 131072 tokens. However, you requested 140000 tokens.","type":"invalid_request_error"}}"#), "400 This model's maximum context length is 131072 tokens. However, you requested 140000 tokens."),
        (openai_chat::empty_error(413), "413 status code (no body)"),
        (openai_chat::empty_error(400), "400 status code (no body)"),
        (openai_chat::html_error(502, openai_chat::ERROR_HTML_BAD_GATEWAY), "502 <html><head><title>502 Bad Gateway</title></head><body><center><h1>502 Bad Gateway</h1></center><hr><center>nginx</center></body></html>"),
    ];
    for (response, message) in cases {
        let server = MockServer::start().await;
        server.push(response);
        let events = run(&groq(&server.url())).await;
        assert_eq!(trace(&events), ["error(error)"], "{message}");
        let m = final_message(&events);
        assert_eq!(m.error_message.as_deref(), Some(message));
        assert_eq!(m.stop_reason, StopReason::Error);
        assert!(m.content.is_empty());
    }
}

#[tokio::test]
async fn invalid_json_chunk_fails_clearly_and_keeps_the_text() {
    let server = MockServer::start().await;
    let stream = ChatStream::new("c", "m")
        .text("Hel")
        .data("{\"id\":\"c\",\"choices\":[{\"delta\":{\"content\":\"lo")
        .text("never seen")
        .done();
    server.push(stream.response());
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,Hel)",
            "error(error)"
        ]
    );
    let m = final_message(&events);
    let msg = m.error_message.as_deref().expect("message");
    assert!(
        msg.starts_with("Invalid JSON in Chat Completions stream chunk ("),
        "{msg}"
    );
    assert!(msg.contains("the server sent: {\"id\":\"c\""), "{msg}");
    assert_eq!(m.text(), "Hel");
}

#[tokio::test]
async fn error_object_inside_the_stream_fails_with_its_message() {
    let server = MockServer::start().await;
    let stream = ChatStream::new("gen-1", "m")
        .text("Partial")
        .data(openai_chat::STREAM_ERROR_CHUNK)
        .done();
    server.push(stream.response());
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events).last().map(String::as_str),
        Some("error(error)")
    );
    let m = final_message(&events);
    assert_eq!(
        m.error_message.as_deref(),
        Some("Upstream provider returned an error: overloaded")
    );
    assert_eq!(m.text(), "Partial");
}

#[tokio::test]
async fn connection_dropped_mid_stream_is_an_error_that_keeps_content() {
    let server = MockServer::start().await;
    let stream = ChatStream::new("c", "m")
        .text("Hello")
        .tool_call_start(0, "call_a", "read")
        .tool_args(0, "{\"path\": \"a");
    server.push(stream.response_then_drop());
    let events = run(&groq(&server.url())).await;
    let t = trace(&events);
    assert_eq!(t.last().map(String::as_str), Some("error(error)"));
    assert!(
        !t.iter()
            .any(|e| e.starts_with("text_end") || e.starts_with("toolcall_end")),
        "{t:?}"
    );
    let m = final_message(&events);
    let msg = m.error_message.as_deref().expect("message");
    assert!(msg.starts_with("Connection lost while streaming"), "{msg}");
    assert_eq!(m.text(), "Hello");
    assert!(matches!(&m.content[1], ContentBlock::ToolCall(tc) if tc.id == "call_a"));
}

#[tokio::test]
async fn stream_ending_without_finish_reason_or_done_ends_as_stop() {
    // A complete body without [DONE] and without finish_reason: null maps to `stop`, every
    // block is closed, nothing is lost.
    let server = MockServer::start().await;
    server.push(ChatStream::new("c", "m").text("Hi").response());
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,Hi)",
            "text_end(0,Hi)",
            "done(stop)"
        ]
    );

    // finish_reason without [DONE] is honoured.
    let server = MockServer::start().await;
    server.push(
        ChatStream::new("c", "m")
            .text("Hi")
            .finish("length")
            .response(),
    );
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events).last().map(String::as_str),
        Some("done(length)")
    );
    assert_eq!(final_message(&events).stop_reason, StopReason::Length);
}

#[tokio::test]
async fn unknown_finish_reason_closes_blocks_then_fails() {
    let server = MockServer::start().await;
    server.push(
        ChatStream::new("c", "m")
            .text("Some")
            .finish("content_filter")
            .done()
            .response(),
    );
    let events = run(&groq(&server.url())).await;
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,Some)",
            "text_end(0,Some)",
            "error(error)"
        ]
    );
    let m = final_message(&events);
    assert_eq!(
        m.error_message.as_deref(),
        Some("Provider finish_reason: content_filter")
    );
    assert_eq!(m.text(), "Some");
}

#[tokio::test]
async fn events_after_done_marker_are_ignored() {
    let server = MockServer::start().await;
    server.push(
        ChatStream::new("c", "m")
            .text("A")
            .finish("stop")
            .done()
            .text("B")
            .response(),
    );
    let events = run(&groq(&server.url())).await;
    assert_eq!(final_message(&events).text(), "A");
}

#[tokio::test]
async fn abort_mid_stream_ends_aborted_and_closes_the_connection() {
    let server = MockServer::start().await;
    server.push(
        ChatStream::new("c", "m")
            .role()
            .text("Partial answer")
            .response_then_hang(),
    );
    let opts = options("k");
    let cancel = opts.cancel.clone();
    let mut s = rho_ai::stream(&groq(&server.url()), &show_main_context(), opts).expect("starts");
    let mut events = Vec::new();
    let first_text = async {
        while let Some(e) = s.next().await {
            let is_delta = matches!(e, AssistantMessageEvent::TextDelta { .. });
            events.push(e);
            if is_delta {
                return;
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(10), first_text)
        .await
        .expect("text arrives");
    cancel.cancel();
    events.extend(collect(s).await);
    assert_eq!(
        trace(&events),
        [
            "start",
            "text_start(0)",
            "text_delta(0,Partial answer)",
            "error(aborted)"
        ]
    );
    let m = final_message(&events);
    assert_eq!(m.stop_reason, StopReason::Aborted);
    assert_eq!(m.text(), "Partial answer");
    tokio::time::timeout(Duration::from_secs(5), server.wait_for_closed(1))
        .await
        .expect("connection closed promptly after abort");
}

#[tokio::test]
async fn openrouter_keepalives_and_encrypted_reasoning_are_kept_for_replay() {
    let server = MockServer::start().await;
    let detail = json!({"type": "reasoning.encrypted", "id": "call_or_1", "data": "ZW5jcnlwdGVk", "format": "google-gemini-v1", "index": 0});
    let stream = ChatStream::new("gen-42", "google/gemini-2.5-pro")
        .comment("OPENROUTER PROCESSING")
        .reasoning("reasoning", "Look first.")
        .comment("OPENROUTER PROCESSING")
        .tool_call_start(0, "call_or_1", "read")
        .tool_args(0, "{\"path\":\"a.rs\"}")
        .delta(json!({"reasoning_details": [detail]}), None)
        .finish("tool_calls")
        .done();
    server.push(stream.response());
    let model = model(json!({
        "id": "google/gemini-2.5-pro", "name": "Gemini 2.5 Pro", "api": "openai-completions",
        "provider": "openrouter", "baseUrl": format!("{}/api/v1/", server.url()), "reasoning": true
    }));
    let events = run(&model).await;
    assert_eq!(server.requests()[0].path, "/api/v1/chat/completions");
    let m = final_message(&events).clone();
    assert_eq!(m.stop_reason, StopReason::ToolUse);
    let ContentBlock::ToolCall(tc) = &m.content[1] else {
        panic!("tool call second")
    };
    let sig: serde_json::Value =
        serde_json::from_str(tc.thought_signature.as_deref().expect("signature")).expect("json");
    assert_eq!(sig, detail);

    let mut ctx = show_main_context();
    ctx.messages.push(rho_ai::Message::Assistant(m));
    let req = rho_ai::providers::openai_completions::build_request(&model, &ctx, &options("k"));
    let replay = &req.body["messages"][2];
    assert_eq!(replay["reasoning"], "Look first.");
    assert_eq!(replay["reasoning_details"], json!([detail]));
}

#[tokio::test]
async fn tool_deltas_without_index_match_by_id_and_a_reused_index_with_a_new_id_is_a_new_call() {
    let server = MockServer::start().await;
    let stream = ChatStream::new("c", "m")
        .delta(json!({"tool_calls": [{"index": 0, "id": "call_x", "type": "function", "function": {"name": "read", "arguments": "{\"path\":"}}]}), None)
        .delta(json!({"tool_calls": [{"id": "call_x", "function": {"arguments": "\"x.rs\"}"}}]}), None)
        .delta(json!({"tool_calls": [{"index": 0, "id": "call_y", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"y.rs\"}"}}]}), None)
        .finish("tool_calls")
        .done();
    server.push(stream.response());
    let events = run(&groq(&server.url())).await;
    let calls: Vec<_> = final_message(&events)
        .tool_calls()
        .map(|tc| (tc.id.clone(), tc.arguments.clone()))
        .collect();
    assert_eq!(
        calls,
        [
            ("call_x".to_string(), json!({"path": "x.rs"})),
            ("call_y".to_string(), json!({"path": "y.rs"}))
        ]
    );
}

#[tokio::test]
async fn a_body_without_any_data_chunk_is_a_clear_error() {
    let server = MockServer::start().await;
    server.push(openai_chat::non_streaming_completion());
    let events = run(&groq(&server.url())).await;
    assert_eq!(trace(&events), ["start", "error(error)"]);
    let m = final_message(&events);
    assert_eq!(
        m.error_message.as_deref(),
        Some(rho_ai::providers::openai_completions::parse::NO_DATA)
    );
}
