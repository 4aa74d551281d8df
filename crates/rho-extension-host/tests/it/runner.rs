//! Runner behaviour: chaining, short-circuits, isolation (rules IN-, MSG-5, EXT-, CMD-).

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use futures_util::future::BoxFuture;
use rho_agent::AgentMessage;
use rho_ai::{ContentBlock, ImageContent, Model, UserMessage};
use serde_json::{json, Value};

use rho_extension_host::runner::ToolOutcome;
use rho_extension_host::*;

struct TestHost;

impl ExtensionHost for TestHost {
    fn cwd(&self) -> PathBuf {
        PathBuf::from("/work")
    }
    fn model(&self) -> Option<Model> {
        None
    }
    fn is_idle(&self) -> bool {
        true
    }
    fn has_pending_messages(&self) -> bool {
        false
    }
    fn system_prompt(&self) -> String {
        "BASE".into()
    }
    fn abort(&self) {}
    fn send_message(
        &self,
        _: CustomMessageInput,
        _: SendOptions,
    ) -> BoxFuture<'static, Result<(), HostError>> {
        Box::pin(async { Ok(()) })
    }
    fn send_user_message(
        &self,
        _: String,
        _: Vec<ImageContent>,
        _: Option<DeliverAs>,
    ) -> BoxFuture<'static, Result<(), HostError>> {
        Box::pin(async { Ok(()) })
    }
    fn append_entry(&self, _: String, _: Option<Value>) -> Result<(), HostError> {
        Ok(())
    }
    fn set_session_name(&self, _: String) -> Result<(), HostError> {
        Ok(())
    }
}

pub(crate) fn ctx() -> ExtensionContext {
    ExtensionContext::new(Arc::new(TestHost), Arc::new(NoUi))
}

/// A handler from a plain closure over the event.
pub(crate) fn handler(
    f: impl Fn(ExtensionEvent, ExtensionContext) -> Result<Option<Value>, String>
        + Send
        + Sync
        + 'static,
) -> EventHandler {
    let f = Arc::new(f);
    Arc::new(move |e, c| {
        let f = f.clone();
        Box::pin(async move { f(e, c) })
    })
}

fn input_text(e: &ExtensionEvent) -> String {
    match e {
        ExtensionEvent::Input { text, .. } => text.clone(),
        _ => String::new(),
    }
}

pub(crate) type Reports = Arc<Mutex<Vec<ExtensionErrorReport>>>;

pub(crate) fn runner(exts: Vec<Extension>) -> (ExtensionRunner, Reports) {
    let reports: Reports = Default::default();
    let r = reports.clone();
    (
        ExtensionRunner::new(exts, Arc::new(move |e| r.lock().expect("lock").push(e))),
        reports,
    )
}

#[tokio::test]
async fn in_4_three_extensions_transform_transform_continue() {
    let mut a = Extension::new("a.ext");
    a.on(
        "input",
        handler(|e, _| {
            Ok(Some(
                json!({"action": "transform", "text": format!("A<{}", input_text(&e))}),
            ))
        }),
    );
    let mut b = Extension::new("b.ext");
    b.on(
        "input",
        handler(|e, _| {
            Ok(Some(
                json!({"action": "transform", "text": format!("{}>B", input_text(&e))}),
            ))
        }),
    );
    let mut c = Extension::new("c.ext");
    c.on(
        "input",
        handler(|_, _| Ok(Some(json!({"action": "continue"})))),
    );
    let (r, _) = runner(vec![a, b, c]);
    let out = r.emit_input("hello", &[], "rpc", None, &ctx()).await;
    assert_eq!(
        out,
        InputOutcome::Transform {
            text: "A<hello>B".into(),
            images: vec![]
        }
    );
}

#[tokio::test]
async fn in_3_handled_short_circuits_later_handlers() {
    let calls = Arc::new(Mutex::new(0));
    let mut a = Extension::new("a");
    a.on(
        "input",
        handler(|_, _| Ok(Some(json!({"action": "handled"})))),
    );
    let mut b = Extension::new("b");
    let c2 = calls.clone();
    b.on(
        "input",
        handler(move |_, _| {
            *c2.lock().expect("lock") += 1;
            Ok(None)
        }),
    );
    let (r, _) = runner(vec![a, b]);
    assert_eq!(
        r.emit_input("x", &[], "interactive", None, &ctx()).await,
        InputOutcome::Handled
    );
    assert_eq!(*calls.lock().expect("lock"), 0);
}

#[tokio::test]
async fn in_6_failing_handler_is_reported_and_chain_continues() {
    let mut a = Extension::new("a.ext");
    a.on("input", handler(|_, _| Err("boom".into())));
    let mut b = Extension::new("b.ext");
    b.on(
        "input",
        handler(|e, _| {
            Ok(Some(
                json!({"action": "transform", "text": format!("{}!", input_text(&e))}),
            ))
        }),
    );
    let (r, reports) = runner(vec![a, b]);
    let out = r.emit_input("x", &[], "interactive", None, &ctx()).await;
    assert_eq!(
        out,
        InputOutcome::Transform {
            text: "x!".into(),
            images: vec![]
        }
    );
    let reports = reports.lock().expect("lock");
    assert_eq!(
        reports[0],
        ExtensionErrorReport {
            extension_path: "a.ext".into(),
            event: "input".into(),
            error: "boom".into()
        }
    );
}

#[tokio::test]
async fn in_7_identical_transform_is_continue() {
    let mut a = Extension::new("a");
    a.on(
        "input",
        handler(|e, _| Ok(Some(json!({"action": "transform", "text": input_text(&e)})))),
    );
    let (r, _) = runner(vec![a]);
    assert_eq!(
        r.emit_input("same", &[], "interactive", None, &ctx()).await,
        InputOutcome::Continue
    );
}

#[tokio::test]
async fn msg_5_system_prompt_chains_and_messages_collect() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut a = Extension::new("a");
    a.on(
        "before_agent_start",
        handler(|e, _| {
            let ExtensionEvent::BeforeAgentStart { system_prompt, .. } = e else {
                return Ok(None);
            };
            Ok(Some(json!({"systemPrompt": format!("{system_prompt}+A"),
                       "message": {"customType": "note", "content": "from a", "display": true}})))
        }),
    );
    let mut b = Extension::new("b");
    let s2 = seen.clone();
    b.on(
        "before_agent_start",
        handler(move |e, c| {
            s2.lock().expect("lock").push(c.system_prompt());
            let ExtensionEvent::BeforeAgentStart { system_prompt, .. } = e else {
                return Ok(None);
            };
            Ok(Some(json!({"systemPrompt": format!("{system_prompt}+B")})))
        }),
    );
    let (r, _) = runner(vec![a, b]);
    let (msgs, sp) = r
        .emit_before_agent_start("p", &[], "BASE", json!({}), &ctx())
        .await;
    assert_eq!(sp.as_deref(), Some("BASE+A+B"));
    assert_eq!(seen.lock().expect("lock")[0], "BASE+A");
    assert_eq!(msgs.len(), 1);
    assert_eq!(msgs[0].custom_type, "note");
}

#[tokio::test]
async fn ext_10_tool_call_block_and_throw_block() {
    let mut a = Extension::new("guard");
    a.on(
        "tool_call",
        handler(|e, _| {
            let ExtensionEvent::ToolCall { input, .. } = e else {
                return Ok(None);
            };
            if input["command"]
                .as_str()
                .is_some_and(|c| c.contains("rm -rf"))
            {
                return Ok(Some(json!({"block": true, "reason": "nope"})));
            }
            Ok(None)
        }),
    );
    let (r, _) = runner(vec![a]);
    let mut input = json!({"command": "rm -rf /"});
    let res = r
        .emit_tool_call("bash", "t1", &mut input, &ctx())
        .await
        .expect("blocked");
    assert_eq!(res.reason.as_deref(), Some("nope"));
    let mut ok = json!({"command": "ls"});
    assert!(r
        .emit_tool_call("bash", "t2", &mut ok, &ctx())
        .await
        .is_none());

    let mut t = Extension::new("thrower");
    t.on("tool_call", handler(|_, _| Err("tc threw".into())));
    let (r, reports) = runner(vec![t]);
    let res = r
        .emit_tool_call("bash", "t3", &mut ok, &ctx())
        .await
        .expect("blocked by throw");
    assert_eq!((res.block, res.reason.as_deref()), (true, Some("tc threw")));
    assert!(
        reports.lock().expect("lock").is_empty(),
        "tool_call errors block, they are not isolated"
    );
}

#[tokio::test]
async fn ext_11_tool_result_patches_field_by_field() {
    let mut a = Extension::new("a");
    a.on(
        "tool_result",
        handler(|_, _| Ok(Some(json!({"content": [{"type": "text", "text": "A"}]})))),
    );
    let mut b = Extension::new("b");
    b.on(
        "tool_result",
        handler(|_, _| Ok(Some(json!({"isError": true})))),
    );
    let (r, _) = runner(vec![a, b]);
    let start = ToolOutcome {
        content: vec![ContentBlock::text("orig")],
        details: None,
        is_error: false,
    };
    let out = r
        .emit_tool_result("read", "t", &json!({}), start, &ctx())
        .await;
    assert_eq!(out.content, vec![ContentBlock::text("A")]);
    assert!(out.is_error);
}

#[tokio::test]
async fn ext_12_message_end_replacement_must_keep_role() {
    let mut a = Extension::new("a");
    a.on("message_end", handler(|_, _| {
        Ok(Some(json!({"message": {"role": "custom", "customType": "x", "content": "y", "display": true, "timestamp": 1}})))
    }));
    let (r, reports) = runner(vec![a]);
    let user = AgentMessage::User(UserMessage::text("hi"));
    assert!(r.emit_message_end(&user, &ctx()).await.is_none());
    assert_eq!(
        reports.lock().expect("lock")[0].error,
        "message_end handlers must return a message with the same role"
    );

    let mut b = Extension::new("b");
    b.on(
        "message_end",
        handler(|_, _| {
            Ok(Some(
                json!({"message": {"role": "user", "content": "replaced", "timestamp": 2}}),
            ))
        }),
    );
    let (r, _) = runner(vec![b]);
    let replaced = r.emit_message_end(&user, &ctx()).await.expect("replaced");
    assert_eq!(replaced.role(), "user");
}

#[tokio::test]
async fn ext_4_session_before_cancel_short_circuits() {
    let later = Arc::new(Mutex::new(0));
    let mut a = Extension::new("a");
    a.on(
        "session_before_compact",
        handler(|_, _| Ok(Some(json!({"cancel": true})))),
    );
    let mut b = Extension::new("b");
    let l2 = later.clone();
    b.on(
        "session_before_compact",
        handler(move |_, _| {
            *l2.lock().expect("lock") += 1;
            Ok(None)
        }),
    );
    let (r, _) = runner(vec![a, b]);
    let event = ExtensionEvent::SessionBeforeCompact {
        preparation: json!({}),
        branch_entries: json!([]),
        custom_instructions: None,
        reason: "manual".into(),
        will_retry: false,
    };
    assert!(
        r.emit_session_before(event, &ctx())
            .await
            .expect("result")
            .cancel
    );
    assert_eq!(*later.lock().expect("lock"), 0);
}

fn command(
    name: &str,
    f: impl Fn(String) -> Result<(), String> + Send + Sync + 'static,
) -> CommandDef {
    let f = Arc::new(f);
    CommandDef {
        complete: None,
        name: name.into(),
        description: None,
        handler: Arc::new(move |args, _| {
            let f = f.clone();
            Box::pin(async move { f(args) })
        }),
    }
}

#[tokio::test]
async fn cmd_5_commands_run_and_failures_are_reported_as_handled() {
    let got = Arc::new(Mutex::new(String::new()));
    let g2 = got.clone();
    let mut a = Extension::new("a");
    a.register_command(command("hello", move |args| {
        *g2.lock().expect("lock") = args;
        Ok(())
    }));
    a.register_command(command("fail", |_| Err("bad".into())));
    let (r, reports) = runner(vec![a]);
    assert!(r.execute_command("/hello  a b ", &ctx()).await);
    assert_eq!(*got.lock().expect("lock"), " a b ");
    assert!(r.execute_command("/fail", &ctx()).await);
    assert_eq!(
        reports.lock().expect("lock")[0].extension_path,
        "command:fail"
    );
    assert!(!r.execute_command("/nocmd hi", &ctx()).await);
}

#[tokio::test]
async fn cmd_1_and_2_replacement_and_collisions() {
    let mut a = Extension::new("a");
    a.register_command(command("x", |_| Err("first".into())));
    a.register_command(command("x", |_| Ok(())));
    a.register_command(command("dup", |_| Ok(())));
    let mut b = Extension::new("b");
    b.register_command(command("dup", |_| Ok(())));
    let (r, _) = runner(vec![a, b]);
    let names: Vec<String> = r.commands().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["x", "dup:1", "dup:2"]);
    assert!(r.get_command("dup").is_none());
}

/// pi's `registerCommand` after loading: the command is listed after the loaded ones and
/// runs; the same name from the same file replaces it in place (a loaded one too), another
/// file's gets a numbered name; replacing the extension set forgets them.
#[tokio::test]
async fn commands_registered_after_loading_are_listed_and_replace_their_own() {
    let mut a = Extension::new("a");
    a.register_command(command("x", |_| Err("loaded".into())));
    a.register_command(command("y", |_| Ok(())));
    let (r, reports) = runner(vec![a]);
    r.add_command(command("late", |_| Ok(())), "a".into());
    r.add_command(command("x", |_| Ok(())), "a".into());
    r.add_command(command("y", |_| Ok(())), "b".into());
    let names: Vec<String> = r.commands().into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["x", "y:1", "late", "y:2"]);
    let paths: Vec<String> = r.command_paths().into_iter().map(|(_, p)| p).collect();
    assert_eq!(paths, ["a", "a", "a", "b"]);
    assert!(r.execute_command("/x", &ctx()).await);
    assert!(r.execute_command("/late", &ctx()).await);
    assert!(reports.lock().expect("lock").is_empty(), "the late /x ran");
    r.replace(vec![Extension::new("a")]);
    assert!(r.commands().is_empty());
}

fn virtual_model(provider: &str, id: &str, answer: &'static str) -> VirtualModelDef {
    let spec = serde_json::from_value(json!({"provider": provider, "id": id})).expect("spec");
    VirtualModelDef {
        spec,
        route: Arc::new(move |_, _| Box::pin(async move { Ok(json!(answer)) })),
    }
}

async fn routed(r: &ExtensionRunner, provider: &str, id: &str) -> Option<Value> {
    let route = r.virtual_route(provider, id)?;
    route(json!({}), ctx()).await.ok()
}

/// pi's `registerVirtualModel` / `unregisterVirtualModel` after loading: a later registration
/// routes in place of the loaded one; unregistered, neither routes; registered again, it does.
#[tokio::test]
async fn virtual_models_registered_and_unregistered_after_loading_route_as_the_latest_says() {
    let mut a = Extension::new("a");
    a.register_virtual_model(virtual_model("r", "auto", "loaded"));
    let (r, _) = runner(vec![a]);
    assert_eq!(routed(&r, "r", "auto").await, Some(json!("loaded")));
    r.add_virtual_model(virtual_model("r", "auto", "late"));
    r.add_virtual_model(virtual_model("r", "other", "other"));
    assert_eq!(routed(&r, "r", "auto").await, Some(json!("late")));
    r.remove_virtual_model("r", "auto");
    assert!(
        r.virtual_route("r", "auto").is_none(),
        "the loaded one is gone too"
    );
    assert_eq!(routed(&r, "r", "other").await, Some(json!("other")));
    r.add_virtual_model(virtual_model("r", "auto", "again"));
    assert_eq!(routed(&r, "r", "auto").await, Some(json!("again")));
}

/// pi 1.6's `project_trust`: `undecided`, nothing and a failure (reported) go on to the next
/// handler; the first yes or no decides and later handlers are not asked.
#[tokio::test]
async fn project_trust_the_first_yes_or_no_decides() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let answering = |name: &'static str, answer: Result<Option<Value>, String>| {
        let asked = asked.clone();
        let mut ext = Extension::new(name);
        ext.on(
            "project_trust",
            handler(move |e, _| {
                let ExtensionEvent::ProjectTrust { cwd } = e else {
                    return Ok(None);
                };
                asked.lock().expect("lock").push(format!("{name} {cwd}"));
                answer.clone()
            }),
        );
        ext
    };
    let exts = vec![
        answering("undecided.ext", Ok(Some(json!({"trusted": "undecided"})))),
        answering("silent.ext", Ok(None)),
        answering("failing.ext", Err("cannot decide".into())),
        answering(
            "no.ext",
            Ok(Some(json!({"trusted": "no", "remember": true}))),
        ),
        answering("yes.ext", Ok(Some(json!({"trusted": "yes"})))),
    ];
    let (r, reports) = runner(exts);
    let answer = r.emit_project_trust("/proj".into(), &ctx()).await;
    assert_eq!(
        answer,
        Some(events::ProjectTrustResult {
            trusted: events::TrustAnswer::No,
            remember: true
        })
    );
    assert_eq!(
        *asked.lock().expect("lock"),
        [
            "undecided.ext /proj",
            "silent.ext /proj",
            "failing.ext /proj",
            "no.ext /proj"
        ]
    );
    let failed: Vec<(String, String)> = reports
        .lock()
        .expect("lock")
        .iter()
        .map(|r| (r.extension_path.clone(), r.event.clone()))
        .collect();
    assert_eq!(failed, [("failing.ext".into(), "project_trust".into())]);
    let (none, _) = runner(vec![answering("undecided.ext", Ok(None))]);
    assert_eq!(none.emit_project_trust("/proj".into(), &ctx()).await, None);
}
