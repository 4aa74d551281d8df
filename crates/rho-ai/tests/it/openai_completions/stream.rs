//! Chat Completions calls over real HTTP against the mock server: replies, usage, errors,
//! broken streams and aborts.

use rho_ai::{AssistantMessageEvent, ContentBlock, StopReason};
use rho_testkit::openai_chat::{self, ChatStream};
use rho_testkit::MockServer;
use serde_json::json;

use super::common::*;

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
        ..Default::default()
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

/// pi 1.6's `promptCacheKeyMode`: `auto` sends the session as `prompt_cache_key` only to
/// api.openai.com (or with long retention), `enabled` to any server, `disabled` never.
#[tokio::test]
async fn prompt_cache_key_mode_decides_when_the_session_is_sent() {
    for (mode, sent) in [
        (None, false),
        (Some("enabled"), true),
        (Some("disabled"), false),
    ] {
        let server = MockServer::start().await;
        server.push(openai_chat::text_reply().response());
        let mut model = groq(&server.url());
        model.compat = Some(rho_ai::ModelCompat {
            prompt_cache_key_mode: mode.map(String::from),
            ..Default::default()
        });
        let mut opts = options("sk-test");
        opts.session_id = Some("sess-42".into());
        collect(rho_ai::stream(&model, &show_main_context(), opts).expect("stream starts")).await;
        let body = server.requests()[0].json();
        let expected = sent.then(|| json!("sess-42"));
        assert_eq!(body.get("prompt_cache_key").cloned(), expected, "{mode:?}");
    }
}
