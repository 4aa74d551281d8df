//! The remaining RPC commands against the binary: models and thinking levels, queue modes,
//! settings switches, bash and abort_bash, compact, get_commands, and the session commands
//! (new, switch, fork, clone, fork messages, export).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::{read, reply, Rpc, Start};

fn settings(rpc: &Rpc) -> Value {
    serde_json::from_str(&read(&rpc.agent_dir().join("settings.json"))).expect("settings JSON")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn models_and_thinking_levels() {
    let mut rpc = Rpc::start().await;
    let r = rpc
        .call(json!({"id": "a", "type": "get_available_models"}))
        .await;
    let ids: Vec<_> = r["data"]["models"]
        .as_array()
        .expect("models")
        .iter()
        .map(|m| {
            format!(
                "{}/{}",
                m["provider"].as_str().unwrap_or(""),
                m["id"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        ids,
        ["mock/m1", "mock/m2", "mock/r1"],
        "only providers with keys"
    );
    let r = rpc
        .call(json!({"id": "x", "type": "set_model", "provider": "mock", "modelId": "nope"}))
        .await;
    assert_eq!(r["error"], "Model not found: mock/nope");
    let r = rpc
        .call(json!({"id": "c0", "type": "cycle_thinking_level"}))
        .await;
    assert_eq!(r["data"], Value::Null, "m1 has no reasoning");

    let r = rpc
        .call(json!({"id": "s", "type": "set_model", "provider": "mock", "modelId": "r1"}))
        .await;
    assert_eq!(r["data"]["id"], "r1");
    assert_eq!(r["data"]["reasoning"], true);
    assert_eq!(r["data"]["contextWindow"], 100000);
    // pi 1.x: no defaultThinkingLevel in the settings keeps the current level (off).
    let state = rpc.call(json!({"id": "g0", "type": "get_state"})).await;
    assert_eq!(state["data"]["thinkingLevel"], "off");
    assert!(rpc
        .seen
        .iter()
        .all(|v| v["type"] != "thinking_level_changed"));
    let saved = settings(&rpc);
    assert_eq!(
        (
            saved["defaultProvider"].clone(),
            saved["defaultModel"].clone()
        ),
        (json!("mock"), json!("r1"))
    );

    let r = rpc
        .call(json!({"id": "t", "type": "set_thinking_level", "level": "high"}))
        .await;
    assert_eq!(r["success"], true);
    assert_eq!(rpc.event("thinking_level_changed").await["level"], "high");
    assert_eq!(settings(&rpc)["defaultThinkingLevel"], "high");
    let r = rpc
        .call(json!({"id": "c1", "type": "cycle_thinking_level"}))
        .await;
    assert_eq!(
        r["data"],
        json!({"level": "off"}),
        "high wraps to off (no xhigh in the map)"
    );

    let r = rpc.call(json!({"id": "cm", "type": "cycle_model"})).await;
    assert_eq!(r["data"]["model"]["id"], "m1", "r1 wraps to m1");
    assert_eq!(r["data"]["isScoped"], false);
    assert_eq!(r["data"]["thinkingLevel"], "off");
    let state = rpc.call(json!({"id": "g", "type": "get_state"})).await;
    assert_eq!(state["data"]["model"]["id"], "m1");
    assert_eq!(rpc.close().await, Some(0));

    // With defaultThinkingLevel in the settings, a switch takes that level.
    let mut rpc = Rpc::start_with(support::Start {
        settings: Some(json!({"defaultThinkingLevel": "low"})),
        ..support::Start::default()
    })
    .await;
    let r = rpc
        .call(json!({"id": "s2", "type": "set_model", "provider": "mock", "modelId": "r1"}))
        .await;
    assert_eq!(r["data"]["id"], "r1");
    let changed = rpc.event("thinking_level_changed").await;
    assert_eq!(changed["level"], "low", "the settings' default");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queue_modes_and_setting_switches_are_saved() {
    let mut rpc = Rpc::start().await;
    for (id, kind, field) in [
        ("a", "set_steering_mode", "steeringMode"),
        ("b", "set_follow_up_mode", "followUpMode"),
    ] {
        let r = rpc
            .call(json!({"id": id, "type": kind, "mode": "all"}))
            .await;
        assert_eq!(r["success"], true, "{r}");
        assert_eq!(settings(&rpc)[field], "all");
    }
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["steeringMode"], "all");
    assert_eq!(state["data"]["followUpMode"], "all");
    let r = rpc
        .call(json!({"id": "c", "type": "set_auto_compaction", "enabled": false}))
        .await;
    assert_eq!(r["success"], true);
    let r = rpc
        .call(json!({"id": "r", "type": "set_auto_retry", "enabled": false}))
        .await;
    assert_eq!(r["success"], true);
    let saved = settings(&rpc);
    assert_eq!(saved["compaction"]["enabled"], false);
    assert_eq!(saved["retry"]["enabled"], false);
    let state = rpc.call(json!({"id": "s2", "type": "get_state"})).await;
    assert_eq!(state["data"]["autoCompactionEnabled"], false);
    let r = rpc.call(json!({"id": "ar", "type": "abort_retry"})).await;
    assert_eq!(r["success"], true);
    assert!(
        rpc.seen.iter().all(|v| v["type"] != "auto_retry_end"),
        "nothing was sleeping"
    );
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bash_while_idle_reaches_the_next_prompt_and_abort_bash_cancels() {
    let mut rpc = Rpc::start().await;
    let r = rpc
        .call(json!({"id": "b", "type": "bash", "command": "pwd; printf 'e\\n' >&2; exit 4"}))
        .await;
    let work = rpc.work_dir().canonicalize().expect("cwd");
    assert_eq!(r["data"]["exitCode"], 4);
    assert_eq!(r["data"]["output"], format!("{}\ne\n", work.display()));
    rpc.server.push(reply("Seen."));
    rpc.prompt_ok("p", "what did it print?").await;
    let sent = support::user_texts(&rpc.server.last_body());
    assert!(sent[0].starts_with("Ran `pwd;"), "{sent:?}");
    assert!(sent[0].contains("Command exited with code 4"), "{sent:?}");

    rpc.send(json!({"id": "long", "type": "bash", "command": "sleep 30"}))
        .await;
    let mut attempt = 0;
    let result = loop {
        attempt += 1;
        rpc.call(json!({"id": format!("ab{attempt}"), "type": "abort_bash"}))
            .await;
        if let Some(i) = rpc.position(|v| v["id"] == "long") {
            break rpc.seen[i].clone();
        }
        if attempt > 2000 {
            panic!("bash was never cancelled");
        }
    };
    assert_eq!(result["data"]["cancelled"], true);
    assert!(result["data"].get("exitCode").is_none());
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compact_summarizes_and_reports_its_result() {
    let mut rpc = Rpc::start_with(Start {
        settings: Some(json!({"compaction": {"keepRecentTokens": 1}})),
        ..Start::default()
    })
    .await;
    let r = rpc.call(json!({"id": "c0", "type": "compact"})).await;
    assert_eq!(r["success"], false, "nothing to compact yet: {r}");
    rpc.event("compaction_start").await;
    let failed = rpc.event("compaction_end").await;
    assert!(failed.get("result").is_none());
    assert!(failed["errorMessage"]
        .as_str()
        .is_some_and(|e| e.starts_with("Compaction failed: ")));
    rpc.server.push(reply("First answer."));
    rpc.prompt_ok("p1", "first question").await;
    rpc.server.push(reply("Second answer."));
    rpc.prompt_ok("p2", "second question").await;
    // The cut falls inside the last turn: the history and the turn prefix are summarized
    // by separate calls.
    rpc.server.push(reply("## Goal\nAnswer questions."));
    rpc.server.push(reply("## Goal\nAnswer questions."));
    let r = rpc
        .call(json!({"id": "c", "type": "compact", "customInstructions": "be brief"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    let result = &r["data"];
    assert!(result["summary"]
        .as_str()
        .expect("summary")
        .contains("Answer questions."));
    assert!(result["firstKeptEntryId"].as_str().is_some());
    assert!(result["tokensBefore"].as_u64().expect("tokens") > 0);
    let start = rpc.event("compaction_start").await;
    assert_eq!(start["reason"], "manual");
    let end = rpc.event("compaction_end").await;
    assert_eq!(end["result"], *result);
    assert_eq!(end["aborted"], false);
    let requests = rpc.server.requests();
    assert_eq!(requests.len(), 4, "two replies, two summary calls");
    assert!(
        requests[2..]
            .iter()
            .any(|r| r.json().to_string().contains("be brief")),
        "custom instructions reach the summarizer"
    );
    let msgs = rpc.call(json!({"id": "m", "type": "get_messages"})).await;
    assert_eq!(msgs["data"]["messages"][0]["role"], "compactionSummary");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cmd_9_get_commands_lists_templates_and_skills() {
    let mut rpc = Rpc::start_with(Start {
        files: vec![
            (
                "prompts/review.md",
                "---\ndescription: Review code\n---\nReview $1",
            ),
            (
                "skills/lint/SKILL.md",
                "---\nname: lint\ndescription: Lint files\n---\nRun the linter.",
            ),
        ],
        ..Start::default()
    })
    .await;
    let r = rpc.call(json!({"id": "c", "type": "get_commands"})).await;
    let commands = r["data"]["commands"].as_array().expect("commands");
    assert_eq!(commands.len(), 2, "{commands:?}");
    assert_eq!(commands[0]["name"], "review");
    assert_eq!(commands[0]["source"], "prompt");
    assert_eq!(commands[0]["description"], "Review code");
    assert_eq!(commands[0]["sourceInfo"]["scope"], "user");
    assert_eq!(commands[1]["name"], "skill:lint");
    assert_eq!(commands[1]["source"], "skill");
    // pi 0.73.1: baseDir is the root the resource was discovered under (the agent dir for
    // user scope), for templates and skills alike.
    let agent = rpc.agent_dir().to_string_lossy().to_string();
    assert_eq!(commands[0]["sourceInfo"]["baseDir"], agent.as_str());
    assert_eq!(commands[1]["sourceInfo"]["baseDir"], agent.as_str());
    rpc.server.push(reply("Reviewed."));
    rpc.prompt_ok("p", "/review main.rs").await;
    assert_eq!(
        support::user_texts(&rpc.server.last_body()),
        ["Review main.rs"]
    );
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_commands_new_switch_fork_clone_and_export() {
    let mut rpc = Rpc::start_with(Start {
        with_sessions: true,
        ..Start::default()
    })
    .await;
    let r = rpc.call(json!({"id": "e0", "type": "export_html"})).await;
    assert_eq!(
        r["error"],
        "Nothing to export yet - start a conversation first"
    );
    rpc.server.push(reply("One."));
    rpc.prompt_ok("p1", "first").await;
    rpc.server.push(reply("Two."));
    rpc.prompt_ok("p2", "second").await;
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    let first_file = state["data"]["sessionFile"]
        .as_str()
        .expect("file")
        .to_string();
    assert!(first_file.starts_with(rpc.sessions_dir().to_str().expect("utf8")));

    let r = rpc.call(json!({"id": "e", "type": "export_html"})).await;
    let html_path = r["data"]["path"].as_str().expect("path").to_string();
    assert!(html_path.starts_with(rpc.work_dir().to_str().expect("utf8")));
    // pi names the page `<app>-session-<basename>.html` in RPC and CLI alike.
    assert!(html_path.contains("rho-session-"), "{html_path}");
    let html = read(std::path::Path::new(&html_path));
    assert!(html.contains("second") && html.contains("Two."));

    let r = rpc
        .call(json!({"id": "fm", "type": "get_fork_messages"}))
        .await;
    let forkable = r["data"]["messages"].as_array().expect("list").clone();
    assert_eq!(forkable.len(), 2);
    assert_eq!(forkable[1]["text"], "second");
    let r = rpc
        .call(json!({"id": "bad", "type": "fork", "entryId": "zzzz"}))
        .await;
    assert_eq!(r["error"], "Invalid entry ID for forking");
    let r = rpc
        .call(json!({"id": "f", "type": "fork", "entryId": forkable[1]["entryId"]}))
        .await;
    assert_eq!(r["data"], json!({"text": "second", "cancelled": false}));
    let msgs = rpc.call(json!({"id": "m", "type": "get_messages"})).await;
    let texts: Vec<_> = msgs["data"]["messages"]
        .as_array()
        .expect("list")
        .iter()
        .map(|m| m["role"].clone())
        .collect();
    assert_eq!(
        texts,
        [json!("user"), json!("assistant")],
        "the path before the forked entry"
    );
    let state = rpc.call(json!({"id": "s2", "type": "get_state"})).await;
    let forked_file = state["data"]["sessionFile"]
        .as_str()
        .expect("file")
        .to_string();
    assert_ne!(forked_file, first_file);
    let header: Value = serde_json::from_str(
        read(std::path::Path::new(&forked_file))
            .lines()
            .next()
            .expect("header"),
    )
    .expect("json");
    assert_eq!(header["parentSession"], first_file.as_str());

    let r = rpc.call(json!({"id": "cl", "type": "clone"})).await;
    assert_eq!(r["data"], json!({"cancelled": false}));
    let state = rpc.call(json!({"id": "s3", "type": "get_state"})).await;
    assert_eq!(state["data"]["messageCount"], 2);
    assert_ne!(state["data"]["sessionFile"], forked_file.as_str());

    let r = rpc
        .call(json!({"id": "n", "type": "new_session", "parentSession": first_file}))
        .await;
    assert_eq!(r["data"], json!({"cancelled": false}));
    let state = rpc.call(json!({"id": "s4", "type": "get_state"})).await;
    assert_eq!(state["data"]["messageCount"], 0);
    let r = rpc.call(json!({"id": "cl2", "type": "clone"})).await;
    assert_eq!(
        r["error"],
        "Cannot clone session: no current entry selected"
    );

    let r = rpc
        .call(json!({"id": "sw", "type": "switch_session", "sessionPath": first_file}))
        .await;
    assert_eq!(r["data"], json!({"cancelled": false}));
    let state = rpc.call(json!({"id": "s5", "type": "get_state"})).await;
    assert_eq!(state["data"]["sessionFile"], first_file.as_str());
    assert_eq!(state["data"]["messageCount"], 4);
    let resumed = rpc.call(json!({"id": "m5", "type": "get_messages"})).await;
    let texts: Vec<String> = resumed["data"]["messages"]
        .as_array()
        .expect("list")
        .iter()
        .map(|m| {
            format!(
                "{}:{}",
                m["role"].as_str().unwrap_or(""),
                m["content"][0]["text"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        texts,
        [
            "user:first",
            "assistant:One.",
            "user:second",
            "assistant:Two."
        ],
        "get_messages after a resume"
    );
    rpc.server.push(reply("Three."));
    rpc.prompt_ok("p3", "third").await;
    assert_eq!(
        support::user_texts(&rpc.server.last_body()),
        ["first", "second", "third"]
    );
    assert_eq!(rpc.close().await, Some(0));
}
