//! What goes on the wire (spec §3.1): URL, headers and body, snapshot-tested. Options are
//! resolved the way `rho_ai::stream` resolves them, so `max_tokens` is what a real call sends.

use rho_ai::content::{ImageContent, TextContent, ThinkingContent};
use rho_ai::provider::{resolve_options, HttpRequest};
use rho_ai::providers::anthropic::build_request;
use rho_ai::{
    AssistantMessage, CacheRetention, ContentBlock, Context, Message, Model, ModelCompat,
    StopReason, StreamOptions, ThinkingLevel, ToolCall, ToolResultMessage, UserContent,
    UserMessage,
};
use serde_json::{json, Value};

use super::common::{a1_context, a1_request_body, catalog_model, options, read_tool};

const BASE: &str = "https://api.anthropic.com";

fn build(model: &Model, context: &Context, opts: StreamOptions) -> HttpRequest {
    let opts = resolve_options(model, context, opts).expect("key given");
    build_request(model, context, &opts)
}

fn with_level(level: ThinkingLevel) -> StreamOptions {
    StreamOptions {
        reasoning: Some(level),
        ..options()
    }
}

/// URL, headers and body as one JSON value for snapshots.
fn wire(req: &HttpRequest) -> Value {
    json!({"url": req.url, "headers": req.headers, "body": req.body})
}

fn header<'a>(req: &'a HttpRequest, name: &str) -> Option<&'a str> {
    req.headers
        .iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

#[test]
fn a1_request_matches_the_appendix() {
    let req = build(
        &catalog_model(BASE, "claude-sonnet-4-5"),
        &a1_context(),
        options(),
    );
    assert_eq!(req.body, a1_request_body());
    insta::assert_json_snapshot!(wire(&req));
}

#[test]
fn budget_thinking_adds_the_budget_to_max_tokens_and_drops_temperature() {
    let mut opts = with_level(ThinkingLevel::Medium);
    opts.temperature = Some(0.5);
    let req = build(
        &catalog_model(BASE, "claude-sonnet-4-5"),
        &a1_context(),
        opts,
    );
    // pi 1.6: the model's whole cap (64,000), the budget inside it.
    assert_eq!(req.body["max_tokens"], 64000);
    assert!(req.body.get("temperature").is_none());
    insta::assert_json_snapshot!(req.body["thinking"], @r###"
    {
      "type": "enabled",
      "budget_tokens": 8192,
      "display": "summarized"
    }
    "###);
}

#[test]
fn budget_is_cut_when_the_model_cap_leaves_no_room() {
    let mut model = catalog_model(BASE, "claude-sonnet-4-5");
    model.max_tokens = 8192;
    let req = build(&model, &a1_context(), with_level(ThinkingLevel::Xhigh));
    // min(8192 + 16384, 8192) = 8192 <= 16384, so the budget becomes 8192 - 1024.
    assert_eq!(req.body["max_tokens"], 8192);
    assert_eq!(req.body["thinking"]["budget_tokens"], 7168);
    let mut opts = with_level(ThinkingLevel::Low);
    opts.thinking_budgets.low = Some(3000);
    let req = build(
        &catalog_model(BASE, "claude-sonnet-4-5"),
        &a1_context(),
        opts,
    );
    assert_eq!(req.body["thinking"]["budget_tokens"], 3000);
    assert_eq!(req.body["max_tokens"], 64000);
}

#[test]
fn adaptive_models_send_effort_and_no_interleaved_beta() {
    let opus = catalog_model(BASE, "claude-opus-4-6");
    let req = build(&opus, &a1_context(), with_level(ThinkingLevel::Xhigh));
    assert_eq!(header(&req, "anthropic-beta"), None);
    assert_eq!(req.body["max_tokens"], 128000);
    insta::assert_json_snapshot!(
        json!({"thinking": req.body["thinking"], "output_config": req.body["output_config"]}),
        @r###"
    {
      "thinking": {
        "type": "adaptive",
        "display": "summarized"
      },
      "output_config": {
        "effort": "max"
      }
    }
    "###
    );
    let sonnet = catalog_model(BASE, "claude-sonnet-4-6");
    let cases = [
        (ThinkingLevel::Minimal, "low"),
        (ThinkingLevel::Low, "low"),
        (ThinkingLevel::Medium, "medium"),
        (ThinkingLevel::High, "high"),
        (ThinkingLevel::Xhigh, "high"),
    ];
    for (level, effort) in cases {
        let req = build(&sonnet, &a1_context(), with_level(level));
        assert_eq!(req.body["output_config"]["effort"], effort, "{level:?}");
    }
    let opus7 = catalog_model(BASE, "claude-opus-4-7");
    let req = build(&opus7, &a1_context(), with_level(ThinkingLevel::Xhigh));
    assert_eq!(req.body["output_config"]["effort"], "xhigh");
}

#[test]
fn thinking_off_is_disabled_for_reasoning_models_and_absent_otherwise() {
    let mut opts = with_level(ThinkingLevel::Off);
    opts.temperature = Some(0.2);
    let req = build(
        &catalog_model(BASE, "claude-sonnet-4-5"),
        &a1_context(),
        opts.clone(),
    );
    assert_eq!(req.body["thinking"], json!({"type": "disabled"}));
    assert_eq!(req.body["temperature"], 0.2);
    let plain = catalog_model(BASE, "claude-3-5-haiku-latest");
    opts.reasoning = Some(ThinkingLevel::High);
    let req = build(&plain, &a1_context(), opts);
    assert!(req.body.get("thinking").is_none());
    assert!(req.body.get("output_config").is_none());
    assert_eq!(req.body["temperature"], 0.2);
    assert_eq!(req.body["max_tokens"], 8192);
}

fn assistant(content: Vec<ContentBlock>, stop: StopReason) -> Message {
    let mut m = AssistantMessage::empty("anthropic-messages", "anthropic", "claude-sonnet-4-5");
    m.content = content;
    m.stop_reason = stop;
    Message::Assistant(m)
}

fn thinking(text: &str, signature: Option<&str>, redacted: Option<bool>) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: signature.map(str::to_string),
        redacted,
    })
}

fn image(data: &str) -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: data.into(),
        mime_type: "image/png".into(),
    })
}

fn result(id: &str, content: Vec<ContentBlock>, is_error: bool) -> Message {
    Message::ToolResult(ToolResultMessage {
        duration_ms: None,
        usage: None,
        nested_calls: None,
        tool_call_id: id.into(),
        tool_name: "read".into(),
        content,
        details: Some(json!({"never": "sent"})),
        is_error,
        timestamp: 0,
    })
}

fn user(content: UserContent) -> Message {
    Message::User(UserMessage {
        content,
        timestamp: 0,
    })
}

fn history() -> Vec<Message> {
    let call = |id: &str, path: &str| {
        ContentBlock::ToolCall(ToolCall {
            namespace: None,
            id: id.into(),
            name: "read".into(),
            arguments: json!({"path": path}),
            thought_signature: None,
        })
    };
    vec![
        user(UserContent::Text("   ".into())),
        user(UserContent::Blocks(vec![
            ContentBlock::text("What is in this screenshot?"),
            ContentBlock::text(" "),
            image("iVBORw0KGgo="),
        ])),
        assistant(
            vec![
                thinking("Signed reasoning.", Some("c2ln"), None),
                thinking("Unsigned reasoning.", Some(""), None),
                thinking("", Some("c2lnMg=="), None),
                thinking("[Reasoning redacted]", Some("RU5D"), Some(true)),
                ContentBlock::Text(TextContent {
                    text: "Reading both.".into(),
                    text_signature: None,
                }),
                ContentBlock::text("  "),
                call("toolu_01|A", "a.rs"),
                call("toolu_01B", "b.png"),
            ],
            StopReason::ToolUse,
        ),
        result(
            "toolu_01|A",
            vec![ContentBlock::text("line 1"), ContentBlock::text("line 2")],
            false,
        ),
        result("toolu_01B", vec![image("R0lGOD==")], true),
        user(UserContent::Text("Thanks".into())),
    ]
}

#[test]
fn history_conversion_users_assistants_tool_results_and_images() {
    let context = Context {
        system_prompt: None,
        messages: history(),
        tools: vec![],
    };
    let req = build(
        &catalog_model(BASE, "claude-sonnet-4-5"),
        &context,
        options(),
    );
    assert!(req.body.get("system").is_none());
    assert!(req.body.get("tools").is_none());
    insta::assert_json_snapshot!(req.body["messages"]);
}

#[test]
fn trailing_tool_results_carry_the_cache_marker() {
    let mut messages = history();
    messages.pop();
    let context = Context {
        system_prompt: Some("sys".into()),
        messages,
        tools: vec![],
    };
    let req = build(
        &catalog_model(BASE, "claude-sonnet-4-5"),
        &context,
        options(),
    );
    let last = &req.body["messages"]
        .as_array()
        .expect("messages")
        .last()
        .cloned();
    insta::assert_json_snapshot!(last, @r###"
    {
      "role": "user",
      "content": [
        {
          "type": "tool_result",
          "tool_use_id": "toolu_01_A",
          "content": "line 1\nline 2",
          "is_error": false
        },
        {
          "type": "tool_result",
          "tool_use_id": "toolu_01B",
          "content": [
            {
              "type": "text",
              "text": "(see attached image)"
            },
            {
              "type": "image",
              "source": {
                "type": "base64",
                "media_type": "image/png",
                "data": "R0lGOD=="
              }
            }
          ],
          "is_error": true,
          "cache_control": {
            "type": "ephemeral"
          }
        }
      ]
    }
    "###);
}

#[test]
fn cache_retention_long_short_and_none() {
    let model = catalog_model(BASE, "claude-sonnet-4-5");
    let long = StreamOptions {
        cache_retention: CacheRetention::Long,
        ..options()
    };
    let req = build(&model, &a1_context(), long.clone());
    let ttl = json!({"type": "ephemeral", "ttl": "1h"});
    assert_eq!(req.body["system"][0]["cache_control"], ttl);
    assert_eq!(req.body["tools"][0]["cache_control"], ttl);
    assert_eq!(req.body["messages"][0]["content"][0]["cache_control"], ttl);

    let mut no_long = model.clone();
    no_long.compat = Some(ModelCompat {
        supports_long_cache_retention: Some(false),
        ..Default::default()
    });
    let req = build(&no_long, &a1_context(), long);
    assert_eq!(
        req.body["system"][0]["cache_control"],
        json!({"type": "ephemeral"})
    );

    let none = StreamOptions {
        cache_retention: CacheRetention::None,
        ..options()
    };
    let req = build(&model, &a1_context(), none);
    assert!(!req.body.to_string().contains("cache_control"));
    assert_eq!(
        req.body["messages"][0]["content"][0],
        json!({"type": "text", "text": "Show me src/main.rs"})
    );
}

#[test]
fn oauth_request_headers_and_body() {
    let mut context = a1_context();
    let mut todo = read_tool();
    todo.name = "todowrite".into();
    context.tools.push(todo);
    let opts = StreamOptions {
        api_key: Some("sk-ant-oat01-abc".into()),
        ..options()
    };
    let req = build(&catalog_model(BASE, "claude-sonnet-4-5"), &context, opts);
    insta::assert_json_snapshot!(wire(&req));
}

#[test]
fn copilot_bearer_dynamic_headers_and_fine_grained_beta() {
    let mut model = catalog_model(
        "https://api.individual.githubcopilot.com/",
        "claude-sonnet-4.5",
    );
    model.provider = "github-copilot".into();
    model.compat = Some(ModelCompat {
        supports_eager_tool_input_streaming: Some(false),
        ..Default::default()
    });
    model.headers = Some(
        [
            ("User-Agent", "GitHubCopilotChat/0.35.0"),
            ("Editor-Version", "vscode/1.107.0"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect(),
    );
    let mut context = a1_context();
    context.messages = history();
    let mut opts = options();
    opts.headers
        .insert("Editor-Version".into(), "override/1".into());
    let req = build(&model, &context, opts);
    assert_eq!(
        req.url,
        "https://api.individual.githubcopilot.com/v1/messages"
    );
    assert!(req.body["tools"][0].get("eager_input_streaming").is_none());
    insta::assert_json_snapshot!(req.headers, @r###"
    [
      [
        "accept",
        "application/json"
      ],
      [
        "anthropic-version",
        "2023-06-01"
      ],
      [
        "anthropic-dangerous-direct-browser-access",
        "true"
      ],
      [
        "authorization",
        "Bearer sk-ant-api03-test"
      ],
      [
        "anthropic-beta",
        "fine-grained-tool-streaming-2025-05-14,interleaved-thinking-2025-05-14"
      ],
      [
        "editor-version",
        "override/1"
      ],
      [
        "user-agent",
        "GitHubCopilotChat/0.35.0"
      ],
      [
        "x-initiator",
        "user"
      ],
      [
        "openai-intent",
        "conversation-edits"
      ],
      [
        "copilot-vision-request",
        "true"
      ]
    ]
    "###);
}

#[test]
fn cloudflare_gateway_uses_its_own_auth_header() {
    let mut model = catalog_model(BASE, "claude-sonnet-4-5");
    model.provider = "cloudflare-ai-gateway".into();
    let req = build(&model, &a1_context(), options());
    assert_eq!(
        header(&req, "cf-aig-authorization"),
        Some("Bearer sk-ant-api03-test")
    );
    assert_eq!(header(&req, "x-api-key"), None);
    assert_eq!(header(&req, "authorization"), None);
}
