//! Issue 43 through the binary: `rho --mode rpc` against a loopback server speaking each wire
//! API, whose replies end before their terminal event (cut after a delta, garbage, invalid
//! UTF-8, an empty body, a page that is not SSE). Each reply ends as an error with pi 1.6's
//! text and its partial text, saved so; the process lives, the session file reloads with the
//! errors on the branch, and the next prompt works. With auto-retry on, a cut reply is retried
//! as pi retries it.

use crate::support;

use rho_testkit::faults::{self, Fault};
use serde_json::{json, Value};
use support::{read, Rpc, Start};

const APIS: [&str; 9] = [
    "anthropic-messages",
    "openai-completions",
    "openai-responses",
    "openai-codex-responses",
    "google-generative-ai",
    "google-vertex",
    "azure-openai-responses",
    "mistral-conversations",
    "bedrock-converse-stream",
];

/// One provider per wire API, named after it, all served by the mock server.
fn every_wire(url: &str) -> Value {
    let providers = APIS.map(|api| {
        let key = faults::wire(api, "").key();
        let provider = json!({"baseUrl": url, "api": api, "apiKey": key,
            "models": [{"id": "m", "contextWindow": 100000, "maxTokens": 1000}]});
        (api.to_string(), provider)
    });
    Value::Object(providers.into_iter().collect())
}

async fn start(api: &str, settings: Value) -> Rpc {
    Rpc::start_with(Start {
        with_sessions: true,
        settings: Some(settings),
        providers: Some(every_wire),
        own_model: true,
        args: vec!["--model".into(), format!("{api}/m")],
        ..Default::default()
    })
    .await
}

/// Sends a prompt and returns the last assistant message of its run, once rho is idle.
async fn prompt(rpc: &mut Rpc, id: &str, text: &str) -> Value {
    let r = rpc
        .call(json!({"id": id, "type": "prompt", "message": text}))
        .await;
    assert_eq!(r["success"], true, "prompt accepted: {r}");
    let end = rpc.event("agent_end").await;
    rpc.idle().await;
    end["messages"]
        .as_array()
        .and_then(|m| m.iter().rev().find(|m| m["role"] == "assistant"))
        .cloned()
        .expect("an assistant reply")
}

fn text(message: &Value) -> String {
    message["content"]
        .as_array()
        .map(|blocks| blocks.iter().filter_map(|b| b["text"].as_str()).collect())
        .unwrap_or_default()
}

/// `(stopReason, errorMessage, text)` of every assistant message in `messages`.
fn outcomes<'a>(messages: impl Iterator<Item = &'a Value>) -> Vec<(String, String, String)> {
    messages
        .filter(|m| m["role"] == "assistant")
        .map(|m| {
            (
                m["stopReason"].as_str().unwrap_or_default().to_string(),
                m["errorMessage"].as_str().unwrap_or_default().to_string(),
                text(m),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_api_keeps_an_early_end_as_an_error_and_the_session_goes_on() {
    for api in APIS {
        let wire = faults::wire(api, faults::PARTIAL);
        let mut rpc = start(api, json!({"retry": {"enabled": false}})).await;
        let mut expected = Vec::new();
        for (i, fault) in Fault::ERRORS.into_iter().enumerate() {
            rpc.server.push(wire.response(fault));
            let reply = prompt(&mut rpc, &format!("p{i}"), &format!("fault {i}")).await;
            let error = reply["errorMessage"]
                .as_str()
                .unwrap_or_default()
                .to_string();
            let kept = match fault {
                Fault::Empty | Fault::NotSse => {
                    assert!(
                        error.starts_with(wire.pi_no_events),
                        "{api} {fault:?}: {error}"
                    );
                    String::new()
                }
                Fault::BadUtf8Cut => {
                    assert_eq!(error, wire.pi_ended_early, "{api} {fault:?}");
                    format!("{}{}", faults::PARTIAL, faults::BAD_UTF8_DECODED)
                }
                _ => {
                    assert_eq!(error, wire.pi_ended_early, "{api} {fault:?}");
                    faults::PARTIAL.to_string()
                }
            };
            assert_eq!(reply["stopReason"], "error", "{api} {fault:?}");
            assert_eq!(
                text(&reply),
                kept,
                "{api} {fault:?}: the partial reply is kept"
            );
            expected.push(("error".to_string(), error, kept));
        }
        rpc.server.push(faults::wire(api, "All good.").complete());
        let reply = prompt(&mut rpc, "ok", "and now?").await;
        assert_eq!(
            (reply["stopReason"].as_str(), text(&reply).as_str()),
            (Some("stop"), "All good."),
            "{api}"
        );
        expected.push(("stop".into(), String::new(), "All good.".into()));

        // Saved as it happened: every reply on the branch, the errors with their messages.
        let state = rpc.call(json!({"id": "st", "type": "get_state"})).await;
        let file = state["data"]["sessionFile"]
            .as_str()
            .expect("a session file")
            .to_string();
        let entries: Vec<Value> = read(std::path::Path::new(&file))
            .lines()
            .map(|l| serde_json::from_str(l).expect("a JSON line"))
            .collect();
        let saved = outcomes(
            entries
                .iter()
                .filter(|e| e["type"] == "message")
                .map(|e| &e["message"]),
        );
        assert_eq!(saved, expected, "{api}: the session file");

        // The file reloads: another session, then back to this one.
        let r = rpc.call(json!({"id": "new", "type": "new_session"})).await;
        assert_eq!(r["success"], true, "{r}");
        let r = rpc
            .call(json!({"id": "sw", "type": "switch_session", "sessionPath": file}))
            .await;
        assert_eq!(r["data"], json!({"cancelled": false}), "{api}: {r}");
        let messages = rpc
            .call(json!({"id": "msgs", "type": "get_messages"}))
            .await;
        let reloaded = outcomes(
            messages["data"]["messages"]
                .as_array()
                .expect("messages")
                .iter(),
        );
        assert_eq!(reloaded, expected, "{api}: reloaded");

        rpc.server.push(faults::wire(api, "Still good.").complete());
        let reply = prompt(&mut rpc, "again", "once more").await;
        assert_eq!(text(&reply), "Still good.", "{api}");
        assert_eq!(
            rpc.close().await,
            Some(0),
            "{api}: rho lived and exits cleanly"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cut_reply_is_retried_as_pi_retries_it() {
    for api in ["anthropic-messages", "openai-responses"] {
        let mut rpc = start(api, json!({"retry": {"enabled": true, "baseDelayMs": 1}})).await;
        rpc.server
            .push(faults::wire(api, faults::PARTIAL).response(Fault::Cut));
        rpc.server.push(faults::wire(api, "Recovered.").complete());
        let r = rpc
            .call(json!({"id": "p", "type": "prompt", "message": "go"}))
            .await;
        assert_eq!(r["success"], true, "{r}");
        let retry = rpc.event("auto_retry_start").await;
        assert_eq!(retry["attempt"], 1, "{api}: {retry}");
        assert_eq!(
            retry["errorMessage"],
            faults::wire(api, "").pi_ended_early,
            "{api}: {retry}"
        );
        let end = rpc.event("auto_retry_end").await;
        assert_eq!(end["success"], true, "{api}: {end}");
        rpc.idle().await;
        let messages = rpc.call(json!({"id": "m", "type": "get_messages"})).await;
        let last = outcomes(
            messages["data"]["messages"]
                .as_array()
                .expect("messages")
                .iter(),
        );
        assert_eq!(
            last.last()
                .map(|(reason, _, text)| (reason.as_str(), text.as_str())),
            Some(("stop", "Recovered.")),
            "{api}"
        );
        assert_eq!(rpc.close().await, Some(0));
    }
}
