//! One script in one QuickJS VM on its own thread. QuickJS runs synchronously, so a script
//! that computes would hold whatever thread runs it; a thread of its own keeps it off the
//! async runtime. The VM has a heap limit and an interrupt handler polled while it runs, and
//! its only way out is the prelude's bridge: calls, output and the final `done` go to the host
//! as [`ToHost`] messages, results come back as [`Settle`]s. Nothing else (no timers, files,
//! network or modules) exists inside.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use rquickjs::context::EvalOptions;
use rquickjs::{Context, Ctx, Function, Object, Runtime, Value};
use tokio::sync::mpsc::UnboundedSender;

const PRELUDE: &str = include_str!("prelude.js");
/// The thread's own stack; QuickJS's guard trips well before it runs out.
const THREAD_STACK: usize = 8 * 1024 * 1024;
const VM_STACK: usize = 2 * 1024 * 1024;

/// A tool as the script sees it.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScriptTool {
    pub name: String,
    pub js_name: String,
    pub description: String,
}

/// What the VM starts with.
#[derive(Debug, Clone)]
pub struct VmSpec {
    pub code: String,
    pub tools: Vec<ScriptTool>,
    /// Host functions with spread arguments (`searchTools`, ...).
    pub globals: Vec<String>,
    /// Stored values by key, each as its JSON text.
    pub store: std::collections::BTreeMap<String, String>,
    pub memory_limit: usize,
    pub limits: Limits,
}

/// Script limits the prelude enforces.
#[derive(Debug, Clone, Copy, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    pub output_chars: usize,
    pub output_items: usize,
    pub store_value: usize,
    pub store_total: usize,
}

/// Who a call is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Tool,
    Global,
}

/// Something the script produced.
#[derive(Debug, Clone, PartialEq)]
pub enum OutputItem {
    Text(String),
    Console(String),
    Image { data: String, mime_type: String },
}

/// A message from the VM.
#[derive(Debug)]
pub enum ToHost {
    Output(OutputItem),
    Call {
        id: u64,
        target: Target,
        name: String,
        args: Option<String>,
    },
    /// The script ended: `Ok((value JSON, store writes JSON))` or `Err(error JSON)`.
    Done(Result<(Option<String>, String), String>),
    /// The VM itself failed (it could not be created or the prelude broke).
    Crash(String),
}

/// A call's answer: `Ok(JSON or undefined)` or `Err(error message)`.
#[derive(Debug)]
pub struct Settle {
    pub id: u64,
    pub result: Result<Option<String>, String>,
}

/// Starts the VM thread. It ends when the script is done, when `stop` is set, or when the
/// host drops its end of `results`.
pub fn spawn(
    spec: VmSpec,
    to_host: UnboundedSender<ToHost>,
    results: mpsc::Receiver<Settle>,
    stop: Arc<AtomicBool>,
    on_exit: Box<dyn FnOnce() + Send>,
) -> std::io::Result<()> {
    std::thread::Builder::new()
        .name("rho-codemode".into())
        .stack_size(THREAD_STACK)
        .spawn(move || {
            let crash = to_host.clone();
            if let Err(e) = run(spec, to_host, results, stop) {
                let _ = crash.send(ToHost::Crash(e.to_string()));
            }
            on_exit();
        })
        .map(|_| ())
}

fn run(
    spec: VmSpec,
    to_host: UnboundedSender<ToHost>,
    results: mpsc::Receiver<Settle>,
    stop: Arc<AtomicBool>,
) -> rquickjs::Result<()> {
    let runtime = Runtime::new()?;
    runtime.set_memory_limit(spec.memory_limit);
    runtime.set_max_stack_size(VM_STACK);
    let flag = stop.clone();
    runtime.set_interrupt_handler(Some(Box::new(move || flag.load(Ordering::Relaxed))));
    let context = Context::full(&runtime)?;
    context.with(|ctx| drive(&ctx, &spec, &to_host, &results, &stop))
}

/// The prelude's handles.
struct Api<'js> {
    settle: Function<'js>,
    stalled: Function<'js>,
    describe: Function<'js>,
}

fn drive<'js>(
    ctx: &Ctx<'js>,
    spec: &VmSpec,
    to_host: &UnboundedSender<ToHost>,
    results: &mpsc::Receiver<Settle>,
    stop: &AtomicBool,
) -> rquickjs::Result<()> {
    let finished = Rc::new(Cell::new(false));
    let (api, run) = prelude(ctx, spec, to_host.clone(), finished.clone())?;
    let wrapped = format!("(async (tools, console) => {{{}\n}})", spec.code);
    match eval::<Function>(ctx, &wrapped, "codemode.js") {
        Ok(script) => {
            if run.call::<_, ()>((script,)).is_err() && !stop.load(Ordering::Relaxed) {
                report_exception(ctx, &api, to_host);
                return Ok(());
            }
        }
        Err(_) => {
            report_exception(ctx, &api, to_host);
            return Ok(());
        }
    }
    loop {
        while ctx.execute_pending_job() {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
        }
        if finished.get() || stop.load(Ordering::Relaxed) {
            return Ok(());
        }
        if api.stalled.call::<_, bool>(())? {
            return Ok(());
        }
        let Ok(Settle { id, result }) = results.recv() else {
            return Ok(());
        };
        let (ok, payload) = match result {
            Ok(json) => (true, json),
            Err(message) => (false, Some(message)),
        };
        api.settle.call::<_, ()>((id as f64, ok, payload))?;
    }
}

fn eval<'js, V: rquickjs::FromJs<'js>>(
    ctx: &Ctx<'js>,
    source: &str,
    file: &str,
) -> rquickjs::Result<V> {
    let mut options = EvalOptions::default();
    options.global = true;
    options.strict = false;
    options.filename = Some(file.to_string());
    ctx.eval_with_options(source, options)
}

/// Evaluates the prelude with the bridge; returns its API and its `run`.
fn prelude<'js>(
    ctx: &Ctx<'js>,
    spec: &VmSpec,
    to_host: UnboundedSender<ToHost>,
    finished: Rc<Cell<bool>>,
) -> rquickjs::Result<(Api<'js>, Function<'js>)> {
    let bridge = Function::new(
        ctx.clone(),
        move |kind: String, a: Value<'js>, b: Value<'js>, c: Value<'js>| {
            let text = |v: &Value<'js>| -> Option<String> {
                v.as_string().and_then(|s| s.to_string().ok())
            };
            let message = match kind.as_str() {
                "call" | "global" => ToHost::Call {
                    id: a.as_number().unwrap_or_default() as u64,
                    target: if kind == "call" {
                        Target::Tool
                    } else {
                        Target::Global
                    },
                    name: text(&b).unwrap_or_default(),
                    args: text(&c),
                },
                "output" => {
                    let data = text(&b).unwrap_or_default();
                    ToHost::Output(match text(&a).as_deref() {
                        Some("image") => OutputItem::Image {
                            data,
                            mime_type: text(&c).unwrap_or_default(),
                        },
                        Some("console") => OutputItem::Console(data),
                        _ => OutputItem::Text(data),
                    })
                }
                _ => {
                    finished.set(true);
                    ToHost::Done(if a.as_bool() == Some(true) {
                        Ok((text(&b), text(&c).unwrap_or_else(|| "[]".into())))
                    } else {
                        Err(text(&b).unwrap_or_default())
                    })
                }
            };
            let _ = to_host.send(message);
        },
    )?;
    let factory: Function = eval(ctx, PRELUDE, "codemode-prelude.js")?;
    let limits = ctx.json_parse(json(&spec.limits))?;
    let api: Object = factory.call((
        bridge,
        json(&spec.tools),
        json(&spec.globals),
        json(&spec.store),
        limits,
    ))?;
    Ok((
        Api {
            settle: api.get("settle")?,
            stalled: api.get("stalled")?,
            describe: api.get("describe")?,
        },
        api.get("run")?,
    ))
}

/// A script that threw before its first `await` (or did not parse): the pending exception
/// becomes the script's error.
fn report_exception<'js>(ctx: &Ctx<'js>, api: &Api<'js>, to_host: &UnboundedSender<ToHost>) {
    let error = ctx.catch();
    let text = api
        .describe
        .call::<_, String>((error,))
        .unwrap_or_else(|_| r#"{"message":"The script failed to start"}"#.to_string());
    let _ = to_host.send(ToHost::Done(Err(text)));
}

/// The spec's parts as JSON for the prelude (plain data, so encoding cannot fail).
fn json<T: serde::Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}
