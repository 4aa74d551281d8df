//! The engine with a real VM: calls, output, limits, deadline, abort and the store.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use rho_codemode::run::CallStatus;
use rho_codemode::{execute, CallHandler, Execution, OutputItem, ScriptError, ScriptTool};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

/// `echo` resolves to its arguments, `fail` rejects, `hang` waits for its cancellation and
/// reports it on the channel.
struct Handler {
    cancelled: tokio::sync::mpsc::UnboundedSender<()>,
}

impl CallHandler for Handler {
    fn call_tool(
        &self,
        name: &str,
        args: Value,
        cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Option<Value>, String>> {
        let name = name.to_string();
        let cancelled = self.cancelled.clone();
        Box::pin(async move {
            match name.as_str() {
                "echo" => Ok(Some(args)),
                "hang" => {
                    cancel.cancelled().await;
                    let _ = cancelled.send(());
                    Err("cancelled".into())
                }
                _ => Err(format!("{name} failed: bad input")),
            }
        })
    }

    fn call_global(
        &self,
        name: &str,
        args: Value,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Option<Value>, String>> {
        let answer = json!({"global": name, "args": args});
        Box::pin(async move { Ok(Some(answer)) })
    }
}

fn tool(name: &str) -> ScriptTool {
    ScriptTool {
        name: name.into(),
        js_name: name.replace('-', "_"),
        description: format!("the {name} tool"),
    }
}

async fn run_with(
    code: &str,
    timeout: Option<Duration>,
    store: BTreeMap<String, Value>,
    cancel: CancellationToken,
) -> (
    rho_codemode::ScriptResult,
    tokio::sync::mpsc::UnboundedReceiver<()>,
) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let exec = Execution {
        code: code.into(),
        tools: vec![tool("echo"), tool("fail"), tool("hang"), tool("my-tool")],
        globals: vec!["searchTools".into()],
        store,
        timeout,
    };
    (
        execute(exec, Arc::new(Handler { cancelled: tx }), cancel).await,
        rx,
    )
}

async fn run(code: &str) -> rho_codemode::ScriptResult {
    run_with(
        code,
        Some(Duration::from_secs(20)),
        BTreeMap::new(),
        CancellationToken::new(),
    )
    .await
    .0
}

fn script_error(result: &rho_codemode::ScriptResult) -> String {
    match &result.outcome {
        Err(ScriptError::Script(s)) => s.clone(),
        other => panic!("expected a script error, got {other:?}"),
    }
}

#[tokio::test]
async fn tool_calls_resolve_and_reject_and_output_keeps_its_order() {
    let r = run(r#"
        const a = await tools.echo({ x: 1 });
        text("got " + a.x);
        console.log("note", { y: 2 });
        const settled = await Promise.allSettled([tools.fail({}), tools["my-tool"]({})]);
        text(settled[0].reason.message);
        return { n: ALL_TOOLS.length, id: ALL_TOOLS[3].name };
    "#)
    .await;
    let (value, _) = r.outcome.clone().expect("ok");
    assert_eq!(value, Some(json!({"n": 4, "id": "my_tool"})));
    assert_eq!(
        r.output,
        vec![
            OutputItem::Text("got 1".into()),
            OutputItem::Console("note {\"y\":2}".into()),
            OutputItem::Text("fail failed: bad input".into()),
        ]
    );
    let statuses: Vec<_> = r
        .calls
        .iter()
        .map(|c| (c.name.as_str(), c.status))
        .collect();
    assert_eq!(
        statuses,
        [
            ("echo", CallStatus::Ok),
            ("fail", CallStatus::Error),
            ("my-tool", CallStatus::Error)
        ]
    );
}

#[tokio::test]
async fn globals_get_spread_arguments() {
    let r = run(r#"return await searchTools("files", { limit: 2 });"#).await;
    let (value, _) = r.outcome.expect("ok");
    assert_eq!(
        value,
        Some(json!({"global": "searchTools", "args": ["files", {"limit": 2}]}))
    );
}

#[tokio::test]
async fn unknown_tools_name_the_close_matches() {
    let r = run("await tools.ecoh({});").await;
    assert!(script_error(&r).starts_with("TypeError: tools.ecoh does not exist."));
    let r = run("await tools.echoo({});").await;
    assert!(script_error(&r).contains("Did you mean tools.echo?"));
}

#[tokio::test]
async fn thrown_errors_keep_their_stack_line() {
    let r = run("\nthrow new RangeError('bad value');").await;
    let e = script_error(&r);
    assert!(e.starts_with("RangeError: bad value\n"), "{e}");
    assert!(e.contains("codemode.js:2"), "{e}");
    let r = run("return (;").await;
    assert!(script_error(&r).starts_with("SyntaxError"));
}

#[tokio::test]
async fn a_runaway_loop_is_stopped_at_the_deadline() {
    let (r, _) = run_with(
        "text('before'); while (true) {}",
        Some(Duration::from_millis(300)),
        BTreeMap::new(),
        CancellationToken::new(),
    )
    .await;
    assert_eq!(
        r.outcome,
        Err(ScriptError::Timeout(
            "Execution timed out after 300 ms".into()
        ))
    );
    assert_eq!(r.output, vec![OutputItem::Text("before".into())]);
    // The VM polled its interrupt flag and ended: the next script gets a VM at once.
    let r = run("return 1").await;
    assert_eq!(r.outcome.expect("ok").0, Some(json!(1)));
}

#[tokio::test]
async fn a_promise_loop_is_stopped_too() {
    let (r, _) = run_with(
        "while (true) await null;",
        Some(Duration::from_millis(300)),
        BTreeMap::new(),
        CancellationToken::new(),
    )
    .await;
    assert!(matches!(r.outcome, Err(ScriptError::Timeout(_))));
}

#[tokio::test]
async fn the_heap_limit_fails_the_script_with_out_of_memory() {
    let r =
        run("const keep = []; while (true) keep.push('x'.repeat(1 << 20) + keep.length);").await;
    assert_eq!(
        script_error(&r).lines().next(),
        Some("InternalError: out of memory")
    );
}

#[tokio::test]
async fn deep_recursion_is_a_range_error() {
    let r = run("const f = (n) => f(n + 1) + 1; f(0);").await;
    assert!(script_error(&r).starts_with("RangeError: Maximum call stack size exceeded"));
}

#[tokio::test]
async fn waiting_on_nothing_fails_at_once() {
    let r = run("await new Promise(() => {});").await;
    assert_eq!(
        script_error(&r),
        "Error: The script is waiting on a promise that can never settle: no tool call is pending, and timers do not exist here."
    );
}

#[tokio::test]
async fn output_past_the_item_limit_fails_even_when_caught() {
    let r = run("for (let i = 0; i < 100001; i++) { try { text(''); } catch (e) {} }").await;
    assert!(script_error(&r).starts_with(
        "RangeError: script output exceeded the limit of 16777216 characters or 100000 text(), image(), and console calls."
    ));
    assert_eq!(r.output.len(), 100_000);
}

#[tokio::test]
async fn abort_cancels_running_calls() {
    let cancel = CancellationToken::new();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        trigger.cancel();
    });
    let (r, mut cancelled) = run_with("await tools.hang({});", None, BTreeMap::new(), cancel).await;
    assert_eq!(
        r.outcome,
        Err(ScriptError::Aborted("This operation was aborted".into()))
    );
    assert_eq!(r.calls[0].status, CallStatus::Cancelled);
    assert_eq!(cancelled.recv().await, Some(()));
}

#[tokio::test]
async fn store_writes_are_reported_and_load_reads_the_snapshot() {
    let mut store = BTreeMap::new();
    store.insert("count".to_string(), json!(2));
    store.insert("gone".to_string(), json!("x"));
    let (r, _) = run_with(
        "store('count', load('count') + 1); store('gone', undefined); store('new', {a: [1]}); return load('gone');",
        None,
        store,
        CancellationToken::new(),
    )
    .await;
    let (value, writes) = r.outcome.expect("ok");
    assert_eq!(value, None);
    assert_eq!(writes.set.get("count"), Some(&json!(3)));
    assert_eq!(writes.set.get("new"), Some(&json!({"a": [1]})));
    assert_eq!(writes.delete, ["gone"]);
    let r = run("store('big', 'x'.repeat(262145));").await;
    assert!(script_error(&r).starts_with(
        "RangeError: store(\"big\") value has 262147 characters of JSON, more than the limit of 262144."
    ));
}

#[tokio::test]
async fn exit_ends_successfully_with_the_output_so_far() {
    let r = run("text('a'); store('k', 1); exit(); text('never');").await;
    let (value, writes) = r.outcome.expect("ok");
    assert_eq!(value, None);
    assert_eq!(writes.set.get("k"), Some(&json!(1)));
    assert_eq!(r.output, vec![OutputItem::Text("a".into())]);
}

#[tokio::test]
async fn images_are_checked() {
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
    let r = run(&format!(
        "image({{type: 'image', data: '{png}', mimeType: 'image/jpeg'}});"
    ))
    .await;
    assert!(r.outcome.is_ok());
    assert_eq!(
        r.output,
        vec![OutputItem::Image {
            data: png.into(),
            mime_type: "image/png".into()
        }]
    );
    let r = run("image('https://example.com/a.png');").await;
    assert_eq!(
        script_error(&r).lines().next(),
        Some("TypeError: remote image URLs are not supported in tool outputs. Pass a base64 data URI instead")
    );
}
