//! Request bodies and headers, snapshot-tested (no server needed).

use super::*;

fn request(model: &Model, context: &Context, opts: &StreamOptions) -> HttpRequest {
    build_request(model, context, opts)
}

fn read_tool() -> Tool {
    Tool {
        name: "read".into(),
        description: "Read a file".into(),
        parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}),
    }
}

fn png() -> ImageContent {
    ImageContent {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
    }
}

/// A replayed turn: user with image, assistant with reasoning, text and a call, then results.
fn history(m: &Model) -> Context {
    let mut reply = rho_ai::AssistantMessage::empty(&m.api, &m.provider, &m.id);
    reply.stop_reason = StopReason::ToolUse;
    reply.content = vec![
        ContentBlock::Thinking(rho_ai::ThinkingContent {
            thinking: "Look first.".into(),
            thinking_signature: Some(
                r#"{"id":"rs_9","type":"reasoning","encrypted_content":"ZW5j","summary":[{"type":"summary_text","text":"Look first."}]}"#.into(),
            ),
            redacted: None,
        }),
        ContentBlock::Text(rho_ai::TextContent {
            text: "Reading.".into(),
            text_signature: Some(r#"{"v":1,"id":"msg_9","phase":"commentary"}"#.into()),
        }),
        ContentBlock::ToolCall(ToolCall { namespace: None,
            id: "call_9|fc_9".into(),
            name: "read".into(),
            arguments: json!({"path": "a.png"}),
            thought_signature: None,
        }),
        ContentBlock::ToolCall(ToolCall { namespace: None,
            id: "call_10|fc_10".into(),
            name: "read".into(),
            arguments: json!({"path": "b.txt"}),
            thought_signature: None,
        }),
    ];
    let user = UserMessage {
        content: UserContent::Blocks(vec![
            ContentBlock::text("What is this?"),
            ContentBlock::Image(png()),
        ]),
        timestamp: 1,
    };
    let result = |id: &str, content: Vec<ContentBlock>, is_error: bool| {
        Message::ToolResult(ToolResultMessage {
            duration_ms: None,
            usage: None,
            nested_calls: None,
            tool_call_id: id.into(),
            tool_name: "read".into(),
            content,
            details: None,
            is_error,
            timestamp: 2,
        })
    };
    Context {
        system_prompt: Some("You are a coding agent.".into()),
        messages: vec![
            Message::User(user),
            Message::Assistant(reply),
            result("call_9|fc_9", vec![ContentBlock::Image(png())], false),
            result(
                "call_10|fc_10",
                vec![ContentBlock::text("line 1"), ContentBlock::text("line 2")],
                true,
            ),
            Message::User(UserMessage {
                content: UserContent::Text("thanks".into()),
                timestamp: 3,
            }),
        ],
        tools: vec![read_tool()],
    }
}

#[test]
fn request_with_history_tools_images_and_cache_key() {
    let m = model("https://api.openai.com");
    let mut opts = options();
    opts.session_id = Some("sess-42".into());
    opts.cache_retention = CacheRetention::Long;
    opts.max_tokens = Some(4096);
    opts.temperature = Some(0.2);
    opts.reasoning = Some(ThinkingLevel::Medium);
    let req = request(&m, &history(&m), &opts);
    assert_eq!(req.url, "https://api.openai.com/v1/responses");
    insta::assert_json_snapshot!("responses_history_body", req.body);
    insta::assert_json_snapshot!("responses_history_headers", req.headers);
}

#[test]
fn request_for_a_text_only_model_without_reasoning() {
    let mut m = model("https://example.test");
    m.reasoning = false;
    m.input = vec![InputKind::Text];
    let mut opts = options();
    opts.cache_retention = CacheRetention::None;
    opts.session_id = Some("sess-ignored".into());
    let req = request(&m, &history(&m), &opts);
    insta::assert_json_snapshot!("responses_text_only_body", req.body);
    assert!(req.headers.iter().all(|(k, _)| k != "session_id"));
}

#[test]
fn foreign_same_api_calls_lose_fc_ids() {
    let m = model("https://api.openai.com");
    let mut ctx = history(&m);
    if let Message::Assistant(a) = &mut ctx.messages[1] {
        a.model = "gpt-4.1".into();
    }
    let body = request(&m, &ctx, &options()).body;
    let calls: Vec<_> = body["input"]
        .as_array()
        .expect("input")
        .iter()
        .filter(|i| i["type"] == "function_call")
        .collect();
    assert_eq!(calls.len(), 2);
    assert!(calls.iter().all(|c| c.get("id").is_none()));
}

#[test]
fn reasoning_levels_clamp_and_off_values() {
    let ctx = ask("hi");
    let body = |m: &Model, level: Option<ThinkingLevel>| {
        let mut opts = options();
        opts.reasoning = level;
        request(m, &ctx, &opts).body
    };
    let mut m = model("https://x.test");
    let mut map = std::collections::BTreeMap::new();
    map.insert("minimal".to_string(), None);
    map.insert("xhigh".to_string(), Some("xhigh".to_string()));
    m.thinking_level_map = Some(map);
    let levels: Vec<_> = [
        Some(ThinkingLevel::Minimal),
        Some(ThinkingLevel::Low),
        Some(ThinkingLevel::High),
        Some(ThinkingLevel::Xhigh),
        Some(ThinkingLevel::Off),
        None,
    ]
    .into_iter()
    .map(|l| body(&m, l).get("reasoning").cloned())
    .collect();
    insta::assert_json_snapshot!("responses_reasoning_levels", levels);

    // Without an xhigh entry, xhigh clamps down to high; `off: null` sends nothing.
    let mut plain = model("https://x.test");
    assert_eq!(
        body(&plain, Some(ThinkingLevel::Xhigh))["reasoning"]["effort"],
        "high"
    );
    let mut map = std::collections::BTreeMap::new();
    map.insert("off".to_string(), None);
    plain.thinking_level_map = Some(map);
    let off = body(&plain, None);
    assert!(off.get("reasoning").is_none() && off.get("include").is_none());
    plain.reasoning = false;
    assert!(body(&plain, Some(ThinkingLevel::High))
        .get("reasoning")
        .is_none());
}

#[test]
fn session_header_can_be_disabled_and_user_headers_win() {
    let mut m = model("https://x.test");
    m.compat = Some(rho_ai::ModelCompat {
        send_session_id_header: Some(false),
        ..Default::default()
    });
    let mut h = std::collections::BTreeMap::new();
    h.insert("x-team".to_string(), "model".to_string());
    m.headers = Some(h);
    let mut opts = options();
    opts.session_id = Some("s".into());
    opts.headers.insert("x-team".into(), "user".into());
    let headers = request(&m, &ask("hi"), &opts).headers;
    assert!(headers.iter().all(|(k, _)| k != "session_id"));
    assert!(headers.contains(&("x-client-request-id".into(), "s".into())));
    let last_team = headers
        .iter()
        .rev()
        .find(|(k, _)| k == "x-team")
        .map(|(_, v)| v.as_str());
    assert_eq!(last_team, Some("user"));
}
