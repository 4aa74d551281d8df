//! D17: a project's `.pi/` folder (pi users' skills, prompts, settings, SYSTEM.md,
//! APPEND_SYSTEM.md, extensions) is read as well as `.rho/`; `.rho/` wins where both define
//! the same thing. Real directories, the real binary in RPC mode.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support;

use serde_json::{json, Value};
use support::{reply, Rpc, Start};

fn write(path: std::path::PathBuf, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
    std::fs::write(path, text).expect("write");
}

/// Starts rho in a work dir prepared by `prepare` (called with the work dir before start).
async fn start_in(prepare: impl FnOnce(&std::path::Path)) -> Rpc {
    let home = tempfile::tempdir().expect("tempdir");
    prepare(&home.path().join("work"));
    Rpc::start_with(Start {
        home: Some(home),
        // Project folders are read only in a trusted project.
        args: vec!["--approve".into()],
        ..Start::default()
    })
    .await
}

fn names(commands: &Value) -> Vec<(String, String)> {
    commands["data"]["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap_or("").to_string(),
                c["description"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn skills_and_prompts_of_pi_projects_are_found_and_rho_wins_on_a_clash() {
    let mut rpc = start_in(|work| {
        let tpl = |d: &str| format!("---\ndescription: {d}\n---\nbody {d}\n");
        let skill = |n: &str, d: &str| format!("---\nname: {n}\ndescription: {d}\n---\nbody\n");
        write(work.join(".pi/prompts/only-pi.md"), &tpl("from pi"));
        write(work.join(".pi/prompts/both.md"), &tpl("pi version"));
        write(work.join(".rho/prompts/both.md"), &tpl("rho version"));
        write(
            work.join(".pi/skills/pi-skill/SKILL.md"),
            &skill("pi-skill", "pi skill"),
        );
        write(
            work.join(".pi/skills/shared/SKILL.md"),
            &skill("shared", "pi shared"),
        );
        write(
            work.join(".rho/skills/shared/SKILL.md"),
            &skill("shared", "rho shared"),
        );
    })
    .await;
    let r = rpc.call(json!({"id": "c", "type": "get_commands"})).await;
    let found = names(&r);
    let has = |n: &str, d: &str| found.contains(&(n.to_string(), d.to_string()));
    assert!(has("only-pi", "from pi"), "{found:?}");
    assert!(has("both", "rho version"), "{found:?}");
    assert!(!has("both", "pi version"), "{found:?}");
    assert!(has("skill:pi-skill", "pi skill"), "{found:?}");
    assert!(has("skill:shared", "rho shared"), "{found:?}");
    assert!(!has("skill:shared", "pi shared"), "{found:?}");
    let pi_dir = rpc.work_dir().join(".pi").to_string_lossy().to_string();
    let info = r["data"]["commands"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["name"] == "only-pi"))
        .map(|c| c["sourceInfo"].clone())
        .expect("only-pi");
    assert_eq!(info["scope"], "project");
    assert_eq!(info["baseDir"], pi_dir.as_str());
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_prompt_files_and_settings_of_pi_projects_apply_under_rho_ones() {
    let mut rpc = start_in(|work| {
        write(work.join(".pi/SYSTEM.md"), "PI SYSTEM PROMPT");
        write(work.join(".pi/APPEND_SYSTEM.md"), "PI APPENDIX");
        write(work.join(".rho/APPEND_SYSTEM.md"), "RHO APPENDIX");
        write(
            work.join(".pi/settings.json"),
            r#"{"steeringMode": "all", "followUpMode": "all"}"#,
        );
        write(
            work.join(".rho/settings.json"),
            r#"{"followUpMode": "one-at-a-time"}"#,
        );
    })
    .await;
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    assert_eq!(state["data"]["steeringMode"], "all", "from .pi: {state}");
    assert_eq!(
        state["data"]["followUpMode"], "one-at-a-time",
        ".rho wins: {state}"
    );
    rpc.server.push(reply("ok"));
    rpc.prompt_ok("p", "hi").await;
    let body = rpc.server.last_body();
    let system = body["messages"][0]["content"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(system.starts_with("PI SYSTEM PROMPT"), "{system}");
    assert!(system.contains("RHO APPENDIX"), "{system}");
    assert!(
        !system.contains("PI APPENDIX"),
        ".rho's file wins: {system}"
    );
    assert_eq!(rpc.close().await, Some(0));
}
