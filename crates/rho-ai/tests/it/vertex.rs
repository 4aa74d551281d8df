//! `google-vertex` against the loopback server speaking the real Gemini SSE stream: with a
//! Google Cloud API key (text with usage, a tool round trip, an error reply, an abort), and
//! with Application Default Credentials from a service-account key file, whose signed JWT
//! is exchanged for an access token at a loopback token URI.

use base64::Engine;
use rho_ai::provider::{drive, CallControl};
use rho_ai::providers::{google, vertex};
use rho_ai::reply::ReplyBuilder;
use rho_ai::{AssistantStream, Context, Model, StopReason, StreamOptions};
use rho_testkit::google::{self as wire, GeminiStream};
use rho_testkit::replies::{ask, collect, final_message, model, with_results};
use rho_testkit::{Chunk, MockResponse, MockServer};
use serde_json::json;

fn gemini(base: &str) -> Model {
    model("google-vertex", "google-vertex", "gemini-2.5-flash", base)
}

fn keyed() -> StreamOptions {
    StreamOptions {
        api_key: Some("AIza-vertex".into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn text_and_usage_with_an_api_key() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse(
        GeminiStream::new("r1", "gemini-2.5-flash")
            .parts(vec![wire::text("Hello")])
            .finish(
                vec![wire::text(" Vertex")],
                "STOP",
                wire::usage(120, 7, 3, 100),
            ),
    ));
    let m = gemini(&server.url());
    let events = collect(rho_ai::stream(&m, &ask("hi"), keyed()).unwrap(), None).await;
    let reply = final_message(&events);
    assert_eq!(reply.stop_reason, StopReason::Stop);
    assert_eq!(reply.text(), "Hello Vertex");
    let u = &reply.usage;
    assert_eq!((u.input, u.output, u.cache_read), (20, 10, 100));
    let request = &server.requests()[0];
    assert_eq!(
        request.path,
        "/v1/publishers/google/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(request.header("x-goog-api-key"), Some("AIza-vertex"));
    assert_eq!(request.header("authorization"), None);
    let body = request.json();
    assert_eq!(body["contents"][0]["parts"][0]["text"], "hi");
    assert_eq!(
        body["systemInstruction"]["parts"][0]["text"],
        "You are terse."
    );
}

#[tokio::test]
async fn a_tool_call_round_trip() {
    let server = MockServer::start().await;
    server.push(MockResponse::sse(GeminiStream::new("r1", "m").finish(
        vec![wire::function_call("read", json!({"path": "a.txt"}), None)],
        "STOP",
        wire::usage(50, 9, 0, 0),
    )));
    server.push(MockResponse::sse(GeminiStream::new("r2", "m").finish(
        vec![wire::text("It says hi.")],
        "STOP",
        wire::usage(80, 4, 0, 0),
    )));
    let m = gemini(&server.url());
    let first = collect(rho_ai::stream(&m, &ask("read"), keyed()).unwrap(), None).await;
    let reply = final_message(&first);
    assert_eq!(reply.stop_reason, StopReason::ToolUse);
    let call = reply.tool_calls().next().expect("a call");
    assert_eq!(call.arguments, json!({"path": "a.txt"}));
    let context = with_results(ask("read"), reply, "hi");
    let second = collect(rho_ai::stream(&m, &context, keyed()).unwrap(), None).await;
    assert_eq!(final_message(&second).text(), "It says hi.");
    let contents = server.requests()[1].json()["contents"].clone();
    assert_eq!(contents[1]["parts"][0]["functionCall"]["name"], "read");
    assert_eq!(contents[2]["parts"][0]["functionResponse"]["name"], "read");
}

#[tokio::test]
async fn an_error_reply_and_a_stream_without_finish_reason() {
    let server = MockServer::start().await;
    let body = r#"{"error":{"code":400,"message":"The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).","status":"INVALID_ARGUMENT"}}"#;
    server.push(MockResponse::error(400, body));
    server.push(MockResponse::sse(
        GeminiStream::new("r", "m")
            .parts(vec![wire::text("half")])
            .chunks(),
    ));
    let m = gemini(&server.url());
    let events = collect(rho_ai::stream(&m, &ask("x"), keyed()).unwrap(), None).await;
    let reply = final_message(&events);
    assert_eq!(reply.error_message.as_deref(), Some(body));
    assert!(rho_ai::overflow::is_context_overflow(reply, 1_048_576));
    let events = collect(rho_ai::stream(&m, &ask("x"), keyed()).unwrap(), None).await;
    let reply = final_message(&events);
    assert_eq!(
        reply.error_message.as_deref(),
        Some("Google Vertex stream ended without a finish reason")
    );
    assert!(rho_ai::retry::is_retryable(reply, 1_048_576));
}

#[tokio::test]
async fn abort_mid_stream() {
    let server = MockServer::start().await;
    let chunks = GeminiStream::new("r", "m")
        .parts(vec![wire::text("first")])
        .chunks();
    server.push(MockResponse::sse(chunks).then(Chunk::Hang));
    let opts = keyed();
    let cancel = opts.cancel.clone();
    let m = gemini(&server.url());
    let events = collect(rho_ai::stream(&m, &ask("x"), opts).unwrap(), Some(cancel)).await;
    let reply = final_message(&events);
    assert_eq!(reply.stop_reason, StopReason::Aborted);
    assert_eq!(reply.text(), "first");
}

/// The PKCS#8 key of the test service account (made for this test; it signs nothing else).
const KEY_PEM: &str = include_str!("vertex/test_service_account_key.pem");

fn pem_der(pem: &str) -> Vec<u8> {
    let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect();
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .expect("pem body")
}

/// Calls Vertex for `model` with `env` as the environment, as `rho_ai::stream` does.
async fn call_with_env(
    model: &Model,
    context: &Context,
    env: &[(&str, String)],
) -> Vec<rho_ai::AssistantMessageEvent> {
    let lookup = |name: &str| env.iter().find(|(k, _)| *k == name).map(|(_, v)| v.clone());
    let options = StreamOptions::default();
    let (request, authorize) =
        vertex::prepare_with(model, context, &options, &lookup).expect("prepared");
    let (sink, stream) = AssistantStream::channel();
    let reply = ReplyBuilder::new(model, sink, options.cancel.clone());
    let control = CallControl {
        authorize,
        ..Default::default()
    };
    tokio::spawn(drive(
        request,
        google::Parser::new(model),
        |f| google::error_message(f.status, &f.body),
        reply,
        control,
    ));
    collect(stream, None).await
}

#[tokio::test]
async fn a_service_account_key_signs_a_jwt_exchanged_at_its_token_uri() {
    let tokens = MockServer::start().await;
    tokens.push(MockResponse::error(
        200,
        r#"{"access_token":"ya29.test-token","expires_in":3599,"token_type":"Bearer"}"#,
    ));
    let vertex_server = MockServer::start().await;
    for text in ["one", "two"] {
        vertex_server.push(MockResponse::sse(GeminiStream::new("r", "m").finish(
            vec![wire::text(text)],
            "STOP",
            wire::usage(5, 1, 0, 0),
        )));
    }
    let dir = tempfile::tempdir().expect("tempdir");
    let key_file = dir.path().join("sa.json");
    let key = json!({
        "type": "service_account", "project_id": "rho-test", "private_key_id": "k1",
        "private_key": KEY_PEM, "client_email": "rho@rho-test.iam.gserviceaccount.com",
        "client_id": "1", "token_uri": format!("{}/token", tokens.url()),
    });
    std::fs::write(&key_file, key.to_string()).expect("key file");
    let env = [
        (
            "GOOGLE_APPLICATION_CREDENTIALS",
            key_file.display().to_string(),
        ),
        ("GOOGLE_CLOUD_PROJECT", "rho-test".to_string()),
        ("GOOGLE_CLOUD_LOCATION", "us-central1".to_string()),
    ];
    let m = gemini(&vertex_server.url());
    for expected in ["one", "two"] {
        let events = call_with_env(&m, &ask("hi"), &env).await;
        assert_eq!(final_message(&events).text(), expected, "{events:?}");
    }

    // One exchange: the second call reused the cached token.
    let exchanges = tokens.requests();
    assert_eq!(exchanges.len(), 1);
    assert_eq!(exchanges[0].path, "/token");
    let form: Vec<(String, String)> = exchanges[0]
        .body
        .split('&')
        .filter_map(|pair| pair.split_once('='))
        .map(|(k, v)| (k.to_string(), percent_decode(v)))
        .collect();
    let field = |k: &str| form.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    assert_eq!(
        field("grant_type").as_deref(),
        Some("urn:ietf:params:oauth:grant-type:jwt-bearer")
    );
    let jwt = field("assertion").expect("assertion");
    let parts: Vec<&str> = jwt.split('.').collect();
    assert_eq!(parts.len(), 3);
    let b64 = |s: &str| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(s.trim_end_matches('='))
            .expect("base64url")
    };
    let claims: serde_json::Value = serde_json::from_slice(&b64(parts[1])).expect("claims");
    assert_eq!(claims["iss"], "rho@rho-test.iam.gserviceaccount.com");
    assert_eq!(claims["aud"], format!("{}/token", tokens.url()));
    assert_eq!(
        claims["scope"],
        "https://www.googleapis.com/auth/cloud-platform"
    );
    // The signature verifies with the key file's public key.
    let pair = ring::signature::RsaKeyPair::from_pkcs8(&pem_der(KEY_PEM)).expect("key");
    let public = ring::signature::UnparsedPublicKey::new(
        &ring::signature::RSA_PKCS1_2048_8192_SHA256,
        ring::signature::KeyPair::public_key(&pair)
            .as_ref()
            .to_vec(),
    );
    let signed = format!("{}.{}", parts[0], parts[1]);
    public
        .verify(signed.as_bytes(), &b64(parts[2]))
        .expect("the JWT is signed with the service account's key");

    for request in vertex_server.requests() {
        assert_eq!(
            request.header("authorization"),
            Some("Bearer ya29.test-token")
        );
        assert_eq!(request.header("x-goog-api-key"), None);
    }
}

/// A form value with its `%XX` escapes (and `+`) decoded.
fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).expect("hex");
                out.push(u8::from_str_radix(hex, 16).expect("escape"));
                i += 3;
            }
            b'+' => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).expect("utf-8")
}

#[tokio::test]
async fn a_missing_key_file_is_a_clear_error() {
    let m = gemini("http://127.0.0.1:9");
    let env = [
        (
            "GOOGLE_APPLICATION_CREDENTIALS",
            "/nonexistent/sa.json".to_string(),
        ),
        ("GOOGLE_CLOUD_PROJECT", "p".to_string()),
        ("GOOGLE_CLOUD_LOCATION", "global".to_string()),
    ];
    let events = call_with_env(&m, &ask("hi"), &env).await;
    let reply = final_message(&events);
    assert_eq!(reply.stop_reason, StopReason::Error);
    let text = reply.error_message.as_deref().unwrap_or_default();
    assert!(
        text.starts_with("Could not load the Google credentials file /nonexistent/sa.json"),
        "{text}"
    );
}
