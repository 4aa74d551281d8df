//! `azure-openai-responses` (provider `azure`) against the loopback server speaking the real
//! Responses SSE stream: text with usage, a tool-call round trip, an error reply, an abort
//! mid-stream, and the old provider id.

use rho_ai::providers::azure::{build_request_with, error_message, AzureConfig};
use rho_ai::{StopReason, StreamOptions};
use rho_testkit::openai_responses::{usage, ResponsesStream};
use rho_testkit::replies::{ask, collect, final_message, model, with_results};
use rho_testkit::{Chunk, MockResponse, MockServer};
use serde_json::json;

fn azure(base: &str) -> rho_ai::Model {
    model(
        "azure-openai-responses",
        "azure",
        "gpt-5.4",
        &format!("{base}/openai/v1"),
    )
}

fn options() -> StreamOptions {
    StreamOptions {
        api_key: Some("azure-key".into()),
        session_id: Some("s-36".into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn text_and_usage_at_the_azure_endpoint_with_the_api_key_header() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse(
        ResponsesStream::new("resp_1", "gpt-5.4")
            .message("msg_1", &["Hello", " Azure"])
            .completed(usage(100, 40, 12, 0)),
    ));
    let m = azure(&server.url());
    let events = collect(rho_ai::stream(&m, &ask("hi"), options()).unwrap(), None).await;
    let reply = final_message(&events);
    assert_eq!(reply.stop_reason, StopReason::Stop);
    assert_eq!(reply.text(), "Hello Azure");
    assert_eq!(reply.api, "azure-openai-responses");
    let u = &reply.usage;
    assert_eq!((u.input, u.cache_read, u.output), (60, 40, 12));
    let request = &server.requests()[0];
    assert_eq!(request.path, "/openai/v1/responses?api-version=v1");
    assert_eq!(request.header("api-key"), Some("azure-key"));
    assert_eq!(request.header("authorization"), None);
    let body = request.json();
    assert_eq!(body["model"], "gpt-5.4");
    assert_eq!(body["store"], false);
    assert_eq!(body["stream"], true);
    assert_eq!(body["prompt_cache_key"], "s-36");
}

#[test]
fn the_deployment_and_api_version_shape_the_request() {
    let m = azure("https://acme.openai.azure.com");
    let config = AzureConfig {
        base_url: "https://acme.openai.azure.com/openai/v1".into(),
        api_version: "2025-04-01-preview".into(),
        deployment: "prod-gpt".into(),
    };
    let mut opts = options();
    opts.max_tokens = Some(4);
    let request = build_request_with(&m, &ask("x"), &opts, &config);
    assert_eq!(
        request.url,
        "https://acme.openai.azure.com/openai/v1/responses?api-version=2025-04-01-preview"
    );
    assert_eq!(request.body["model"], "prod-gpt");
    assert_eq!(request.body["max_output_tokens"], 16, "Responses' minimum");
}

#[tokio::test]
async fn a_tool_call_round_trip() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse(
        ResponsesStream::new("resp_1", "gpt-5.4")
            .function_call("fc_1", "call_1", "read", &["{\"path\":", "\"a.txt\"}"])
            .completed(usage(50, 0, 9, 0)),
    ));
    server.push(MockResponse::sse(
        ResponsesStream::new("resp_2", "gpt-5.4")
            .message("msg_2", &["It says hi."])
            .completed(usage(80, 0, 4, 0)),
    ));
    let m = azure(&server.url());
    let first = collect(rho_ai::stream(&m, &ask("read"), options()).unwrap(), None).await;
    let reply = final_message(&first);
    assert_eq!(reply.stop_reason, StopReason::ToolUse);
    let call = reply.tool_calls().next().expect("a call");
    assert_eq!(call.id, "call_1|fc_1");
    assert_eq!(call.arguments, json!({"path": "a.txt"}));
    let context = with_results(ask("read"), reply, "hi");
    let second = collect(rho_ai::stream(&m, &context, options()).unwrap(), None).await;
    assert_eq!(final_message(&second).text(), "It says hi.");
    let input = server.requests()[1].json()["input"].clone();
    let items = input.as_array().expect("input");
    let call_item = items
        .iter()
        .find(|i| i["type"] == "function_call")
        .expect("call");
    assert_eq!(
        (call_item["call_id"].clone(), call_item["id"].clone()),
        (json!("call_1"), json!("fc_1"))
    );
    let output = items
        .iter()
        .find(|i| i["type"] == "function_call_output")
        .expect("output");
    assert_eq!(output["call_id"], "call_1");
    assert_eq!(output["output"], "hi");
}

#[tokio::test]
async fn an_error_reply_is_worded_as_pi_words_it() {
    let server = MockServer::start().await;
    let body = r#"{"error":{"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}}"#;
    server.push(MockResponse::error(400, body));
    let m = azure(&server.url());
    let events = collect(rho_ai::stream(&m, &ask("x"), options()).unwrap(), None).await;
    let reply = final_message(&events);
    assert_eq!(
        reply.error_message.as_deref(),
        Some(
            r#"Azure OpenAI API error (400): {"message":"Your input exceeds the context window of this model.","type":"invalid_request_error","param":"input","code":"context_length_exceeded"}"#
        )
    );
    assert!(rho_ai::overflow::is_context_overflow(reply, 200_000));
    let unavailable = rho_ai::http::StatusFailure {
        status: 503,
        body: String::new(),
        headers: vec![],
    };
    let text = error_message(&unavailable);
    assert_eq!(
        text,
        "Azure OpenAI API error (503): 503 status code (no body)"
    );
}

#[tokio::test]
async fn the_old_provider_id_reads_the_same_key_and_keeps_call_pairs() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse(
        ResponsesStream::new("resp_1", "gpt-5.4")
            .message("msg_1", &["ok"])
            .completed(usage(1, 0, 1, 0)),
    ));
    let mut m = azure(&server.url());
    m.provider = "azure-openai-responses".into();
    assert_eq!(
        rho_ai::api_key::env_vars_for("azure-openai-responses"),
        rho_ai::api_key::env_vars_for("azure")
    );
    let events = collect(rho_ai::stream(&m, &ask("x"), options()).unwrap(), None).await;
    assert_eq!(final_message(&events).text(), "ok");
}

#[tokio::test]
async fn abort_mid_stream() {
    let server = MockServer::start().await;
    let events = ResponsesStream::new("resp_1", "gpt-5.4")
        .message("msg_1", &["first"])
        .events();
    // The message's deltas, without its end or the terminal event.
    let head = events
        .into_iter()
        .take_while(|e| !e.contains("response.output_text.done"));
    server.push(MockResponse::sse(head).then(Chunk::Hang));
    let opts = options();
    let cancel = opts.cancel.clone();
    let m = azure(&server.url());
    let events = collect(rho_ai::stream(&m, &ask("x"), opts).unwrap(), Some(cancel)).await;
    let reply = final_message(&events);
    assert_eq!(reply.stop_reason, StopReason::Aborted);
    assert_eq!(reply.text(), "first");
}
