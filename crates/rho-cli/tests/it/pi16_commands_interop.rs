//! A pi 1.6 agent dir whose settings list `skills`, `prompts`, `themes` and `extensions` with
//! globs and `!`/`+`/`-` patterns (a project's `.pi/settings.json` too) loads the same
//! commands in rho as in pi 1.6.0: RPC `get_commands` of both, side by side, equal name by
//! name with their descriptions and `sourceInfo`. rho finds the agent dir through pi's
//! `PI_CODING_AGENT_DIR`. Needs node ≥ 22.19 and pi 1.6 (`.ci/run` installs both); skips
//! with the reason elsewhere.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use rho_testkit::pi16;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn prompt(description: &str) -> String {
    format!("---\ndescription: {description}\n---\nDo it for ${{1:-everything}}.\n")
}

fn skill(name: &str) -> String {
    format!("---\nname: {name}\ndescription: The {name} skill.\n---\nSteps.\n")
}

fn extension(command: &str) -> String {
    format!(
        "export default function (pi) {{ pi.registerCommand(\"{command}\", {{ description: \"{command} command\", handler: async () => {{}} }}); }}\n"
    )
}

/// The agent dir `home/agent` and project `home/work` both agents read.
fn lay_out(home: &Path) {
    let user = json!({
        "skills": ["../lib/skills", "!old-*"],
        "prompts": ["myprompts", "!**/draft-*", "../lib/prompts", "-../lib/prompts/off.md"],
        "themes": ["../lib/themes", "-../lib/themes/off.json"],
        "extensions": ["../lib/ext/listed.ts", "-extensions/hidden.ts", "-builtin:mcp"]
    });
    write(home, "agent/settings.json", &user.to_string());
    write(home, "agent/extensions/hello.ts", &extension("hello"));
    write(home, "agent/extensions/hidden.ts", &extension("hidden"));
    write(
        home,
        "agent/extensions/tool/index.ts",
        &extension("from-dir"),
    );
    write(home, "agent/prompts/auto.md", &prompt("auto prompt"));
    write(home, "agent/myprompts/mine.md", &prompt("mine"));
    write(home, "agent/myprompts/draft-wip.md", &prompt("draft"));
    write(home, "agent/myprompts/sub/deep.md", &prompt("deep one"));
    write(
        home,
        "agent/skills/auto-skill/SKILL.md",
        &skill("auto-skill"),
    );
    write(home, "lib/skills/listed/SKILL.md", &skill("listed"));
    write(home, "lib/skills/old-stuff/SKILL.md", &skill("old-stuff"));
    write(home, "lib/prompts/shared.md", &prompt("shared"));
    write(home, "lib/prompts/off.md", &prompt("off"));
    write(home, "lib/themes/on.json", r#"{"name":"on"}"#);
    write(home, "lib/themes/off.json", r#"{"name":"off"}"#);
    write(home, "lib/ext/listed.ts", &extension("listed"));
    let project = json!({"prompts": ["extra", "!extra/skip.md"], "extensions": ["+builtin:mcp"]});
    write(home, "work/.pi/settings.json", &project.to_string());
    write(
        home,
        "work/.pi/extra/proj-extra.md",
        &prompt("project extra"),
    );
    write(home, "work/.pi/extra/skip.md", &prompt("skipped"));
    write(home, "work/.pi/prompts/proj.md", &prompt("project prompt"));
    write(
        home,
        "work/.pi/skills/proj-skill/SKILL.md",
        &skill("proj-skill"),
    );
}

/// `get_commands` of rho in RPC mode, started as a pi user would: `PI_CODING_AGENT_DIR`.
async fn rho_commands(home: &Path, node: &Path) -> Value {
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_rho"))
        .args(["--mode", "rpc", "-a", "--no-session"])
        .current_dir(home.join("work"))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .env("PI_CODING_AGENT_DIR", home.join("agent"))
        .env("RHO_NODE", node)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .expect("rho starts");
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"{\"id\":\"c\",\"type\":\"get_commands\"}\n")
        .await
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    loop {
        let line = tokio::time::timeout(Duration::from_secs(60), lines.next_line())
            .await
            .expect("rho answers within a minute")
            .unwrap()
            .expect("rho exited early");
        let v: Value = serde_json::from_str(&line).unwrap();
        if v["type"] == "response" && v["id"] == "c" {
            assert_eq!(v["success"], true, "{v}");
            return v["data"]["commands"].clone();
        }
    }
}

#[tokio::test]
async fn a_pi_agent_dirs_resource_lists_load_the_same_commands_in_rho_and_pi() {
    let (node, _) = match pi16::pi16() {
        Ok(found) => found,
        Err(why) => {
            eprintln!("skipping: {why}");
            return;
        }
    };
    let home = tempfile::tempdir().unwrap();
    lay_out(home.path());
    let mut pi = pi16::Pi::start(home.path(), &home.path().join("work"), &["-a"]).expect("pi 1.6");
    let theirs = pi.call(json!({"type": "get_commands"})).await["data"]["commands"].clone();
    pi.stop().await;
    let ours = rho_commands(home.path(), &node).await;
    let names = |v: &Value| -> Vec<String> {
        v.as_array()
            .unwrap()
            .iter()
            .map(|c| c["name"].as_str().unwrap().to_string())
            .collect()
    };
    // The lists and patterns decided these (a sanity check that the fixture means something).
    for expected in [
        "listed",
        "from-dir",
        "mine",
        "deep",
        "shared",
        "proj-extra",
        "skill:listed",
    ] {
        assert!(
            names(&theirs).contains(&expected.to_string()),
            "pi: {expected}"
        );
    }
    for left_out in ["hidden", "draft-wip", "off", "skip", "skill:old-stuff"] {
        assert!(
            !names(&theirs).contains(&left_out.to_string()),
            "pi: {left_out}"
        );
    }
    assert_eq!(
        names(&ours),
        names(&theirs),
        "the same commands in the same order"
    );
    assert_eq!(ours, theirs, "descriptions and sourceInfo too");
}
