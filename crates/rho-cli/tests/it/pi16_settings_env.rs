//! Settings, the command line, the environment and templates as pi 1.6 reads them (issue 38),
//! through the binary against the loopback server: the `PI_*` variables a bash tool call
//! sees, pi's own environment names, settings' resource lists with patterns, template
//! defaults, pi's flags and their errors, provider retries, thinking budgets and per-model
//! compaction settings.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::process::Output;

use common::{chat_messages, read_jsonl, reply, stderr, stdout, Sandbox};
use rho_testkit::openai_chat::{self, ChatStream};
use serde_json::{json, Value};

/// A reply that runs `command` with the bash tool.
fn bash_call(command: &str) -> rho_testkit::MockResponse {
    ChatStream::new("chatcmpl-t", "mock-model")
        .role()
        .tool_call_start(0, "call_1", "bash")
        .tool_args(0, &json!({"command": command}).to_string())
        .finish("tool_calls")
        .usage(20, 5, None)
        .done()
        .response()
}

/// `rho args` as a pi user starts it: the agent dir through pi's `PI_CODING_AGENT_DIR`
/// (rho's own name unset), an OpenAI key in the environment.
async fn as_pi_user(sb: &Sandbox, args: &[&str], stdin: Option<&str>) -> Output {
    let mut cmd = sb.command(args);
    cmd.env_remove("RHO_CODING_AGENT_DIR")
        .env("PI_CODING_AGENT_DIR", sb.agent.path())
        .env("OPENAI_API_KEY", "sk-secret-provider-key");
    let mut child = cmd.spawn().expect("rho starts");
    let mut input = child.stdin.take().expect("stdin");
    if let Some(text) = stdin {
        tokio::io::AsyncWriteExt::write_all(&mut input, text.as_bytes())
            .await
            .expect("stdin");
    }
    drop(input);
    child.wait_with_output().await.expect("rho ends")
}

fn settings(sb: &Sandbox, value: Value) {
    std::fs::write(sb.agent.path().join("settings.json"), value.to_string()).expect("settings");
}

/// The text of the last message of the `n`th request (a tool result's output).
fn last_text(sb: &Sandbox, n: usize) -> String {
    let body = sb.server.requests()[n].json();
    chat_messages(&body)
        .last()
        .map(|(_, t)| t.clone())
        .unwrap_or_default()
}

/// pi 1.6's environment for the model's commands: the session's id and file, provider,
/// model and reasoning level, the `AI_AGENT`/`PI_CODING_AGENT` markers; never the provider
/// key. A user command (`!cmd`, RPC `bash`) gets the markers but not the session's variables.
#[tokio::test]
async fn a_bash_tool_call_sees_the_pi_variables_and_no_provider_key() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let sb = Sandbox::new().await;
    sb.server.push(bash_call("env | sort"));
    sb.server.push(reply("done"));
    let mut cmd = sb.command(&[
        "--mode",
        "rpc",
        "--rpc-dialect",
        "1.x",
        "--model",
        "mock/mock-model",
    ]);
    cmd.env_remove("RHO_CODING_AGENT_DIR")
        .env("PI_CODING_AGENT_DIR", sb.agent.path())
        .env("OPENAI_API_KEY", "sk-secret-provider-key");
    let mut child = cmd.spawn().expect("rho starts");
    let mut stdin = child.stdin.take().unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut next_until =
        async |stdin: &mut tokio::process::ChildStdin, send: Value, until: &str| {
            stdin
                .write_all(format!("{send}\n").as_bytes())
                .await
                .unwrap();
            loop {
                let line = lines.next_line().await.unwrap().expect("rho is running");
                let v: Value = serde_json::from_str(&line).unwrap();
                let done = match until {
                    "agent_settled" => v["type"] == "agent_settled",
                    id => v["type"] == "response" && v["id"] == id,
                };
                if done {
                    return v;
                }
            }
        };
    let prompt = json!({"id": "1", "type": "prompt", "message": "show the env"});
    next_until(&mut stdin, prompt, "agent_settled").await;
    let state = next_until(&mut stdin, json!({"id": "2", "type": "get_state"}), "2").await;
    let bash = json!({"id": "3", "type": "bash", "command": "env | sort"});
    let user = next_until(&mut stdin, bash, "3").await;
    drop(stdin);
    child.wait().await.unwrap();
    let state = state["data"].clone();
    let env = last_text(&sb, 1);
    for line in [
        format!("PI_SESSION_ID={}", state["sessionId"].as_str().unwrap()),
        format!("PI_SESSION_FILE={}", state["sessionFile"].as_str().unwrap()),
        "PI_PROVIDER=mock".into(),
        "PI_MODEL=mock-model".into(),
        format!(
            "PI_REASONING_LEVEL={}",
            state["thinkingLevel"].as_str().unwrap()
        ),
        "AI_AGENT=pi".into(),
        "PI_CODING_AGENT=true".into(),
    ] {
        assert!(env.lines().any(|l| l == line), "{line} missing in:\n{env}");
    }
    assert!(!env.contains("sk-secret-provider-key"), "{env}");
    let user = user["data"]["output"].as_str().unwrap().to_string();
    assert!(user.contains("AI_AGENT=pi"), "{user}");
    assert!(
        !user.contains("PI_SESSION_ID") && !user.contains("PI_MODEL="),
        "{user}"
    );
    assert!(!user.contains("sk-secret-provider-key"), "{user}");
}

#[tokio::test]
async fn pi_session_file_is_unset_without_a_session() {
    let sb = Sandbox::new().await;
    sb.server.push(bash_call(
        "echo file=[$PI_SESSION_FILE] id=[$PI_SESSION_ID]",
    ));
    sb.server.push(reply("done"));
    let args = ["--no-session", "--model", "mock/mock-model", "-p", "go"];
    let out = as_pi_user(&sb, &args, None).await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = last_text(&sb, 1);
    assert!(text.starts_with("file=[] id=["), "{text}");
    assert!(
        !text.starts_with("file=[] id=[]"),
        "an id even without a file: {text}"
    );
}

/// pi's names configure rho where they mean the same thing; rho's own name wins.
#[tokio::test]
async fn pis_environment_names_are_read_and_rhos_win() {
    let sb = Sandbox::new().await;
    let sessions = sb.cwd.join("pi-sessions");
    sb.server.push(reply("one"));
    let mut cmd = sb.command(&["-p", "hi"]);
    cmd.env_remove("RHO_CODING_AGENT_DIR")
        .env("PI_CODING_AGENT_DIR", sb.agent.path())
        .env("PI_CODING_AGENT_SESSION_DIR", &sessions);
    let out = cmd.output().await.expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(std::fs::read_dir(&sessions).expect("sessions").count(), 1);

    // Both names: rho's agent dir (with the models) wins over pi's (empty).
    let empty = tempfile::tempdir().unwrap();
    sb.server.push(reply("two"));
    let mut cmd = sb.command(&["--no-session", "-p", "hi"]);
    cmd.env("PI_CODING_AGENT_DIR", empty.path());
    let out = cmd.output().await.expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stdout(&out), "two\n");
}

/// `--offline` and pi's `PI_OFFLINE` keep a missing package from being installed.
#[tokio::test]
async fn pi_offline_stops_package_installs() {
    let sb = Sandbox::new().await;
    settings(&sb, json!({"packages": ["npm:rho-test-no-such-package"]}));
    sb.server.push(reply("ok"));
    let mut cmd = sb.command(&["--no-session", "-p", "hi"]);
    cmd.env("PI_OFFLINE", "1");
    let out = cmd.output().await.expect("runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("Installing"), "{}", stderr(&out));
}

/// The settings' `prompts` and `skills` lists load what pi loads: plain entries relative to
/// the settings file collect, globs keep only their matches, `!` and `-` leave out, and the
/// folders' files switch off by the same scope's `!`.
#[tokio::test]
async fn settings_resource_lists_with_patterns() {
    let sb = Sandbox::new().await;
    let agent = sb.agent.path();
    for (rel, text) in [
        ("mine/keep.md", "---\ndescription: keep\n---\nKeep"),
        ("mine/draft-x.md", "---\ndescription: draft\n---\nDraft"),
        ("mine/sub/deep.md", "---\ndescription: deep\n---\nDeep"),
        ("prompts/auto.md", "---\ndescription: auto\n---\nAuto"),
        ("prompts/quiet.md", "---\ndescription: quiet\n---\nQuiet"),
        (
            "lib/one/SKILL.md",
            "---\nname: one\ndescription: One.\n---\n",
        ),
        (
            "lib/old/SKILL.md",
            "---\nname: old\ndescription: Old.\n---\n",
        ),
    ] {
        let path = agent.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    settings(
        &sb,
        json!({"prompts": ["mine", "!**/draft-*", "!quiet.md"], "skills": ["lib", "-lib/old"]}),
    );
    let out = sb
        .rho(
            &["--mode", "rpc", "--rpc-dialect", "1.x", "--no-session"],
            Some("{\"id\":\"c\",\"type\":\"get_commands\"}\n"),
        )
        .await;
    let response: Value = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .find(|v| v["type"] == "response")
        .expect("response");
    let names: Vec<&str> = response["data"]["commands"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["llama", "mcp", "keep", "deep", "auto", "skill:one"],
        "pi's built-in commands first"
    );
}

/// prompt-templates.md's defaults: `${1:-…}` and `${@:-…}` when arguments are missing,
/// the arguments when given (quoted ones as one).
#[tokio::test]
async fn template_defaults_expand() {
    let sb = Sandbox::new().await;
    let file = sb.agent.path().join("prompts/review.md");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(
        &file,
        "---\ndescription: Review\n---\nFocus on ${1:-correctness}; rest: ${@:-nothing}.",
    )
    .unwrap();
    for (prompt, expected) in [
        ("/review", "Focus on correctness; rest: nothing."),
        (
            "/review \"API compat\" speed",
            "Focus on API compat; rest: API compat speed.",
        ),
    ] {
        sb.server.push(reply("ok"));
        let out = sb.rho(&["--no-session", "-p", prompt], None).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let body = sb.server.last_body();
        let user = chat_messages(&body).last().unwrap().1.clone();
        assert_eq!(user, expected);
    }
}

/// pi 1.6's flags: `--` ends options, `-a`/`-na` decide trust, and bad values stop rho with
/// pi's texts before anything runs.
#[tokio::test]
async fn pi_flags_and_their_errors() {
    let sb = Sandbox::new().await;
    sb.server.push(reply("ok"));
    let out = sb
        .rho(&["--no-session", "-p", "--", "-x looks like a flag"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let body = sb.server.last_body();
    assert_eq!(
        chat_messages(&body).last().unwrap().1,
        "-x looks like a flag"
    );

    let template = sb.cwd.join(".pi/prompts/deploy.md");
    std::fs::create_dir_all(template.parent().unwrap()).unwrap();
    std::fs::write(&template, "Deploy the project now").unwrap();
    for (flag, expected) in [("-a", "Deploy the project now"), ("-na", "/deploy")] {
        sb.server.push(reply("ok"));
        let out = sb.rho(&["--no-session", flag, "-p", "/deploy"], None).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let body = sb.server.last_body();
        assert_eq!(chat_messages(&body).last().unwrap().1, expected, "{flag}");
    }

    for (args, error) in [
        (
            &["--mode", "bogus"][..],
            "Error: Invalid mode \"bogus\". Valid values: text, json, rpc",
        ),
        (&["--mode"][..], "Error: --mode requires text, json, or rpc"),
        (
            &["--use-theme"][..],
            "Error: --use-theme requires a theme name",
        ),
        (
            &["--tui-mode", "wide"][..],
            "Error: Invalid TUI mode \"wide\". Valid values: regular, fullscreen",
        ),
        (
            &["--tools", "read,+bash"][..],
            "Error: --tools: tool names cannot be mixed with +name or -name entries",
        ),
        (
            &["-p", "hi", "--name"][..],
            "Error: --name requires a value",
        ),
    ] {
        let out = sb.rho(args, None).await;
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert_eq!(stderr(&out).trim_end(), error, "{args:?}");
    }
    let requests = sb.server.requests().len();
    assert_eq!(requests, 3, "no bad command line reached the model");
}

/// `retry.provider.maxRetries`: a request failing before its stream is sent again, exactly
/// 1 + N requests (agent-level retry off so only the provider's count).
#[tokio::test]
async fn provider_retries_send_one_plus_max_retries_requests() {
    let sb = Sandbox::new().await;
    settings(
        &sb,
        json!({"retry": {"enabled": false, "provider": {"maxRetries": 2}}}),
    );
    for _ in 0..3 {
        sb.server
            .push(openai_chat::error(503, openai_chat::ERROR_SERVER).header("retry-after-ms", "1"));
    }
    let out = sb.rho(&["--no-session", "-p", "hi"], None).await;
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert_eq!(sb.server.requests().len(), 3);
    assert!(stderr(&out).contains("503"), "{}", stderr(&out));

    sb.server
        .push(openai_chat::error(503, openai_chat::ERROR_SERVER));
    settings(&sb, json!({"retry": {"enabled": false}}));
    sb.rho(&["--no-session", "-p", "hi"], None).await;
    assert_eq!(sb.server.requests().len(), 4, "maxRetries 0: one request");
}

/// `thinkingBudgets` per level reaches the request: here a local server's
/// `thinkingTokenBudgetField`, with room left for the answer.
#[tokio::test]
async fn thinking_budgets_reach_the_request_body() {
    let sb = Sandbox::new().await;
    sb.write_models(&json!({"providers": {"mock": {
        "baseUrl": format!("{}/v1", sb.server.url()), "api": "openai-completions",
        "apiKey": "test-key",
        "models": [{"id": "think", "reasoning": true, "maxTokens": 32000,
            "compat": {"thinkingTokenBudgetField": "thinking_budget"}}]}}}));
    settings(&sb, json!({"thinkingBudgets": {"low": 1234, "high": 4321}}));
    for (level, budget) in [("high", 4321), ("low", 1234), ("medium", 8192)] {
        sb.server.push(reply("ok"));
        let args = [
            "--no-session",
            "--model",
            "mock/think",
            "--thinking",
            level,
            "-p",
            "q",
        ];
        let out = sb.rho(&args, None).await;
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(sb.server.last_body()["thinking_budget"], budget, "{level}");
    }
}

/// `compaction.modelOverrides["provider/model"]` beats the ordinary values: a reserve that
/// leaves 10 tokens makes the first reply compact the session; another model's does not.
#[tokio::test]
async fn compaction_model_overrides_beat_the_global_values() {
    let overrides = |key: &str| {
        json!({"compaction": {"reserveTokens": 16384, "keepRecentTokens": 20000,
            "modelOverrides": {key: {"reserveTokens": 31990, "keepRecentTokens": 1}}}})
    };
    let sb = Sandbox::new().await;
    settings(&sb, overrides("mock/other-model"));
    sb.server.push(reply("first answer"));
    let out = sb
        .rho(&["--model", "mock/mock-model", "-p", "hi"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(
        sb.server.requests().len(),
        1,
        "no compaction for this model"
    );

    let sb = Sandbox::new().await;
    settings(&sb, overrides("mock/mock-model"));
    sb.server.push(reply("first answer"));
    // The cut lands inside the only turn: its prefix is summarised (before it there is only
    // the recorded prompt, which is not conversation).
    sb.server.push(reply("## Goal\nSummarized."));
    let out = sb
        .rho(&["--model", "mock/mock-model", "-p", "hi"], None)
        .await;
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = sb.server.requests();
    assert_eq!(
        requests.len(),
        2,
        "the reply was followed by a summary request"
    );
    let summary = chat_messages(&requests[1].json());
    assert!(
        summary[0].1.contains("You summarize conversations"),
        "{summary:?}"
    );
    let file = sb.session_files().pop().expect("session");
    let compactions = read_jsonl(&file)
        .into_iter()
        .filter(|e| e["type"] == "compaction")
        .count();
    assert_eq!(compactions, 1);
}

/// `httpProxy` (agent-dir settings only) becomes `HTTP_PROXY`/`HTTPS_PROXY` for rho and what
/// it starts, as in pi; a proxy already in the environment wins.
#[tokio::test]
async fn http_proxy_setting_reaches_child_processes() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let sb = Sandbox::new().await;
    settings(&sb, json!({"httpProxy": "http://proxy.invalid:3128"}));
    // The answer is read before stdin closes (end of input stops a running command).
    let run = |mut cmd: tokio::process::Command| async move {
        let mut child = cmd.spawn().unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let bash = json!({"id": "b", "type": "bash", "command": "echo $HTTPS_PROXY $HTTP_PROXY"});
        stdin
            .write_all(format!("{bash}\n").as_bytes())
            .await
            .unwrap();
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        while let Some(line) = lines.next_line().await.unwrap() {
            let v: Value = serde_json::from_str(&line).unwrap();
            if v["type"] == "response" {
                drop(stdin);
                child.wait().await.unwrap();
                return v["data"]["output"].as_str().unwrap_or_default().to_string();
            }
        }
        panic!("no response");
    };
    let out = run(sb.command(&["--mode", "rpc", "--no-session"])).await;
    assert_eq!(out, "http://proxy.invalid:3128 http://proxy.invalid:3128\n");
    let mut cmd = sb.command(&["--mode", "rpc", "--no-session"]);
    cmd.env("HTTPS_PROXY", "http://mine:1");
    assert_eq!(run(cmd).await, "http://mine:1 http://proxy.invalid:3128\n");
}
