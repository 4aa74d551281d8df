//! Request bodies and headers per server flavour (snapshot-tested wire bodies).

use std::collections::BTreeMap;

use rho_ai::providers::openai_completions::build_request;
use rho_ai::{
    CacheRetention, ContentBlock, Context, Model, StreamOptions, ThinkingContent, ThinkingLevel,
};
use serde_json::{json, Value};

use super::common::*;

/// A conversation produced by `model`: a reasoning + text + tool-call turn, its result, and a
/// follow-up question.
fn history(model: &Model) -> Context {
    let thinking = ContentBlock::Thinking(ThinkingContent {
        thinking: "The bug is probably in lib.rs.".into(),
        thinking_signature: Some("reasoning_content".into()),
        redacted: None,
    });
    Context {
        system_prompt: Some("You are a coding agent.".into()),
        messages: vec![
            user("Fix the bug in src/lib.rs"),
            assistant(
                model,
                vec![
                    thinking,
                    ContentBlock::text("Let me read it."),
                    call("call_1", "read", json!({"path": "src/lib.rs"})),
                ],
            ),
            result(
                "call_1",
                "read",
                vec![ContentBlock::text("fn add(a: i32) -> i32 { a }")],
            ),
            user("Now fix it"),
        ],
        tools: vec![read_tool()],
    }
}

fn body(model: &Model, context: &Context, options: &StreamOptions) -> Value {
    build_request(model, context, options).body
}

fn with_reasoning(level: ThinkingLevel) -> StreamOptions {
    StreamOptions {
        reasoning: Some(level),
        ..options("sk")
    }
}

fn openai(id: &str, reasoning: bool) -> Model {
    model(json!({
        "id": id, "name": id, "api": "openai-completions", "provider": "openai",
        "baseUrl": "https://api.openai.com/v1", "reasoning": reasoning, "input": ["text", "image"]
    }))
}

#[test]
fn plain_openai() {
    let m = openai("gpt-4o", false);
    let opts = StreamOptions {
        temperature: Some(0.2),
        session_id: Some("sess-1".into()),
        ..options("sk-openai")
    };
    let req = build_request(&m, &history(&m), &opts);
    assert_eq!(req.url, "https://api.openai.com/v1/chat/completions");
    assert_eq!(
        req.headers,
        [("authorization".to_string(), "Bearer sk-openai".to_string())]
    );
    insta::assert_json_snapshot!(req.body);
}

#[test]
fn reasoning_model_uses_developer_role_and_reasoning_effort() {
    let m = openai("o4-mini", true);
    let b = body(&m, &history(&m), &with_reasoning(ThinkingLevel::Medium));
    assert_eq!(b["messages"][0]["role"], "developer");
    assert_eq!(b["reasoning_effort"], "medium");
    insta::assert_json_snapshot!(b);
}

#[test]
fn ollama_local_server_compat() {
    let m = model(json!({
        "id": "qwen3:32b", "name": "Qwen3 32B (local)", "api": "openai-completions",
        "provider": "ollama", "baseUrl": "http://localhost:11434/v1", "reasoning": true,
        "compat": {"supportsDeveloperRole": false, "supportsReasoningEffort": false,
                   "supportsStore": false, "maxTokensField": "max_tokens"}
    }));
    let b = body(&m, &history(&m), &with_reasoning(ThinkingLevel::High));
    assert_eq!(b["messages"][0]["role"], "system");
    assert_eq!(b["max_tokens"], 32000);
    for absent in ["store", "reasoning_effort", "max_completion_tokens"] {
        assert!(b.get(absent).is_none(), "{absent}");
    }
    insta::assert_json_snapshot!(b);
}

fn openrouter_claude() -> Model {
    model(json!({
        "id": "anthropic/claude-sonnet-4.5", "name": "Claude Sonnet 4.5", "api": "openai-completions",
        "provider": "openrouter", "baseUrl": "https://openrouter.ai/api/v1", "reasoning": true,
        "input": ["text", "image"],
        "compat": {"openRouterRouting": {"order": ["anthropic", "amazon-bedrock"], "allow_fallbacks": false}}
    }))
}

#[test]
fn openrouter_thinking_cache_control_and_routing() {
    let m = openrouter_claude();
    let b = body(&m, &history(&m), &with_reasoning(ThinkingLevel::High));
    assert_eq!(b["reasoning"], json!({"effort": "high"}));
    assert_eq!(
        b["provider"]["order"],
        json!(["anthropic", "amazon-bedrock"])
    );
    let cc = json!({"type": "ephemeral"});
    assert_eq!(b["messages"][0]["content"][0]["cache_control"], cc);
    assert_eq!(b["tools"][0]["cache_control"], cc);
    let last = b["messages"]
        .as_array()
        .and_then(|m| m.last())
        .expect("messages");
    assert_eq!(last["content"][0]["cache_control"], cc);
    insta::assert_json_snapshot!(b);
}

#[test]
fn openrouter_long_retention_and_thinking_off() {
    let m = openrouter_claude();
    let opts = StreamOptions {
        cache_retention: CacheRetention::Long,
        session_id: Some("s-9".into()),
        ..options("k")
    };
    let b = body(&m, &history(&m), &opts);
    assert_eq!(b["reasoning"], json!({"effort": "none"}));
    assert_eq!(
        b["tools"][0]["cache_control"],
        json!({"type": "ephemeral", "ttl": "1h"})
    );
    assert_eq!(b["prompt_cache_key"], "s-9");
    assert_eq!(b["prompt_cache_retention"], "24h");
    let none = StreamOptions {
        cache_retention: CacheRetention::None,
        ..options("k")
    };
    let b = body(&m, &history(&m), &none);
    assert!(!b.to_string().contains("cache_control"));
    // A map that marks `off` unsupported sends no reasoning object at all.
    let mut m = openrouter_claude();
    m.thinking_level_map = Some(BTreeMap::from([("off".to_string(), None)]));
    assert!(body(&m, &history(&m), &options("k"))
        .get("reasoning")
        .is_none());
}

#[test]
fn deepseek_reasoning_content_on_every_assistant_message() {
    let m = deepseek("https://api.deepseek.com");
    let mut ctx = history(&m);
    ctx.messages
        .push(assistant(&m, vec![ContentBlock::text("Done: a + 1.")]));
    ctx.messages.push(user("Thanks"));
    let b = body(&m, &ctx, &options("sk-ds"));
    assert_eq!(b["thinking"], json!({"type": "disabled"}));
    assert_eq!(b["messages"][0]["role"], "system");
    assert!(b.get("store").is_none());
    assert_eq!(
        b["messages"][2]["reasoning_content"],
        "The bug is probably in lib.rs."
    );
    assert_eq!(b["messages"][5]["reasoning_content"], "");
    insta::assert_json_snapshot!(b);
}

#[test]
fn zai_enable_thinking_and_tool_stream() {
    let m = model(json!({
        "id": "glm-4.7", "name": "GLM-4.7", "api": "openai-completions", "provider": "zai",
        "baseUrl": "https://api.z.ai/api/coding/paas/v4", "reasoning": true,
        "compat": {"supportsDeveloperRole": false, "thinkingFormat": "zai", "zaiToolStream": true}
    }));
    let b = body(&m, &history(&m), &with_reasoning(ThinkingLevel::High));
    assert_eq!(b["enable_thinking"], true);
    assert_eq!(b["tool_stream"], true);
    assert!(b.get("reasoning_effort").is_none() && b.get("store").is_none());
    insta::assert_json_snapshot!(b);
    assert_eq!(
        body(&m, &history(&m), &options("k"))["enable_thinking"],
        false
    );
}

#[test]
fn qwen_chat_template_and_openai_off_map() {
    let mut m = openai("qwen3-coder", true);
    m.compat = Some(rho_ai::ModelCompat {
        thinking_format: Some("qwen-chat-template".into()),
        ..Default::default()
    });
    let b = body(
        &m,
        &show_main_context(),
        &with_reasoning(ThinkingLevel::Low),
    );
    assert_eq!(
        b["chat_template_kwargs"],
        json!({"enable_thinking": true, "preserve_thinking": true})
    );
    let b = body(&m, &show_main_context(), &options("k"));
    assert_eq!(
        b["chat_template_kwargs"],
        json!({"enable_thinking": false, "preserve_thinking": false})
    );

    let mut m = openai("gpt-5-mini", true);
    m.thinking_level_map = Some(BTreeMap::from([(
        "off".to_string(),
        Some("minimal".to_string()),
    )]));
    assert_eq!(
        body(&m, &show_main_context(), &options("k"))["reasoning_effort"],
        "minimal"
    );
    let m = openai("gpt-5-mini", true);
    assert!(body(&m, &show_main_context(), &options("k"))
        .get("reasoning_effort")
        .is_none());
}

fn images_context(model: &Model) -> Context {
    Context {
        system_prompt: None,
        messages: vec![
            user("Compare the screenshots"),
            assistant(
                model,
                vec![
                    call("call_a", "screenshot", json!({"page": 1})),
                    call("call_b", "screenshot", json!({"page": 2})),
                ],
            ),
            result(
                "call_a",
                "screenshot",
                vec![ContentBlock::text("Page 1:"), image()],
            ),
            result("call_b", "screenshot", vec![image()]),
            user("Which is better?"),
        ],
        tools: Vec::new(),
    }
}

#[test]
fn tool_results_with_images() {
    let m = openai("gpt-4o", false);
    let b = body(&m, &images_context(&m), &options("k"));
    assert_eq!(b["tools"], json!([]));
    assert_eq!(b["messages"][3]["content"], "(see attached image)");
    assert_eq!(
        b["messages"][4]["content"][0]["text"],
        "Attached image(s) from tool result:"
    );
    insta::assert_json_snapshot!(b);

    let mut text_only = m.clone();
    text_only.input = vec![rho_ai::InputKind::Text];
    let b = body(&text_only, &images_context(&text_only), &options("k"));
    assert!(!b.to_string().contains("image_url"));
}

#[test]
fn requires_assistant_after_tool_result() {
    let mut m = groq("https://api.groq.com/openai/v1");
    m.compat = Some(rho_ai::ModelCompat {
        requires_assistant_after_tool_result: Some(true),
        ..Default::default()
    });
    let mut ctx = history(&m);
    ctx.messages[1] = assistant(
        &m,
        vec![call("call_1", "read", json!({"path": "src/lib.rs"}))],
    );
    let b = body(&m, &ctx, &options("k"));
    assert_eq!(b["messages"][2]["content"], "");
    assert_eq!(
        b["messages"][4],
        json!({"role": "assistant", "content": "I have processed the tool results."})
    );
    insta::assert_json_snapshot!(b);
}

#[test]
fn requires_tool_result_name() {
    let mut m = groq("https://api.groq.com/openai/v1");
    m.compat = Some(rho_ai::ModelCompat {
        requires_tool_result_name: Some(true),
        ..Default::default()
    });
    let b = body(&m, &history(&m), &options("k"));
    assert_eq!(b["messages"][3]["name"], "read");
    insta::assert_json_snapshot!(b);
}

#[test]
fn thinking_as_text_and_blank_blocks() {
    let mut m = groq("https://api.groq.com/openai/v1");
    m.compat = Some(rho_ai::ModelCompat {
        requires_thinking_as_text: Some(true),
        ..Default::default()
    });
    let mut ctx = history(&m);
    ctx.messages.push(assistant(
        &m,
        vec![ContentBlock::text("  "), ContentBlock::text("")],
    ));
    let b = body(&m, &ctx, &options("k"));
    assert_eq!(
        b["messages"][2]["content"],
        json!([{"type": "text", "text": "The bug is probably in lib.rs."}, {"type": "text", "text": "Let me read it."}])
    );
    assert!(b["messages"][2].get("reasoning_content").is_none());
    // The blank assistant turn is skipped: the last message is still the user's.
    let msgs = b["messages"].as_array().expect("messages");
    assert_eq!(msgs.last().map(|m| m["role"].clone()), Some(json!("user")));
}

#[test]
fn header_precedence_and_special_auth() {
    let mut m = groq("https://api.groq.com/openai/v1");
    m.headers = Some(BTreeMap::from([
        ("X-Model".to_string(), "model".to_string()),
        ("X-Both".to_string(), "model".to_string()),
    ]));
    let mut opts = options("gsk");
    opts.headers = BTreeMap::from([("x-both".to_string(), "options".to_string())]);
    let h = build_request(&m, &show_main_context(), &opts).headers;
    assert_eq!(
        h,
        [
            ("authorization".to_string(), "Bearer gsk".to_string()),
            ("X-Model".to_string(), "model".to_string()),
            ("x-both".to_string(), "options".to_string()),
        ]
    );

    let gw = model(
        json!({"id": "gpt-4o", "name": "g", "api": "openai-completions",
        "provider": "cloudflare-ai-gateway", "baseUrl": "https://gateway.ai.cloudflare.com/v1/acc/gw/compat"}),
    );
    let h = build_request(&gw, &show_main_context(), &options("cf")).headers;
    assert_eq!(
        h,
        [("cf-aig-authorization".to_string(), "Bearer cf".to_string())]
    );

    let mut aff = groq("https://example.test/v1");
    aff.compat = Some(rho_ai::ModelCompat {
        send_session_affinity_headers: Some(true),
        ..Default::default()
    });
    let opts = StreamOptions {
        session_id: Some("s1".into()),
        ..options("k")
    };
    let h = build_request(&aff, &show_main_context(), &opts).headers;
    let names: Vec<&str> = h.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(
        names,
        [
            "authorization",
            "session_id",
            "x-client-request-id",
            "x-session-affinity"
        ]
    );
    let off = StreamOptions {
        cache_retention: CacheRetention::None,
        ..opts
    };
    assert_eq!(
        build_request(&aff, &show_main_context(), &off)
            .headers
            .len(),
        1
    );
}

#[test]
fn copilot_dynamic_headers() {
    let m = model(
        json!({"id": "gpt-4.1", "name": "GPT-4.1", "api": "openai-completions",
        "provider": "github-copilot", "baseUrl": "https://api.individual.githubcopilot.com",
        "input": ["text", "image"]}),
    );
    let h = build_request(&m, &images_context(&m), &options("tok")).headers;
    let get = |n: &str| h.iter().find(|(k, _)| k == n).map(|(_, v)| v.as_str());
    assert_eq!(get("X-Initiator"), Some("user"));
    assert_eq!(get("Openai-Intent"), Some("conversation-edits"));
    assert_eq!(get("Copilot-Vision-Request"), Some("true"));
    let mut ctx = history(&m);
    ctx.messages.pop();
    let h = build_request(&m, &ctx, &options("tok")).headers;
    assert!(h.contains(&("X-Initiator".to_string(), "agent".to_string())));
    assert!(!h.iter().any(|(k, _)| k == "Copilot-Vision-Request"));
}

#[test]
fn long_tool_ids_are_normalised_on_both_sides() {
    let m = openai("gpt-4o", false);
    let long = format!("call_{}", "x".repeat(60));
    let ctx = Context {
        system_prompt: None,
        messages: vec![
            user("go"),
            assistant(&m, vec![call(&long, "read", json!({}))]),
            result(&long, "read", vec![ContentBlock::text("ok")]),
        ],
        tools: vec![read_tool()],
    };
    let b = body(&m, &ctx, &options("k"));
    let call_id = b["messages"][1]["tool_calls"][0]["id"]
        .as_str()
        .expect("id");
    assert_eq!(call_id.len(), 40);
    assert_eq!(b["messages"][2]["tool_call_id"], call_id);
}

#[test]
fn deepseek_levels_clamp_to_the_map() {
    let m = deepseek("https://api.deepseek.com");
    let effort =
        |level| body(&m, &show_main_context(), &with_reasoning(level))["reasoning_effort"].clone();
    assert_eq!(effort(ThinkingLevel::Low), "high");
    assert_eq!(effort(ThinkingLevel::High), "high");
    assert_eq!(effort(ThinkingLevel::Xhigh), "max");
}

/// pi 1.6's `thinkingTokenBudgetField` (and its alias `supportsThinkingTokenBudget`): the
/// level's `thinkingBudgets` value as a top-level field, leaving 1024 tokens for the answer.
#[test]
fn a_budget_field_caps_reasoning_with_the_levels_budget() {
    let local = |compat: Value| {
        model(json!({
            "id": "qwen3", "name": "qwen3", "api": "openai-completions", "provider": "local",
            "baseUrl": "http://127.0.0.1:8080/v1", "reasoning": true, "maxTokens": 8000,
            "compat": compat
        }))
    };
    let m = local(json!({"thinkingTokenBudgetField": "thinking_budget_tokens"}));
    let mut opts = with_reasoning(ThinkingLevel::High);
    opts.thinking_budgets.high = Some(3000);
    opts.max_tokens = Some(8000);
    assert_eq!(
        body(&m, &history(&m), &opts)["thinking_budget_tokens"],
        3000
    );
    opts.thinking_budgets.high = None;
    assert_eq!(
        body(&m, &history(&m), &opts)["thinking_budget_tokens"],
        6976,
        "the default 16384 left 1024 tokens of the 8000 for the answer"
    );
    let alias = local(json!({"supportsThinkingTokenBudget": true}));
    let low = with_reasoning(ThinkingLevel::Low);
    assert_eq!(
        body(&alias, &history(&alias), &low)["thinking_token_budget"],
        2048
    );
    let off = body(&alias, &history(&alias), &options("sk"));
    assert!(
        off.get("thinking_token_budget").is_none(),
        "no budget when thinking is off"
    );
}
