//! `bedrock-converse-stream` against the loopback server speaking Bedrock's binary AWS
//! event stream (frames made with the AWS event-stream crate's encoder): text with usage, a
//! tool-call round trip, error replies (HTTP and in the stream) with pi's texts and
//! classification, an abort mid-stream; every SigV4 signature is checked against the secret
//! with an independent implementation ([`sigv4`]).

pub mod sigv4;

use rho_ai::provider::{drive, CallControl};
use rho_ai::providers::bedrock;
use rho_ai::reply::ReplyBuilder;
use rho_ai::{
    AssistantMessageEvent as E, AssistantStream, Context, Model, StopReason, StreamOptions,
};
use rho_testkit::bedrock as wire;
use rho_testkit::replies::{ask, collect, final_message, model, with_results};
use rho_testkit::{Chunk, MockServer};
use serde_json::json;

/// A Claude model whose id has a `:` (encoded in the path, and again for signing).
const CLAUDE: &str = "anthropic.claude-sonnet-4-5-20250929-v1:0";

/// The keys `AWS_BEDROCK_SKIP_AUTH=1` signs with.
const DUMMY_SECRET: &str = "dummy-secret-key";

fn claude(base: &str) -> Model {
    let mut m = model("bedrock-converse-stream", "amazon-bedrock", CLAUDE, base);
    m.name = "Claude Sonnet 4.5".into();
    m
}

/// One call with `env` as the environment; `options.cancel` aborts it.
async fn call(
    model: &Model,
    context: &Context,
    options: StreamOptions,
    env: &[(&str, &str)],
) -> Vec<E> {
    let lookup = |name: &str| {
        env.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    };
    let (request, authorize) = bedrock::prepare_with(model, context, &options, &lookup);
    let (sink, stream) = AssistantStream::channel();
    let cancel = options.cancel.clone();
    let reply = ReplyBuilder::new(model, sink, cancel.clone());
    let control = CallControl {
        cancel: cancel.clone(),
        authorize: Some(authorize),
        ..Default::default()
    };
    tokio::spawn(drive(
        request,
        bedrock::Parser::new(model),
        bedrock::error_message,
        reply,
        control,
    ));
    // `ABORT=1`: cancel at the first text delta.
    let abort = env.contains(&("ABORT", "1")).then_some(cancel);
    collect(stream, abort).await
}

/// Signed with placeholder keys (`AWS_BEDROCK_SKIP_AUTH=1`), in region `us-west-2`.
const SIGNED: &[(&str, &str)] = &[("AWS_BEDROCK_SKIP_AUTH", "1"), ("AWS_REGION", "us-west-2")];

#[tokio::test]
async fn text_and_usage_over_a_signed_request() {
    let server = MockServer::start().await;
    server.push(wire::response(vec![
        wire::message_start(),
        wire::text(0, "Hello"),
        wire::text(0, " Bedrock"),
        wire::block_stop(0),
        wire::message_stop("end_turn"),
        wire::metadata(120, 7, 100, 20),
    ]));
    let m = claude(&server.url());
    let events = call(&m, &ask("hi"), StreamOptions::default(), SIGNED).await;
    let reply = final_message(&events);
    assert_eq!(
        reply.stop_reason,
        StopReason::Stop,
        "{:?}",
        reply.error_message
    );
    assert_eq!(reply.text(), "Hello Bedrock");
    let u = &reply.usage;
    assert_eq!(
        (
            u.input,
            u.output,
            u.cache_read,
            u.cache_write,
            u.total_tokens
        ),
        (120, 7, 100, 20, 247)
    );
    assert!(u.cost.total > 0.0);

    let request = &server.requests()[0];
    assert_eq!(
        request.path,
        "/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse-stream"
    );
    let signed = sigv4::verify(request, DUMMY_SECRET).expect("a valid SigV4 signature");
    assert_eq!(signed.scope_region, "us-west-2");
    assert_eq!(signed.service, "bedrock");
    assert_eq!(signed.access_key, "dummy-access-key");
    assert!(signed.signed_headers.contains(&"content-type".to_string()));
    let body = request.json();
    assert_eq!(
        body["messages"][0],
        json!({"role": "user", "content": [{"text": "hi"}, {"cachePoint": {"type": "default"}}]})
    );
    assert_eq!(
        body["system"],
        json!([{"text": "You are terse."}, {"cachePoint": {"type": "default"}}])
    );
    assert_eq!(body["inferenceConfig"]["maxTokens"], 32000);
    assert_eq!(body["toolConfig"]["tools"][0]["toolSpec"]["name"], "read");
    assert_eq!(
        body["toolConfig"]["tools"][0]["toolSpec"]["inputSchema"]["json"]["type"],
        "object"
    );
}

#[tokio::test]
async fn a_tampered_body_fails_the_signature_check() {
    let server = MockServer::start().await;
    server.push(wire::response(vec![
        wire::message_start(),
        wire::message_stop("end_turn"),
    ]));
    let m = claude(&server.url());
    call(&m, &ask("hi"), StreamOptions::default(), SIGNED).await;
    let mut request = server.requests()[0].clone();
    assert!(sigv4::verify(&request, DUMMY_SECRET).is_ok());
    assert!(sigv4::verify(&request, "another-secret").is_err());
    request.body = request.body.replace("hi", "ho");
    assert!(sigv4::verify(&request, DUMMY_SECRET).is_err());
}

#[tokio::test]
async fn a_tool_call_round_trip() {
    let server = MockServer::start().await;
    server.push(wire::response(vec![
        wire::message_start(),
        wire::text(0, "Reading."),
        wire::block_stop(0),
        wire::tool_start(1, "tooluse_1", "read"),
        wire::tool_input(1, "{\"path\":"),
        wire::tool_input(1, "\"a.txt\"}"),
        wire::block_stop(1),
        wire::message_stop("tool_use"),
        wire::metadata(50, 9, 0, 0),
    ]));
    server.push(wire::response(vec![
        wire::message_start(),
        wire::text(0, "It says hi."),
        wire::block_stop(0),
        wire::message_stop("end_turn"),
        wire::metadata(80, 4, 0, 0),
    ]));
    let m = claude(&server.url());
    let first = call(&m, &ask("read"), StreamOptions::default(), SIGNED).await;
    let reply = final_message(&first);
    assert_eq!(reply.stop_reason, StopReason::ToolUse);
    let tool = reply.tool_calls().next().expect("a call");
    assert_eq!(
        (tool.id.as_str(), tool.name.as_str()),
        ("tooluse_1", "read")
    );
    assert_eq!(tool.arguments, json!({"path": "a.txt"}));
    let context = with_results(ask("read"), reply, "hi");
    let second = call(&m, &context, StreamOptions::default(), SIGNED).await;
    assert_eq!(final_message(&second).text(), "It says hi.");
    let request = &server.requests()[1];
    sigv4::verify(request, DUMMY_SECRET).expect("signed");
    let messages = request.json()["messages"].clone();
    assert_eq!(
        messages[1],
        json!({"role": "assistant", "content": [
            {"text": "Reading."},
            {"toolUse": {"toolUseId": "tooluse_1", "name": "read", "input": {"path": "a.txt"}}}
        ]})
    );
    assert_eq!(
        messages[2],
        json!({"role": "user", "content": [
            {"toolResult": {"toolUseId": "tooluse_1", "content": [{"text": "hi"}], "status": "success"}},
            {"cachePoint": {"type": "default"}}
        ]})
    );
}

#[tokio::test]
async fn thinking_with_a_signature_and_claude_budget_fields() {
    let server = MockServer::start().await;
    server.push(wire::response(vec![
        wire::message_start(),
        wire::reasoning(0, "Let me think."),
        wire::signature(0, "c2lnbmF0dXJl"),
        wire::block_stop(0),
        wire::text(1, "Done."),
        wire::block_stop(1),
        wire::message_stop("end_turn"),
        wire::metadata(10, 5, 0, 0),
    ]));
    let m = claude(&server.url());
    let options = StreamOptions {
        reasoning: Some(rho_ai::ThinkingLevel::Medium),
        max_tokens: Some(4000),
        ..Default::default()
    };
    let events = call(&m, &ask("think"), options, SIGNED).await;
    let reply = final_message(&events);
    match &reply.content[0] {
        rho_ai::ContentBlock::Thinking(t) => {
            assert_eq!(t.thinking, "Let me think.");
            assert_eq!(t.thinking_signature.as_deref(), Some("c2lnbmF0dXJl"));
        }
        other => panic!("thinking first: {other:?}"),
    }
    let body = server.requests()[0].json();
    assert_eq!(
        body["additionalModelRequestFields"],
        json!({"thinking": {"type": "enabled", "budget_tokens": 8192, "display": "summarized"},
            "anthropic_beta": ["interleaved-thinking-2025-05-14"]})
    );
    assert_eq!(body["inferenceConfig"]["maxTokens"], 12192);
}

#[tokio::test]
async fn http_errors_carry_pi_texts_and_classification() {
    let server = MockServer::start().await;
    server.push(wire::error(
        400,
        "ValidationException",
        "Input is too long for requested model.",
    ));
    server.push(wire::error(
        429,
        "ThrottlingException",
        "Too many tokens, please wait before trying again.",
    ));
    let m = claude(&server.url());
    let events = call(&m, &ask("x"), StreamOptions::default(), SIGNED).await;
    let reply = final_message(&events);
    assert_eq!(
        reply.error_message.as_deref(),
        Some("Validation error: Input is too long for requested model.")
    );
    assert!(rho_ai::overflow::is_context_overflow(reply, 200_000));
    assert!(!rho_ai::retry::is_retryable(reply, 200_000));
    let events = call(&m, &ask("x"), StreamOptions::default(), SIGNED).await;
    let reply = final_message(&events);
    assert_eq!(
        reply.error_message.as_deref(),
        Some("Throttling error: Too many tokens, please wait before trying again.")
    );
    assert!(
        !rho_ai::overflow::is_context_overflow(reply, 200_000),
        "throttling is no overflow"
    );
    // As in pi 1.6, whose retry patterns name neither throttling nor this text.
    assert!(!rho_ai::retry::is_retryable(reply, 200_000));
}

#[tokio::test]
async fn an_exception_in_the_stream_ends_the_reply_keeping_what_arrived() {
    let server = MockServer::start().await;
    server.push(wire::response(vec![
        wire::message_start(),
        wire::text(0, "partial"),
        wire::exception("serviceUnavailableException", "The service is unavailable."),
    ]));
    let m = claude(&server.url());
    let events = call(&m, &ask("x"), StreamOptions::default(), SIGNED).await;
    let reply = final_message(&events);
    assert_eq!(reply.stop_reason, StopReason::Error);
    assert_eq!(
        reply.error_message.as_deref(),
        Some("Service unavailable: The service is unavailable.")
    );
    assert_eq!(reply.text(), "partial");
    assert!(rho_ai::retry::is_retryable(reply, 200_000));
}

#[tokio::test]
async fn a_bearer_token_is_sent_unsigned() {
    let server = MockServer::start().await;
    server.push(wire::response(vec![
        wire::message_start(),
        wire::text(0, "ok"),
        wire::message_stop("end_turn"),
    ]));
    let m = claude(&server.url());
    let events = call(
        &m,
        &ask("x"),
        StreamOptions::default(),
        &[("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key")],
    )
    .await;
    assert_eq!(final_message(&events).text(), "ok");
    let request = &server.requests()[0];
    assert_eq!(
        request.header("authorization"),
        Some("Bearer bedrock-api-key")
    );
    assert_eq!(request.header("x-amz-date"), None);
}

#[tokio::test]
async fn abort_mid_stream() {
    let server = MockServer::start().await;
    server.push(
        wire::response(vec![wire::message_start(), wire::text(0, "first")]).then(Chunk::Hang),
    );
    let m = claude(&server.url());
    let mut env = SIGNED.to_vec();
    env.push(("ABORT", "1"));
    let events = call(&m, &ask("x"), StreamOptions::default(), &env).await;
    let reply = final_message(&events);
    assert_eq!(reply.stop_reason, StopReason::Aborted);
    assert_eq!(reply.error_message.as_deref(), Some("Request was aborted"));
    assert_eq!(reply.text(), "first");
    tokio::time::timeout(rho_testkit::replies::LIMIT, server.wait_for_closed(1))
        .await
        .expect("connection closed after abort");
}
