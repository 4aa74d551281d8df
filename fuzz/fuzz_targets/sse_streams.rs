//! Each provider's SSE parser over arbitrary bytes: the first byte picks the API, the next
//! the chunk size. The reply must end in exactly one terminal event and nothing may panic.
#![no_main]

use futures_util::FutureExt;
use libfuzzer_sys::fuzz_target;
use rho_ai::provider::{drive_bytes, WireParser};
use rho_ai::providers::{anthropic, google, openai_completions, openai_responses};
use rho_ai::reply::ReplyBuilder;
use rho_ai::{AssistantMessageEvent, AssistantStream, Model};
use tokio_util::sync::CancellationToken;

fn model(api: &str) -> Model {
    serde_json::from_value(serde_json::json!({
        "id": "m", "name": "M", "api": api, "provider": "p", "baseUrl": "http://127.0.0.1:1",
        "reasoning": true, "input": ["text"],
        "cost": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0},
        "contextWindow": 1000, "maxTokens": 100
    }))
    .expect("model json")
}

fn run<P: WireParser>(model: &Model, parser: P, body: &[u8], chunk: usize) {
    let (sink, mut stream) = AssistantStream::channel();
    let reply = ReplyBuilder::new(model, sink, CancellationToken::new());
    drive_bytes(body.chunks(chunk), parser, reply);
    // Every event is already queued and the sink is dropped, so each `next` is ready at once.
    let mut last = None;
    while let Some(Some(event)) = stream.next().now_or_never() {
        last = Some(event);
    }
    match last {
        Some(AssistantMessageEvent::Done { .. }) => {}
        Some(AssistantMessageEvent::Error { error, .. }) => {
            let text = error.error_message.unwrap_or_default();
            assert!(!text.is_empty(), "an error needs a message");
            assert_ne!(text, "Provider stream ended without a result");
        }
        other => panic!("the stream must end in done or error, got {other:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let [api, size, body @ ..] = data else { return };
    let chunk = (*size as usize).max(1);
    match api % 4 {
        0 => {
            let m = model("anthropic-messages");
            run(&m, anthropic::Parser::new(&m), body, chunk)
        }
        1 => {
            let m = model("openai-completions");
            run(&m, openai_completions::parse::Parser::new(&m), body, chunk)
        }
        2 => {
            let m = model("openai-responses");
            run(&m, openai_responses::Parser::new(&m), body, chunk)
        }
        _ => {
            let m = model("google-generative-ai");
            run(&m, google::Parser::new(&m), body, chunk)
        }
    }
});
