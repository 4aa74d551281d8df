//! What a pi extension registers after loading, from an event handler or a command (pi 1.6's
//! docs/extensions.md, custom-provider.md, virtual-models.md), over RPC: pi applies each at
//! once, and so does rho. A command registered at `session_start` is listed by `get_commands`
//! and runs; pi 1.6, when installed, lists it too. A provider registered from a command is
//! listed by `get_available_models`, selectable, and answers from the loopback server; after
//! `unregisterProvider` it is gone. A virtual model registered at `session_start` is listed,
//! selectable and routed; after `unregisterVirtualModel` it is neither listed nor routed. Skipped, with the reason printed, without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support::{Rpc, Start};

use pi_support::notified;
use serde_json::{json, Value};

/// Registers `/late-hello` at `session_start`, then says so.
const LATE: &str = r#"
export default function (pi) {
  pi.on("session_start", (_event, ctx) => {
    pi.registerCommand("late-hello", {
      description: "Registered at session start",
      handler: async (args, ctx) => ctx.ui.notify(`late hello ${args}`, "info"),
    });
    ctx.ui.notify("late command registered", "info");
  });
}
"#;

/// `/late-provider <baseUrl>` registers provider `lateprov` at that URL; `/drop-provider`
/// unregisters it.
const PROVIDER: &str = r#"
export default function (pi) {
  pi.registerCommand("late-provider", {
    description: "Registers lateprov",
    handler: async (url, ctx) => {
      pi.registerProvider("lateprov", {
        baseUrl: url,
        apiKey: "late-key",
        api: "openai-completions",
        models: [{ id: "late-model", name: "Late model", reasoning: false, input: ["text"],
                   cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
                   contextWindow: 100000, maxTokens: 1000 }],
      });
      ctx.ui.notify("lateprov registered", "info");
    },
  });
  pi.registerCommand("drop-provider", {
    description: "Unregisters lateprov",
    handler: async (_args, ctx) => {
      pi.unregisterProvider("lateprov");
      ctx.ui.notify("lateprov unregistered", "info");
    },
  });
}
"#;

/// Registers virtual model `late-router/auto` (routing every request to mock/m2) at
/// `session_start`; `/drop-router` unregisters it.
const ROUTER: &str = r#"
export default function (pi) {
  pi.on("session_start", (_event, ctx) => {
    pi.registerVirtualModel({
      provider: "late-router",
      id: "auto",
      name: "Late auto",
      contextWindow: 50000,
      route: (_request, ctx) => ({ model: ctx.modelRegistry.find("mock", "m2"), thinkingLevel: "off" }),
    });
    ctx.ui.notify("late router registered", "info");
  });
  pi.registerCommand("drop-router", {
    description: "Unregisters late-router/auto",
    handler: async (_args, ctx) => {
      pi.unregisterVirtualModel("late-router", "auto");
      ctx.ui.notify("late router unregistered", "info");
    },
  });
}
"#;

async fn start(files: &[(&str, &str)]) -> Option<Rpc> {
    pi_support::start_with_files(&[], files, Start::default()).await
}

async fn commands(rpc: &mut Rpc) -> Vec<Value> {
    let r = rpc.call(json!({"id": "gc", "type": "get_commands"})).await;
    r["data"]["commands"]
        .as_array()
        .cloned()
        .unwrap_or_default()
}

async fn prompt(rpc: &mut Rpc, id: &str, text: &str) {
    let r = rpc
        .call(json!({"id": id, "type": "prompt", "message": text}))
        .await;
    assert_eq!(r["success"], true, "{r}");
}

fn no_unsupported_notice(rpc: &Rpc) {
    let seen: Vec<String> = rpc.seen.iter().map(Value::to_string).collect();
    assert!(
        !seen.iter().any(|l| l.contains("not supported")),
        "no \"not supported\" notice: {seen:#?}"
    );
}

/// `get_commands`' extension commands as `(name, description)`.
fn extension_commands(commands: &[Value]) -> Vec<(String, String)> {
    commands
        .iter()
        .filter(|c| c["source"] == "extension")
        .map(|c| {
            let text = |k: &str| c[k].as_str().unwrap_or_default().to_string();
            (text("name"), text("description"))
        })
        .collect()
}

/// pi 1.6's extension commands with the extension `source` loaded, once it has told something,
/// when pi 1.6 is installed.
async fn pi_extension_commands(source: &str) -> Option<Vec<(String, String)>> {
    let home = tempfile::tempdir().expect("home");
    let mut pi = pi_support::start_pi(&home, source, &["--no-session"])?;
    // Once its session_start handler has run (it says so).
    pi.wait_for("extension_ui_request").await;
    let listed = pi.call(json!({"type": "get_commands"})).await;
    pi.stop().await;
    let all = listed["data"]["commands"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let mut own = extension_commands(&all);
    own.retain(|(name, _)| !crate::pi_compare::PI_BUILTIN_COMMANDS.contains(&name.as_str()));
    Some(own)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_registered_at_session_start_is_listed_and_runs() {
    let Some(mut rpc) = start(&[("late.ts", LATE)]).await else {
        return;
    };
    notified(&mut rpc, "late command registered").await;
    let listed = commands(&mut rpc).await;
    let late = listed
        .iter()
        .find(|c| c["name"] == "late-hello")
        .unwrap_or_else(|| panic!("late-hello listed: {listed:#?}"));
    assert_eq!(late["description"], "Registered at session start");
    assert_eq!(late["source"], "extension");
    let file = rpc.agent_dir().parent().unwrap().join("exts/late.ts");
    assert_eq!(
        late["sourceInfo"]["path"],
        json!(file.display().to_string())
    );

    prompt(&mut rpc, "c1", "/late-hello there").await;
    notified(&mut rpc, "late hello there").await;
    no_unsupported_notice(&rpc);
    assert_eq!(rpc.close().await, Some(0));

    if let Some(pi) = pi_extension_commands(LATE).await {
        assert_eq!(extension_commands(&listed), pi, "rho lists what pi lists");
    }
}

/// `provider/id` of a model in a `get_available_models` answer.
fn model_key(m: &Value) -> String {
    let text = |k: &str| m[k].as_str().unwrap_or_default().to_string();
    format!("{}/{}", text("provider"), text("id"))
}

/// The `provider/id` of every model `get_available_models` lists.
async fn available(rpc: &mut Rpc) -> Vec<String> {
    let r = rpc
        .call(json!({"id": "am", "type": "get_available_models"}))
        .await;
    let models = r["data"]["models"].as_array().cloned().unwrap_or_default();
    models.iter().map(model_key).collect()
}

/// How long pi 1.6 may take to list a change: its registry answers `get_available_models`
/// from a snapshot that a background refresh rewrites after each registration, so a listing
/// right after one may still show the state before it.
const PI_SETTLES: std::time::Duration = std::time::Duration::from_secs(10);

/// Whether pi 1.6 lists `model` (`provider/id`) in `get_available_models` with the extension
/// `source` loaded, at start (after its first notice when `notices`) and after each of
/// `commands`: at each step the listing once it shows `expected`'s value, or the last one
/// within [`PI_SETTLES`]. `None` without pi 1.6.
async fn pi_lists(
    source: &str,
    notices: bool,
    model: &str,
    (commands, expected): (&[String], &[bool]),
) -> Option<Vec<bool>> {
    let home = tempfile::tempdir().expect("home");
    let mut pi = pi_support::start_pi(&home, source, &["--no-session"])?;
    if notices {
        pi.wait_for("extension_ui_request").await;
    }
    let mut seen = Vec::new();
    let steps = std::iter::once(None).chain(commands.iter().map(Some));
    for (command, want) in steps.zip(expected) {
        if let Some(command) = command {
            // Once the command has run (each tells so).
            let prompt = json!({"type": "prompt", "message": command});
            pi.call_and_see(prompt, |v| v["type"] == "extension_ui_request")
                .await;
        }
        let deadline = tokio::time::Instant::now() + PI_SETTLES;
        let listed = loop {
            let r = pi.call(json!({"type": "get_available_models"})).await;
            let models = r["data"]["models"].as_array().cloned().unwrap_or_default();
            let listed = models.iter().any(|m| model_key(m) == model);
            if listed == *want || tokio::time::Instant::now() > deadline {
                break listed;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        };
        seen.push(listed);
    }
    pi.stop().await;
    Some(seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_provider_registered_from_a_command_is_listed_used_and_unregistered() {
    let Some(mut rpc) = start(&[("provider.ts", PROVIDER)]).await else {
        return;
    };
    let late = "lateprov/late-model".to_string();
    let mut seen = vec![available(&mut rpc).await.contains(&late)];
    let url = format!("{}/v1", rpc.server.url());
    prompt(&mut rpc, "c1", &format!("/late-provider {url}")).await;
    notified(&mut rpc, "lateprov registered").await;
    seen.push(available(&mut rpc).await.contains(&late));

    let set =
        json!({"id": "sm", "type": "set_model", "provider": "lateprov", "modelId": "late-model"});
    let set = rpc.call(set).await;
    assert_eq!(set["success"], true, "{set}");
    rpc.server
        .push(crate::support::reply("From the late provider."));
    rpc.prompt_ok("p", "hello").await;
    let request = &rpc.server.requests()[0];
    assert_eq!(request.json()["model"], "late-model");
    assert_eq!(request.header("authorization"), Some("Bearer late-key"));

    prompt(&mut rpc, "c2", "/drop-provider").await;
    notified(&mut rpc, "lateprov unregistered").await;
    let listed = available(&mut rpc).await;
    seen.push(listed.contains(&late));
    assert_eq!(
        seen,
        [false, true, false],
        "listed once registered, until unregistered"
    );
    assert!(
        listed.contains(&"mock/m1".to_string()),
        "the others stay: {listed:?}"
    );
    no_unsupported_notice(&rpc);
    assert_eq!(rpc.close().await, Some(0));

    let commands = [
        format!("/late-provider {url}"),
        "/drop-provider".to_string(),
    ];
    if let Some(pi) = pi_lists(PROVIDER, false, &late, (&commands, &seen)).await {
        assert_eq!(seen, pi, "rho lists lateprov when pi does");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_virtual_model_registered_at_session_start_is_routed_until_unregistered() {
    let Some(mut rpc) = start(&[("router.ts", ROUTER)]).await else {
        return;
    };
    notified(&mut rpc, "late router registered").await;
    let auto = "late-router/auto".to_string();
    let mut seen = vec![available(&mut rpc).await.contains(&auto)];
    let set =
        json!({"id": "sm", "type": "set_model", "provider": "late-router", "modelId": "auto"});
    let set = rpc.call(set).await;
    assert_eq!(set["success"], true, "{set}");
    rpc.server.push(crate::support::reply("Routed."));
    rpc.prompt_ok("p1", "hello").await;
    assert_eq!(
        rpc.server.requests()[0].json()["model"],
        "m2",
        "routed to mock/m2"
    );

    prompt(&mut rpc, "c1", "/drop-router").await;
    notified(&mut rpc, "late router unregistered").await;
    seen.push(available(&mut rpc).await.contains(&auto));
    assert_eq!(seen, [true, false], "listed until unregistered");
    // Still selected but gone: its provider has no credentials any more, nothing is sent.
    let refused = rpc
        .call(json!({"id": "p2", "type": "prompt", "message": "again"}))
        .await;
    assert_eq!(refused["success"], false, "{refused}");
    assert!(
        refused["error"]
            .as_str()
            .unwrap_or_default()
            .contains("late-router"),
        "{refused}"
    );
    assert_eq!(rpc.server.requests().len(), 1, "nothing more was sent");
    no_unsupported_notice(&rpc);
    assert_eq!(rpc.close().await, Some(0));

    if let Some(pi) = pi_lists(ROUTER, true, &auto, (&["/drop-router".to_string()], &seen)).await {
        assert_eq!(seen, pi, "rho lists the virtual model when pi does");
    }
}
