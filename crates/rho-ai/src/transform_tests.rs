//! Unit tests of [`super`]: one table or case per rule of providers spec §4.

use serde_json::json;

use super::*;
use crate::content::{ImageContent, ThinkingContent};
use crate::message::UserMessage;
use crate::model::InputKind;
use crate::tool_call_id::tests::model;

fn image() -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: "aGk=".into(),
        mime_type: "image/png".into(),
    })
}

fn user(blocks: Vec<ContentBlock>) -> Message {
    Message::User(UserMessage {
        content: UserContent::Blocks(blocks),
        timestamp: 1,
    })
}

fn reply(provider: &str, api: &str, id: &str, content: Vec<ContentBlock>) -> AssistantMessage {
    let mut m = AssistantMessage::empty(api, provider, id);
    m.content = content;
    m
}

fn result(id: &str, content: Vec<ContentBlock>) -> Message {
    Message::ToolResult(ToolResultMessage {
        duration_ms: None,
        usage: None,
        nested_calls: None,
        tool_call_id: id.into(),
        tool_name: "read".into(),
        content,
        details: None,
        is_error: false,
        timestamp: 2,
    })
}

fn call(id: &str, sig: Option<&str>) -> ContentBlock {
    ContentBlock::ToolCall(ToolCall {
        namespace: None,
        id: id.into(),
        name: "read".into(),
        arguments: json!({"path": "a"}),
        thought_signature: sig.map(String::from),
    })
}

fn thinking(text: &str, sig: Option<&str>, redacted: Option<bool>) -> ContentBlock {
    ContentBlock::Thinking(ThinkingContent {
        thinking: text.into(),
        thinking_signature: sig.map(String::from),
        redacted,
    })
}

fn text_only() -> Model {
    let mut m = model("groq", "openai-completions", "llama");
    m.input = vec![InputKind::Text];
    m
}

fn claude() -> Model {
    model("anthropic", "anthropic-messages", "claude-sonnet-4-5")
}

fn assistant_content(messages: &[Message]) -> &[ContentBlock] {
    match &messages[0] {
        Message::Assistant(a) => &a.content,
        other => panic!("expected assistant, got {other:?}"),
    }
}

#[test]
fn user_image_runs_become_one_placeholder_for_text_only_models() {
    let t = ContentBlock::text;
    let placeholder = || t(USER_IMAGE_PLACEHOLDER);
    let cases = vec![
        (vec![image(), image()], vec![placeholder()]),
        (
            vec![t("a"), image(), t("b"), image()],
            vec![t("a"), placeholder(), t("b"), placeholder()],
        ),
        (vec![placeholder(), image(), image()], vec![placeholder()]),
        (vec![t("only text")], vec![t("only text")]),
    ];
    for (input, expected) in cases {
        let out = transform_messages(&[user(input.clone())], &text_only());
        assert_eq!(out, vec![user(expected)], "input {input:?}");
    }
}

#[test]
fn tool_result_images_use_the_tool_placeholder() {
    let out = transform_messages(
        &[result(
            "c1",
            vec![ContentBlock::text("x"), image(), image()],
        )],
        &text_only(),
    );
    let expected = vec![
        ContentBlock::text("x"),
        ContentBlock::text(TOOL_IMAGE_PLACEHOLDER),
    ];
    assert_eq!(out, vec![result("c1", expected)]);
}

#[test]
fn vision_models_keep_images_and_string_content_is_untouched() {
    let input = vec![user(vec![image()])];
    assert_eq!(transform_messages(&input, &claude()), input);
    let plain = vec![Message::User(UserMessage {
        content: UserContent::Text("hi".into()),
        timestamp: 1,
    })];
    assert_eq!(transform_messages(&plain, &text_only()), plain);
}

#[test]
fn thinking_rules_by_origin() {
    let foreign = ("openai", "openai-responses", "gpt-5");
    let same = ("anthropic", "anthropic-messages", "claude-sonnet-4-5");
    // (origin, block, expected block after transform)
    type Origin<'a> = (&'a str, &'a str, &'a str);
    let cases: Vec<(Origin, ContentBlock, Option<ContentBlock>)> = vec![
        (
            same,
            thinking("[r]", Some("enc"), Some(true)),
            Some(thinking("[r]", Some("enc"), Some(true))),
        ),
        (foreign, thinking("[r]", Some("enc"), Some(true)), None),
        (
            same,
            thinking("", Some("sig"), None),
            Some(thinking("", Some("sig"), None)),
        ),
        (same, thinking("  \n", None, None), None),
        (foreign, thinking(" ", Some("sig"), None), None),
        (
            same,
            thinking("plan", None, None),
            Some(thinking("plan", None, None)),
        ),
        (
            foreign,
            thinking("plan", Some("sig"), None),
            Some(ContentBlock::text("plan")),
        ),
        (
            foreign,
            thinking("plan", None, None),
            Some(ContentBlock::text("plan")),
        ),
    ];
    for ((provider, api, id), block, expected) in cases {
        let input = [Message::Assistant(reply(
            provider,
            api,
            id,
            vec![block.clone()],
        ))];
        let out = transform_messages(&input, &claude());
        let got = assistant_content(&out).first().cloned();
        assert_eq!(got, expected, "{provider}/{id}: {block:?}");
    }
}

#[test]
fn same_model_needs_provider_api_and_id() {
    let target = claude();
    let signed = || thinking("plan", Some("sig"), None);
    for (provider, api, id) in [
        ("anthropic", "anthropic-messages", "claude-opus-4-5"),
        (
            "vercel-ai-gateway",
            "anthropic-messages",
            "claude-sonnet-4-5",
        ),
        ("anthropic", "openai-completions", "claude-sonnet-4-5"),
    ] {
        let input = [Message::Assistant(reply(provider, api, id, vec![signed()]))];
        let out = transform_messages(&input, &target);
        assert_eq!(assistant_content(&out), &[ContentBlock::text("plan")]);
    }
}

#[test]
fn text_signature_is_stripped_only_for_foreign_messages() {
    let signed = ContentBlock::Text(TextContent {
        text: "hi".into(),
        text_signature: Some("{\"v\":1,\"id\":\"msg_1\"}".into()),
    });
    let same = [Message::Assistant(reply(
        "anthropic",
        "anthropic-messages",
        "claude-sonnet-4-5",
        vec![signed.clone()],
    ))];
    assert_eq!(
        assistant_content(&transform_messages(&same, &claude())),
        std::slice::from_ref(&signed)
    );
    let foreign = [Message::Assistant(reply(
        "openai",
        "openai-responses",
        "gpt-5",
        vec![signed],
    ))];
    let out = transform_messages(&foreign, &claude());
    assert_eq!(assistant_content(&out), &[ContentBlock::text("hi")]);
}

#[test]
fn foreign_tool_calls_lose_signature_and_get_normalised_ids_with_results_rewritten() {
    let history = vec![
        Message::Assistant(reply(
            "openai",
            "openai-responses",
            "gpt-5",
            vec![call("call_1|fc.item/1", Some("enc"))],
        )),
        result("call_1|fc.item/1", vec![ContentBlock::text("ok")]),
    ];
    let out = transform_messages(&history, &claude());
    assert_eq!(assistant_content(&out), &[call("call_1_fc_item_1", None)]);
    assert_eq!(
        out[1],
        result("call_1_fc_item_1", vec![ContentBlock::text("ok")])
    );
}

#[test]
fn same_model_tool_calls_are_untouched() {
    let history = vec![
        Message::Assistant(reply(
            "anthropic",
            "anthropic-messages",
            "claude-sonnet-4-5",
            vec![call("id|with|pipes", Some("sig"))],
        )),
        result("id|with|pipes", vec![]),
    ];
    assert_eq!(transform_messages(&history, &claude()), history);
}

#[test]
fn explicit_normaliser_none_keeps_foreign_ids() {
    let history = vec![Message::Assistant(reply(
        "openai",
        "openai-responses",
        "gpt-5",
        vec![call("a|b", Some("s"))],
    ))];
    let out = transform_messages_with(&history, &claude(), None);
    assert_eq!(assistant_content(&out), &[call("a|b", None)]);
}

fn stopped(reason: StopReason, content: Vec<ContentBlock>) -> Message {
    let mut m = reply(
        "anthropic",
        "anthropic-messages",
        "claude-sonnet-4-5",
        content,
    );
    m.stop_reason = reason;
    Message::Assistant(m)
}

/// `(role, toolCallId-or-empty, is_error)` of each message, for compact assertions.
fn shape(messages: &[Message]) -> Vec<(&'static str, String, bool)> {
    messages
        .iter()
        .map(|m| match m {
            Message::User(_) => ("user", String::new(), false),
            Message::Assistant(a) => ("assistant", a.stop_reason.as_str().into(), false),
            Message::ToolResult(r) => ("toolResult", r.tool_call_id.clone(), r.is_error),
        })
        .collect()
}

#[test]
fn errored_and_aborted_replies_are_dropped() {
    let history = vec![
        user(vec![ContentBlock::text("q")]),
        stopped(StopReason::Error, vec![ContentBlock::text("partial")]),
        stopped(StopReason::Aborted, vec![ContentBlock::text("partial")]),
        stopped(StopReason::Stop, vec![ContentBlock::text("answer")]),
    ];
    let out = transform_messages(&history, &claude());
    assert_eq!(
        shape(&out),
        vec![
            ("user", String::new(), false),
            ("assistant", "stop".into(), false)
        ]
    );
}

#[test]
fn orphaned_tool_calls_get_synthetic_error_results() {
    let two_calls = || {
        stopped(
            StopReason::ToolUse,
            vec![call("c1", None), call("c2", None)],
        )
    };
    let ok = |id: &str| result(id, vec![ContentBlock::text("ok")]);
    let q = || user(vec![ContentBlock::text("q")]);
    type Shape<'a> = Vec<(&'a str, &'a str, bool)>;
    let cases: Vec<(Vec<Message>, Shape)> = vec![
        // user message arrives while c2 has no result
        (
            vec![two_calls(), ok("c1"), q()],
            vec![
                ("assistant", "toolUse", false),
                ("toolResult", "c1", false),
                ("toolResult", "c2", true),
                ("user", "", false),
            ],
        ),
        // end of history
        (
            vec![two_calls()],
            vec![
                ("assistant", "toolUse", false),
                ("toolResult", "c1", true),
                ("toolResult", "c2", true),
            ],
        ),
        // a new assistant message (even one that is then dropped as aborted)
        (
            vec![two_calls(), ok("c2"), stopped(StopReason::Aborted, vec![])],
            vec![
                ("assistant", "toolUse", false),
                ("toolResult", "c2", false),
                ("toolResult", "c1", true),
            ],
        ),
        // complete turn: nothing added
        (
            vec![two_calls(), ok("c1"), ok("c2"), q()],
            vec![
                ("assistant", "toolUse", false),
                ("toolResult", "c1", false),
                ("toolResult", "c2", false),
                ("user", "", false),
            ],
        ),
        // calls of a dropped (errored) reply are not orphans
        (
            vec![stopped(StopReason::Error, vec![call("c9", None)]), q()],
            vec![("user", "", false)],
        ),
    ];
    for (history, expected) in cases {
        let out = transform_messages(&history, &claude());
        let expected: Vec<_> = expected
            .into_iter()
            .map(|(r, id, e)| (r, id.to_string(), e))
            .collect();
        assert_eq!(shape(&out), expected);
    }
    let out = transform_messages(&[two_calls()], &claude());
    let Message::ToolResult(synthetic) = &out[1] else {
        panic!("expected a tool result");
    };
    assert_eq!(synthetic.tool_name, "read");
    assert_eq!(synthetic.content, vec![ContentBlock::text(NO_RESULT_TEXT)]);
}

#[test]
fn the_target_api_picks_the_id_rule() {
    let foreign_call = |id: &str| {
        vec![Message::Assistant(reply(
            "anthropic",
            "anthropic-messages",
            "claude-sonnet-4-5",
            vec![call(id, None)],
        ))]
    };
    let cases = [
        (
            model("openai", "openai-responses", "gpt-5"),
            "toolu.01:x_",
            "toolu_01_x",
        ),
        (
            model("openai", "openai-responses", "gpt-5"),
            "toolu.01|",
            "toolu_01|fc_k4n83c7h0j2b",
        ),
        (
            model("groq", "openai-completions", "llama"),
            "toolu.01|x",
            "toolu_01",
        ),
        (
            model("groq", "openai-completions", "llama"),
            "toolu.01",
            "toolu.01",
        ),
        (
            model("google", "google-generative-ai", "gemini-2.5-pro"),
            "a.b",
            "a.b",
        ),
        (
            model("mistral", "mistral-conversations", "devstral"),
            "a.b",
            "a.b",
        ),
    ];
    for (target, id, expected) in cases {
        let out = transform_messages(&foreign_call(id), &target);
        assert_eq!(
            assistant_content(&out),
            &[call(expected, None)],
            "{} {id}",
            target.api
        );
    }
}
