//! pi 1.6's `project_trust` event in `rho --mode rpc`: fired at start-up for a folder with
//! project resources and no `--approve`, to the command line's extensions before the
//! project's own load, with pi's trust context (`mode: "rpc"`, no UI, dialogs that answer
//! nothing, notices on stderr); the first yes or no decides ahead of trust.json, `remember`
//! saves it, `undecided` leaves it to the built-in flow. Skipped, with the reason printed,
//! without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support::{Rpc, Start};
use pi_support::notified;
use serde_json::{json, Value};

/// An extension answering `project_trust` with `answer` (`yes`, `no`, `undecided`, or
/// `throw` to fail), saved when `remember`; it first tries a dialog and notes what its
/// context held.
fn decider(answer: &str, remember: bool) -> String {
    let result = match answer {
        "throw" => "throw new Error(\"cannot decide\")".to_string(),
        _ => format!("return {{ trusted: \"{answer}\", remember: {remember} }}"),
    };
    format!(
        r#"
export default function (pi) {{
  pi.on("project_trust", async (event, ctx) => {{
    const picked = await ctx.ui.select("pick", ["a", "b"]);
    ctx.ui.notify(`{answer}: cwd=${{event.cwd}} ctx.cwd=${{ctx.cwd}} mode=${{ctx.mode}} hasUI=${{ctx.hasUI}} select=${{picked}} keys=${{Object.keys(ctx).sort()}}`, "info");
    {result};
  }});
}}
"#
    )
}

/// A home whose `work/` has a project prompt `/hello` (so it needs trust) and, when
/// `saved` says so, a trust.json decision for it.
fn project_home(saved: Option<bool>) -> tempfile::TempDir {
    let home = tempfile::tempdir().expect("tempdir");
    let prompts = home.path().join("work/.pi/prompts");
    std::fs::create_dir_all(&prompts).expect("prompts dir");
    std::fs::write(prompts.join("hello.md"), "Say hello").expect("prompt");
    if let Some(trusted) = saved {
        let agent = home.path().join("agent");
        std::fs::create_dir_all(&agent).expect("agent dir");
        let work = home.path().join("work").canonicalize().expect("work");
        let store = json!({ work.display().to_string(): trusted });
        std::fs::write(agent.join("trust.json"), store.to_string()).expect("trust.json");
    }
    home
}

async fn start(files: &[(&str, &str)], names: &[&str], saved: Option<bool>) -> Option<Rpc> {
    let home = project_home(saved);
    let stderr = home.path().join("stderr.txt");
    let opts = Start {
        home: Some(home),
        stderr_to: Some(stderr),
        ..Start::default()
    };
    pi_support::start_with_files(names, files, opts).await
}

/// Whether the project prompt `/hello` loaded (the project was trusted).
async fn project_loaded(rpc: &mut Rpc) -> bool {
    let r = rpc
        .call(json!({"id": "cmds", "type": "get_commands"}))
        .await;
    let names: Vec<&str> = r["data"]["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    names.contains(&"hello")
}

fn stderr(rpc: &Rpc) -> String {
    std::fs::read_to_string(rpc.home.path().join("stderr.txt")).unwrap_or_default()
}

fn saved(rpc: &Rpc) -> Value {
    let text = std::fs::read_to_string(rpc.home.path().join("agent/trust.json"));
    text.map_or(Value::Null, |t| {
        serde_json::from_str(&t).expect("trust.json")
    })
}

fn work(rpc: &Rpc) -> String {
    let work = rpc.home.path().join("work");
    work.canonicalize().expect("work").display().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_undecided_handler_then_a_remembered_yes_trusts_the_folder() {
    let (first, second) = (decider("undecided", false), decider("yes", true));
    let files = [("first.ts", first.as_str()), ("second.ts", second.as_str())];
    let Some(mut rpc) = start(&files, &[], None).await else {
        return;
    };
    assert!(project_loaded(&mut rpc).await, "trusted by the extension");
    let (err, cwd) = (stderr(&rpc), work(&rpc));
    for answer in ["undecided", "yes"] {
        let line = err
            .lines()
            .find(|l| l.starts_with(&format!("{answer}: ")))
            .unwrap_or_else(|| panic!("{answer} handler ran: {err}"));
        assert!(
            line.contains("mode=rpc hasUI=false select=undefined"),
            "{line}"
        );
        assert!(
            line.contains("keys=cwd,hasUI,mode,ui"),
            "pi's trust context: {line}"
        );
        assert!(
            line.contains(&format!("cwd={cwd} ctx.cwd={cwd} ")),
            "{line}"
        );
    }
    assert_eq!(saved(&rpc)[work(&rpc)], true, "remembered");
    assert_eq!(rpc.close().await, Some(0));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_no_for_this_run_wins_over_a_saved_yes_and_saves_nothing() {
    let (failing, no) = (decider("throw", false), decider("no", false));
    let files = [("failing.ts", failing.as_str()), ("no.ts", no.as_str())];
    let Some(mut rpc) = start(&files, &[], Some(true)).await else {
        return;
    };
    assert!(!project_loaded(&mut rpc).await, "the extension said no");
    assert_eq!(saved(&rpc)[work(&rpc)], true, "trust.json unchanged");
    let err = stderr(&rpc);
    assert!(
        err.contains("project_trust error: cannot decide"),
        "a failing handler is named and the next one asked: {err}"
    );
    assert!(err.contains("no: cwd="), "{err}");
    assert_eq!(rpc.close().await, Some(0));
}

/// pi's own example: in RPC it only says it fired (on stderr) and leaves the decision to
/// the built-in flow, which without a UI does not trust; it is loaded again afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pis_project_trust_example_fires_before_the_session_starts() {
    let Some(mut rpc) = start(&[], &["project-trust.ts"], None).await else {
        return;
    };
    let cwd = work(&rpc);
    notified(
        &mut rpc,
        &format!("project-trust example loaded after trust resolution in {cwd}"),
    )
    .await;
    assert!(
        !project_loaded(&mut rpc).await,
        "undecided, then not trusted"
    );
    let err = stderr(&rpc);
    let fired = format!("project_trust fired for {cwd} (mode: rpc, load: 1)");
    assert!(err.contains(&fired), "{err}");
    assert_eq!(rpc.close().await, Some(0));
}

/// Without project resources there is nothing to decide: the event does not fire.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_folder_with_nothing_to_protect_fires_no_event() {
    let source = decider("no", false);
    let files = [("no.ts", source.as_str())];
    let stderr_file = tempfile::NamedTempFile::new().expect("temp");
    let opts = Start {
        stderr_to: Some(stderr_file.path().to_path_buf()),
        ..Start::default()
    };
    let Some(rpc) = pi_support::start_with_files(&[], &files, opts).await else {
        return;
    };
    assert_eq!(rpc.close().await, Some(0));
    let err = std::fs::read_to_string(stderr_file.path()).unwrap_or_default();
    assert!(!err.contains("no: cwd="), "{err}");
}

const TRUSTED: &str = r#"
export default function (pi) {
  pi.registerCommand("trusted", {
    handler: async (_args, ctx) => ctx.ui.notify(`trusted ${ctx.isProjectTrusted()}`, "info"),
  });
}
"#;

/// `ctx.isProjectTrusted()` is the session's decision, as in pi: false when the user declined
/// trust (`--no-approve`), true when they gave it (`--approve`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_extension_sees_whether_the_project_is_trusted() {
    for (flag, expected) in [
        ("--no-approve", "trusted false"),
        ("--approve", "trusted true"),
    ] {
        let opts = Start {
            home: Some(project_home(None)),
            args: vec![flag.into()],
            ..Start::default()
        };
        let files = [("trusted.ts", TRUSTED)];
        let Some(mut rpc) = pi_support::start_with_files(&[], &files, opts).await else {
            return;
        };
        let sent = rpc
            .call(json!({"id": "c", "type": "prompt", "message": "/trusted"}))
            .await;
        assert_eq!(sent["success"], true, "{sent}");
        let note = rpc
            .wait(|v| {
                v["method"] == "notify"
                    && v["message"]
                        .as_str()
                        .is_some_and(|m| m.starts_with("trusted "))
            })
            .await;
        assert_eq!(note["message"], expected, "{flag}");
        assert_eq!(rpc.close().await, Some(0));
    }
}

/// A pi extension `name` that notes in `log` when its factory runs, when it is asked about
/// project trust (it leaves the decision to the rest) and when the session starts (with
/// `ctx.isProjectTrusted()`), and then says `started <name>`.
fn noting(name: &str, log: &std::path::Path) -> String {
    let log = serde_json::to_string(&log.display().to_string()).expect("json");
    format!(
        r#"
import {{ appendFileSync }} from "node:fs";
export default function (pi) {{
  appendFileSync({log}, "load {name}\n");
  pi.on("project_trust", async () => {{
    appendFileSync({log}, "asked {name}\n");
    return {{ trusted: "undecided" }};
  }});
  pi.on("session_start", async (_event, ctx) => {{
    appendFileSync({log}, `start {name} trusted=${{ctx.isProjectTrusted()}}\n`);
    ctx.ui.notify("started {name}", "info");
  }});
}}
"#
    )
}

/// A folder needing trust with the decision `saved` in trust.json, the user's extension
/// `user.ts` (asked about trust) and the project's own `.pi/extensions/project.ts`: what the
/// two noted once the session started.
async fn user_and_project_extensions(saved: bool) -> Option<Vec<String>> {
    let home = project_home(Some(saved));
    let log = home.path().join("log.txt");
    let user = home.path().join("agent/extensions/user.ts");
    let project = home.path().join("work/.pi/extensions/project.ts");
    for (path, name) in [(&user, "user"), (&project, "project")] {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, noting(name, &log)).expect("extension");
    }
    let opts = Start {
        home: Some(home),
        ..Start::default()
    };
    let mut rpc = pi_support::start_with_files(&[], &[], opts).await?;
    notified(&mut rpc, "started user").await;
    if saved {
        notified(&mut rpc, "started project").await;
    }
    let text = std::fs::read_to_string(&log).expect("log");
    assert_eq!(rpc.close().await, Some(0));
    Some(text.lines().map(str::to_string).collect())
}

/// As pi reuses the extensions it asked about trust: the user's extension is started once,
/// asked, and goes on into the session; the trusted project's own extension loads after it,
/// into the same host, and pi's order (the project's before the user's) holds for events;
/// both see the project trusted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_extensions_asked_about_trust_start_once_and_the_projects_join_them() {
    let Some(log) = user_and_project_extensions(true).await else {
        return;
    };
    assert_eq!(
        log,
        [
            "load user",
            "asked user",
            "load project",
            "start project trusted=true",
            "start user trusted=true",
        ],
        "each extension loaded once"
    );
}

/// Not trusted (a saved no): the user's extension, started once, sees it; none of the
/// project's own extensions load.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_untrusted_project_keeps_the_asked_extensions_and_loads_none_of_its_own() {
    let Some(log) = user_and_project_extensions(false).await else {
        return;
    };
    assert_eq!(
        log,
        ["load user", "asked user", "start user trusted=false"],
        "the user's extension loaded once, the project's not at all"
    );
}

/// A protocol extension (not pi's) that notes in `log` its `hello`'s trust, the events it
/// gets and the `trust` line, and says `py started` at `session_start`.
const NOTING_PY: &str = r#"
import json, sys
log = open(__file__ + ".log", "a")
def note(text):
    log.write(text + "\n")
    log.flush()
def send(msg):
    sys.stdout.write(json.dumps(msg) + "\n")
    sys.stdout.flush()
hello = json.loads(sys.stdin.readline())
note("hello trusted=%s" % json.dumps(hello.get("projectTrusted")))
send({"type": "register", "name": "noting", "events": ["project_trust", "session_start"]})
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "trust":
        note("trust trusted=%s" % json.dumps(msg["projectTrusted"]))
    elif msg["type"] == "event":
        note("event " + msg["event"]["type"])
        if msg["event"]["type"] == "session_start":
            send({"type": "call", "id": 1, "method": "ui_notify",
                  "params": {"message": "py started", "kind": "info"}})
        send({"type": "result", "id": msg["id"], "result": None})
"#;

/// A protocol extension asked about trust goes on into the session too: started once, told
/// the decision (a saved yes) by a `trust` line.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_process_extension_asked_about_trust_is_told_the_decision() {
    let home = project_home(Some(true));
    let ext = home.path().join("exts/noting.py");
    std::fs::create_dir_all(ext.parent().expect("parent")).expect("mkdir");
    std::fs::write(&ext, NOTING_PY).expect("extension");
    let opts = Start {
        home: Some(home),
        args: vec!["-e".into(), ext.display().to_string()],
        ..Start::default()
    };
    let mut rpc = crate::support::Rpc::start_with(opts).await;
    notified(&mut rpc, "py started").await;
    let log = std::fs::read_to_string(ext.with_extension("py.log")).expect("log");
    assert_eq!(
        log.lines().collect::<Vec<_>>(),
        [
            "hello trusted=false",
            "event project_trust",
            "trust trusted=true",
            "event session_start",
        ]
    );
    assert!(project_loaded(&mut rpc).await, "the saved yes");
    assert_eq!(rpc.close().await, Some(0));
}

/// Notes the prompts announced to it; `/heard` tells them.
const PROMPT_EARS: &str = r#"
export default function (pi) {
  const heard = [];
  pi.on("ui_prompt_start", (e) => void heard.push(`${e.kind} ${e.title}`));
  pi.registerCommand("heard", {
    description: "Tells the prompts announced",
    handler: async (_args, ctx) => ctx.ui.notify(`heard: ${heard.join(" | ")}`, "info"),
  });
}
"#;

/// pi asks `project_trust`'s dialogs outside its extension runner, so they are not announced
/// as `ui_prompt_start`; neither are they in rho.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_trust_question_s_dialogs_are_not_announced() {
    let asker = decider("yes", false);
    let files = [("ears.ts", PROMPT_EARS), ("asker.ts", asker.as_str())];
    let Some(mut rpc) = start(&files, &[], None).await else {
        return;
    };
    assert!(project_loaded(&mut rpc).await, "trusted by the extension");
    assert!(
        stderr(&rpc).contains("select=undefined"),
        "the dialog was asked"
    );
    let heard = json!({"id": "h", "type": "prompt", "message": "/heard"});
    assert_eq!(rpc.call(heard).await["success"], true);
    notified(&mut rpc, "heard: ").await;
    assert_eq!(rpc.close().await, Some(0));
}
