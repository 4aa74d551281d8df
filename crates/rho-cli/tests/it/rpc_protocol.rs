//! RPC framing, envelopes and error handling against the real binary: malformed input is
//! answered and the session keeps working; a prompt's response precedes its events.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::{reply, Rpc, Start};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_malformed_inputs_are_answered_and_the_session_keeps_working() {
    let mut rpc = Rpc::start().await;
    let mut huge = vec![b'x'; 33 * 1024 * 1024];
    huge.push(b'\n');
    let cases: Vec<(Vec<u8>, Option<Value>, &str, &str)> = vec![
        (
            b"garbage\n".to_vec(),
            None,
            "parse",
            "Failed to parse command: ",
        ),
        (
            b"{\"id\":\"t\",\"type\":\"prompt\"\n".to_vec(),
            None,
            "parse",
            "Failed to parse command: ",
        ),
        (b"\n".to_vec(), None, "parse", "Failed to parse command: "),
        (
            b"[1,2,3]\n".to_vec(),
            None,
            "parse",
            "Failed to parse command: ",
        ),
        (
            huge,
            None,
            "parse",
            "Failed to parse command: the line is longer than",
        ),
        (
            br#"{"id":"e6","type":"prompt","message":42}"#.to_vec(),
            Some(json!("e6")),
            "prompt",
            "Field \"message\" must be a string",
        ),
        (
            br#"{"id":"e7","type":"get_thing"}"#.to_vec(),
            Some(json!("e7")),
            "get_thing",
            "Unknown command: get_thing",
        ),
        (
            br#"{"id":"e8","type":"set_model","provider":"mock"}"#.to_vec(),
            Some(json!("e8")),
            "set_model",
            "Missing required field \"modelId\"",
        ),
        (
            br#"{"id":"e9","type":"set_auto_retry","enabled":"yes"}"#.to_vec(),
            Some(json!("e9")),
            "set_auto_retry",
            "Field \"enabled\" must be true or false",
        ),
        (
            br#"{"id":10,"type":["prompt"]}"#.to_vec(),
            Some(json!(10)),
            "parse",
            "Failed to parse command: the field \"type\"",
        ),
    ];
    for (i, (bytes, id, command, error)) in cases.into_iter().enumerate() {
        let mut bytes = bytes;
        if bytes.last() != Some(&b'\n') {
            bytes.push(b'\n');
        }
        rpc.send_raw(&bytes).await;
        let r = rpc.wait(|v| v["type"] == "response").await;
        assert_eq!(r["success"], false, "case {i}: {r}");
        assert_eq!(r["command"], command, "case {i}: {r}");
        assert_eq!(r.get("id").cloned(), id, "case {i}: {r}");
        let text = r["error"].as_str().expect("error text");
        assert!(text.starts_with(error), "case {i}: {text}");
    }
    rpc.send(json!({"type": "extension_ui_response", "id": "no-such-dialog", "value": "x"}))
        .await;
    let r = rpc.call(json!({"id": "after", "type": "get_state"})).await;
    assert_eq!(r["success"], true);
    assert!(
        rpc.seen
            .iter()
            .all(|v| v["command"] != "extension_ui_response"),
        "a stray dialog answer is never answered"
    );
    rpc.server.push(reply("still here"));
    assert_eq!(rpc.prompt_ok("ok", "hello").await, "still here");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn crlf_and_unicode_separators_and_a_trailing_record_at_eof() {
    let mut rpc = Rpc::start().await;
    rpc.server.push(reply("ok"));
    let text = "line\u{2028}sep\u{2029}end";
    let line = format!(
        "{}\r\n",
        json!({"id": "p", "type": "prompt", "message": text})
    );
    rpc.send_raw(line.as_bytes()).await;
    assert_eq!(rpc.response(&json!("p")).await["success"], true);
    rpc.event("agent_end").await;
    let sent = support::user_texts(&rpc.server.last_body());
    assert_eq!(sent, vec![text.to_string()]);
    rpc.send_raw(br#"{"id":"last","type":"get_state"}"#).await;
    rpc.close_stdin();
    let r = rpc.response(&json!("last")).await;
    assert_eq!(r["success"], true);
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn p_15_a_prompt_streams_events_after_its_response_and_state_reflects_it() {
    let mut rpc = Rpc::start().await;
    let state = rpc.call(json!({"id": "s0", "type": "get_state"})).await;
    let d = &state["data"];
    assert_eq!(d["model"]["id"], "m1");
    assert_eq!(d["model"]["provider"], "mock");
    assert_eq!(d["model"]["api"], "openai-completions");
    assert_eq!(d["isStreaming"], false);
    assert_eq!(d["messageCount"], 0);
    assert_eq!(d["steeringMode"], "one-at-a-time");
    assert!(d.get("sessionFile").is_none(), "--no-session has no file");
    assert!(d["sessionId"].as_str().is_some_and(|s| s.len() == 36));

    rpc.server.push(reply("Port 5173."));
    rpc.send(json!({"id": "q2", "type": "prompt", "message": "Which port?"}))
        .await;
    rpc.event("agent_end").await;
    let resp = rpc.position(|v| v["id"] == "q2").expect("response");
    let start = rpc
        .position(|v| v["type"] == "agent_start")
        .expect("agent_start");
    assert!(resp < start, "the prompt response precedes agent_start");
    let kinds: Vec<&str> = rpc.seen[start..]
        .iter()
        .filter_map(|v| v["type"].as_str())
        .filter(|t| *t != "message_update")
        .collect();
    assert_eq!(
        kinds,
        [
            "agent_start",
            "turn_start",
            "message_start",
            "message_end",
            "message_start",
            "message_end",
            "turn_end",
            "agent_end"
        ]
    );
    assert!(rpc
        .seen
        .iter()
        .all(|v| v.get("id").is_none() || v["type"] == "response"));

    let msgs = rpc.call(json!({"id": "m", "type": "get_messages"})).await;
    let list = msgs["data"]["messages"].as_array().expect("messages");
    assert_eq!(list.len(), 2);
    assert_eq!(list[1]["content"][0]["text"], "Port 5173.");
    let state = rpc.call(json!({"id": "s1", "type": "get_state"})).await;
    assert_eq!(state["data"]["messageCount"], 2);
    let last = rpc
        .call(json!({"id": "t", "type": "get_last_assistant_text"}))
        .await;
    assert_eq!(last["data"], json!({"text": "Port 5173."}));
    let stats = rpc
        .call(json!({"id": "st", "type": "get_session_stats"}))
        .await;
    let s = &stats["data"];
    assert_eq!(
        (s["userMessages"].clone(), s["assistantMessages"].clone()),
        (json!(1), json!(1))
    );
    assert_eq!(s["tokens"]["input"], 20);
    assert_eq!(s["tokens"]["output"], 5);
    assert_eq!(s["contextUsage"]["contextWindow"], 100000);
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_name_events_precede_the_response_and_empty_last_text_is_an_empty_object() {
    let mut rpc = Rpc::start().await;
    let empty = rpc
        .call(json!({"id": "t0", "type": "get_last_assistant_text"}))
        .await;
    assert_eq!(empty["data"], json!({}));
    let r = rpc
        .call(json!({"id": "n", "type": "set_session_name", "name": "  "}))
        .await;
    assert_eq!(r["error"], "Session name cannot be empty");
    let r = rpc
        .call(json!({"id": "n2", "type": "set_session_name", "name": " Deploy work "}))
        .await;
    assert_eq!(r["success"], true);
    assert_eq!(
        rpc.seen
            .iter()
            .filter(|v| v["type"] == "session_info_changed")
            .count(),
        1
    );
    let changed = rpc.event("session_info_changed").await;
    assert_eq!(changed["name"], "Deploy work");
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["sessionName"], "Deploy work");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_model_the_prompt_is_refused_and_state_has_no_model() {
    let mut rpc = Rpc::start_with(Start {
        no_model: true,
        ..Start::default()
    })
    .await;
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert!(state["data"].get("model").is_none(), "{state}");
    let r = rpc
        .call(json!({"id": "p", "type": "prompt", "message": "hi"}))
        .await;
    assert_eq!(
        r,
        json!({"id": "p", "type": "response", "command": "prompt", "success": false,
               "error": "No model selected. Run '/model <name>' to select a model."})
    );
    assert!(rpc.seen.iter().all(|v| v["type"] != "agent_start"));
    let r = rpc
        .call(json!({"id": "m", "type": "set_model", "provider": "anthropic", "modelId": "claude-sonnet-4-5"}))
        .await;
    assert_eq!(r["success"], false, "no key for anthropic either: {r}");
    let state = rpc.call(json!({"id": "s2", "type": "get_state"})).await;
    assert!(
        state["data"].get("model").is_none(),
        "still no model: {state}"
    );
    assert_eq!(rpc.close().await, Some(0));
}

/// D18: the session records pi 1.x's system message, and the 0.73.1 dialect leaves it out
/// of everything it sends (its events, `agent_end`, `get_messages`, `messageCount`,
/// `totalMessages`), where the 1.x dialect shows it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_1x_dialect_shows_system_messages() {
    for (dialect, shown) in [("0.73", false), ("1.x", true)] {
        let mut rpc = Rpc::start_with(Start {
            with_sessions: true,
            args: vec!["--rpc-dialect".into(), dialect.into()],
            ..Start::default()
        })
        .await;
        rpc.server.push(reply("hi"));
        rpc.prompt_ok("p", "hello").await;
        let roles = |messages: &Value| -> Vec<String> {
            let list = messages.as_array().cloned().unwrap_or_default();
            list.iter()
                .filter_map(|m| m["role"].as_str().map(str::to_string))
                .collect()
        };
        let expected: Vec<&str> = if shown {
            vec!["system", "user", "assistant"]
        } else {
            vec!["user", "assistant"]
        };
        let starts = rpc
            .seen
            .iter()
            .filter(|v| v["type"] == "message_start" && v["message"]["role"] == "system")
            .count();
        assert_eq!(starts, usize::from(shown), "{dialect}");
        let end = rpc.seen.iter().find(|v| v["type"] == "agent_end").cloned();
        assert_eq!(roles(&end.expect("agent_end")["messages"]), expected);
        let r = rpc.call(json!({"id": "m", "type": "get_messages"})).await;
        assert_eq!(roles(&r["data"]["messages"]), expected, "{dialect}");
        let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
        assert_eq!(state["data"]["messageCount"], expected.len(), "{dialect}");
        let stats = rpc
            .call(json!({"id": "t", "type": "get_session_stats"}))
            .await;
        assert_eq!(stats["data"]["totalMessages"], expected.len(), "{dialect}");
        let file = state["data"]["sessionFile"].as_str().expect("a file");
        let text = support::read(std::path::Path::new(file));
        assert!(
            text.contains(r#""role":"system""#),
            "recorded in both: {text}"
        );
        assert_eq!(rpc.close().await, Some(0));
    }
}
