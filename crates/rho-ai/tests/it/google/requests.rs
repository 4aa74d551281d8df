//! Request bodies and headers, snapshot-tested (no server needed).

use super::*;

fn png() -> ImageContent {
    ImageContent {
        data: "iVBORw0KGgo=".into(),
        mime_type: "image/png".into(),
    }
}

fn tool_result(id: &str, content: Vec<ContentBlock>, is_error: bool) -> Message {
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
}

/// A replayed turn from `from` (provider, model id) followed by two tool results.
fn history(target: &Model, from_model: &str) -> Context {
    let mut reply = AssistantMessage::empty(&target.api, &target.provider, from_model);
    reply.stop_reason = StopReason::ToolUse;
    reply.content = vec![
        ContentBlock::Thinking(ThinkingContent {
            thinking: "Look at the image.".into(),
            thinking_signature: Some("dGhpbms=".into()),
            redacted: None,
        }),
        ContentBlock::Text(TextContent {
            text: "Reading both.".into(),
            text_signature: Some("not base64!".into()),
        }),
        ContentBlock::Text(TextContent {
            text: "   ".into(),
            text_signature: None,
        }),
        ContentBlock::ToolCall(ToolCall {
            namespace: None,
            id: "read_1|x".into(),
            name: "read".into(),
            arguments: json!({"path": "a.png"}),
            thought_signature: Some("c2lnLWdlbWluaQ==".into()),
        }),
        ContentBlock::ToolCall(ToolCall {
            namespace: None,
            id: "read_2".into(),
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
    Context {
        system_prompt: Some("You are a coding agent.".into()),
        messages: vec![
            Message::User(user),
            Message::Assistant(reply),
            tool_result("read_1|x", vec![ContentBlock::Image(png())], false),
            tool_result("read_2", vec![ContentBlock::text("no such file")], true),
            Message::User(UserMessage {
                content: UserContent::Text("thanks".into()),
                timestamp: 3,
            }),
        ],
        tools: vec![Tool {
            name: "read".into(),
            description: "Read a file".into(),
            parameters: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
    }
}

#[test]
fn gemini3_request_nests_tool_images_and_replays_signatures() {
    let m = model_named(
        "https://generativelanguage.googleapis.com",
        "gemini-3-pro-preview",
    );
    let mut opts = options();
    opts.max_tokens = Some(8192);
    opts.temperature = Some(0.5);
    opts.reasoning = Some(ThinkingLevel::Medium);
    let req = build_request(&m, &history(&m, &m.id), &opts);
    assert_eq!(
        req.url,
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-3-pro-preview:streamGenerateContent?alt=sse"
    );
    insta::assert_json_snapshot!("gemini3_history_body", req.body);
}

#[test]
fn older_models_get_tool_images_as_a_user_turn_and_foreign_signatures_drop() {
    let m = model("https://generativelanguage.googleapis.com");
    let req = build_request(&m, &history(&m, "gemini-2.0-flash"), &options());
    insta::assert_json_snapshot!("gemini25_foreign_history_body", req.body);
}

#[test]
fn claude_via_google_gets_normalised_call_ids() {
    let mut m = model("https://x.test");
    m.id = "claude-sonnet-4-5".into();
    m.reasoning = false;
    m.input = vec![InputKind::Text];
    let body = build_request(&m, &history(&m, "claude-sonnet-4-5"), &options()).body;
    let contents = body["contents"].as_array().expect("contents");
    assert_eq!(contents[1]["parts"][2]["functionCall"]["id"], "read_1_x");
    assert_eq!(
        contents[2]["parts"][0]["functionResponse"]["id"],
        "read_1_x"
    );
    assert_eq!(
        contents[2]["parts"][0]["functionResponse"]["response"]["output"],
        "(tool image omitted: model does not support images)"
    );
    assert!(body["generationConfig"].get("thinkingConfig").is_none());
    // Text-only model: the user image becomes the transform's notice (providers spec §4).
    assert_eq!(
        contents[0]["parts"],
        json!([{"text": "What is this?"}, {"text": "(image omitted: model does not support images)"}])
    );
}

#[test]
fn thinking_configs_per_family_and_level() {
    let levels = [
        None,
        Some(ThinkingLevel::Minimal),
        Some(ThinkingLevel::Low),
        Some(ThinkingLevel::Medium),
        Some(ThinkingLevel::High),
        Some(ThinkingLevel::Xhigh),
    ];
    let ids = [
        "gemini-3-pro-preview",
        "gemini-3.1-flash-preview",
        "gemma-4-27b-it",
        "gemini-2.5-pro",
        "gemini-2.5-flash-lite",
        "gemini-2.5-flash",
        "gemini-2.0-flash-thinking",
    ];
    let mut table = serde_json::Map::new();
    for id in ids {
        let m = model_named("https://x.test", id);
        let row: Vec<_> = levels
            .iter()
            .map(|level| {
                let mut opts = options();
                opts.reasoning = *level;
                let body = build_request(&m, &ask("hi"), &opts).body;
                body["generationConfig"]["thinkingConfig"].clone()
            })
            .collect();
        table.insert(id.to_string(), json!(row));
    }
    insta::assert_json_snapshot!("gemini_thinking_configs", table);
}

#[test]
fn thinking_budgets_override_and_levels_clamp() {
    let mut m = model("https://x.test");
    let mut map = std::collections::BTreeMap::new();
    map.insert("minimal".to_string(), None);
    m.thinking_level_map = Some(map);
    let mut opts = options();
    opts.reasoning = Some(ThinkingLevel::Minimal);
    opts.thinking_budgets = ThinkingBudgets {
        low: Some(1500),
        ..Default::default()
    };
    let body = build_request(&m, &ask("hi"), &opts).body;
    // minimal is unsupported → clamps up to low → the caller's low budget.
    assert_eq!(
        body["generationConfig"]["thinkingConfig"],
        json!({"includeThoughts": true, "thinkingBudget": 1500})
    );
    m.reasoning = false;
    let body = build_request(&m, &ask("hi"), &opts).body;
    assert!(body["generationConfig"].get("thinkingConfig").is_none());
}

#[test]
fn headers_merge_model_then_options() {
    let mut m = model("https://x.test");
    let mut h = std::collections::BTreeMap::new();
    h.insert("x-team".to_string(), "model".to_string());
    m.headers = Some(h);
    let mut opts = options();
    opts.headers.insert("x-team".into(), "user".into());
    let headers = build_request(&m, &ask("hi"), &opts).headers;
    assert_eq!(
        headers[0],
        ("x-goog-api-key".to_string(), "AIza-test".to_string())
    );
    let team = headers
        .iter()
        .rev()
        .find(|(k, _)| k == "x-team")
        .map(|(_, v)| v.as_str());
    assert_eq!(team, Some("user"));
}
