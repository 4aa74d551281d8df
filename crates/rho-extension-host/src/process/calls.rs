//! Calls from an extension process into rho (`{"type":"call","method":...}`), served through
//! the same [`ExtensionContext`] in-process handlers get.

use std::path::PathBuf;
use std::time::Duration;

use rho_ai::{ImageContent, UserContent};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::{CustomMessageInput, DeliverAs, ExtensionContext, HostError, SendOptions};

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct MessageParams {
    custom_type: String,
    content: UserContent,
    #[serde(default)]
    display: bool,
    #[serde(default)]
    details: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendMessageParams {
    message: MessageParams,
    #[serde(default)]
    trigger_turn: bool,
    #[serde(default)]
    deliver_as: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct SendUserParams {
    text: String,
    #[serde(default)]
    images: Vec<ImageContent>,
    #[serde(default)]
    deliver_as: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct ExecParams {
    command: String,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    cwd: Option<String>,
    #[serde(default)]
    timeout_ms: Option<u64>,
}

/// A call's parameters as `T`.
pub(crate) fn params<T: for<'de> Deserialize<'de>>(method: &str, v: Value) -> Result<T, HostError> {
    serde_json::from_value(v).map_err(|source| HostError::InvalidParams {
        method: method.to_string(),
        source,
    })
}

/// Writes `answer` to `file` whole or not at all (by rename): the pi host reads the file as
/// soon as it exists, for the synchronous reads and appends pi's API has.
pub(crate) fn write_answer_file(
    method: &'static str,
    file: PathBuf,
    answer: &impl serde::Serialize,
) -> Result<(), HostError> {
    let text = serde_json::to_vec(answer).map_err(HostError::Encode)?;
    let partial = file.with_extension("partial");
    std::fs::write(&partial, text)
        .and_then(|()| std::fs::rename(&partial, &file))
        .map_err(|source| HostError::AnswerFile {
            method,
            file,
            source,
        })
}

fn deliver_as(method: &str, s: Option<String>) -> Result<Option<DeliverAs>, HostError> {
    s.map(|value| {
        serde_json::from_value(Value::String(value.clone())).map_err(|_| HostError::DeliverAs {
            method: method.to_string(),
            value,
        })
    })
    .transpose()
}

fn str_field(p: &Value, key: &str) -> String {
    p.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn opt_str(p: &Value, key: &str) -> Option<String> {
    p.get(key).and_then(Value::as_str).map(str::to_string)
}

/// A dialog's `timeout` (ms), when the extension gave one.
fn timeout(p: &Value) -> Option<u64> {
    p.get("timeout").and_then(Value::as_u64)
}

/// Serves one call of the process behind `conn` (`None`: no process, so no `newSession`
/// setup); `Ok` is the reply's `result`, `Err` its `error`.
pub async fn dispatch(
    method: &str,
    p: Value,
    ctx: &ExtensionContext,
    conn: Option<&super::Connection>,
) -> Result<Value, HostError> {
    let host = &ctx.host;
    let ui = &ctx.ui;
    if super::session_calls::serves(method) {
        return super::session_calls::dispatch(method, p, ctx, conn).await;
    }
    if is_ui_tell(method) {
        return ui_tell(method, p, ctx);
    }
    match method {
        "send_message" => {
            let sp: SendMessageParams = params(method, p)?;
            let message = CustomMessageInput {
                custom_type: sp.message.custom_type,
                content: sp.message.content,
                display: sp.message.display,
                details: sp.message.details,
            };
            let options = SendOptions {
                trigger_turn: sp.trigger_turn,
                deliver_as: deliver_as(method, sp.deliver_as)?,
            };
            host.send_message(message, options)
                .await
                .map(|_| Value::Null)
        }
        "send_user_message" => {
            let up: SendUserParams = params(method, p)?;
            let route = deliver_as(method, up.deliver_as)?;
            host.send_user_message(up.text, up.images, route)
                .await
                .map(|_| Value::Null)
        }
        "append_entry" => host
            .append_entry(str_field(&p, "customType"), p.get("data").cloned())
            .map(|_| Value::Null),
        "set_session_name" => host
            .set_session_name(str_field(&p, "name"))
            .map(|_| Value::Null),
        "get_state" => Ok(json!({
            "cwd": host.cwd().to_string_lossy(),
            "model": host.model(),
            "isIdle": host.is_idle(),
            "hasPendingMessages": host.has_pending_messages(),
            "systemPrompt": ctx.system_prompt(),
            "thinkingLevel": host.thinking_level(),
            "hasUI": ui.has_ui(),
            "contextUsage": host.context_usage(),
        })),
        "get_entries" => {
            let from = p.get("from").and_then(Value::as_u64).unwrap_or(0);
            host.session_entries(usize::try_from(from).unwrap_or(usize::MAX))
        }
        // pi 1.6's boundary context rebuilt from a proposal, for the handlers a process runs
        // one after another within one `turn_end`/`agent_before_settle` request.
        "boundary_context" => {
            let entries = p.get("entries").and_then(Value::as_array).cloned();
            let preview = ctx.boundary_preview.as_ref();
            Ok(match (preview, entries) {
                (Some(preview), Some(entries)) => match preview(&entries) {
                    Ok(context) => json!({ "context": context }),
                    Err(error) => json!({ "error": error.to_string() }),
                },
                _ => json!({ "error": "no turn_end or agent_before_settle is being handled" }),
            })
        }
        "set_label" => host
            .set_label(str_field(&p, "id"), opt_str(&p, "label"))
            .map(|_| Value::Null),
        "abort" => {
            host.abort();
            Ok(Value::Null)
        }
        "exec" => exec(params(method, p)?, ctx).await,
        "ui_select" => {
            let options = p
                .get("options")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter_map(|o| o.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            let (title, within) = (str_field(&p, "title"), timeout(&p));
            Ok(json!(ui.select_within(title, options, within).await))
        }
        "ui_confirm" => Ok(json!(
            ui.confirm_within(
                str_field(&p, "title"),
                str_field(&p, "message"),
                timeout(&p)
            )
            .await
        )),
        "ui_input" => Ok(json!(
            ui.input_within(
                str_field(&p, "title"),
                opt_str(&p, "placeholder"),
                timeout(&p)
            )
            .await
        )),
        "ui_editor" => Ok(json!(
            ui.editor(str_field(&p, "title"), opt_str(&p, "prefill"))
                .await
        )),
        "shutdown" => ui
            .request_shutdown()
            .then_some(Value::Null)
            .ok_or(HostError::NoShutdown),
        other => Err(HostError::UnknownMethod(other.to_string())),
    }
}

/// The UI calls that only tell the screen something (notices, statuses, widgets, components,
/// the title, the working line): served as they are read, so the client sees them in the
/// order the extension made them and before the result of the command that made them (pi
/// writes them at once).
pub(crate) fn is_ui_tell(method: &str) -> bool {
    matches!(
        method,
        "ui_set_editor_text"
            | "ui_notify"
            | "ui_status"
            | "ui_widget"
            | "ui_component"
            | "ui_render"
            | "ui_title"
            | "ui_working"
            | "ui_editor_event"
    )
}

/// Serves one of the [`is_ui_tell`] calls.
pub(crate) fn ui_tell(method: &str, p: Value, ctx: &ExtensionContext) -> Result<Value, HostError> {
    let ui = &ctx.ui;
    match method {
        "ui_set_editor_text" => {
            ui.set_editor_text(str_field(&p, "text"));
            Ok(Value::Null)
        }
        "ui_notify" => {
            // No kind given stays "" so RPC clients see pi's notice without `notifyType`.
            let kind = opt_str(&p, "kind").unwrap_or_default();
            ui.notify(str_field(&p, "message"), kind);
            Ok(Value::Null)
        }
        "ui_status" => {
            ui.set_status(str_field(&p, "key"), opt_str(&p, "text"));
            Ok(Value::Null)
        }
        "ui_widget" => {
            let lines = p.get("lines").and_then(Value::as_array).map(|a| {
                a.iter()
                    .filter_map(|l| l.as_str().map(str::to_string))
                    .collect()
            });
            let below = opt_str(&p, "placement").as_deref() == Some("belowEditor");
            ui.set_widget_at(str_field(&p, "key"), lines, below);
            Ok(Value::Null)
        }
        "ui_component" => {
            let slot = match p.get("slot") {
                None | Some(Value::Null) => None,
                Some(s) => Some(params(method, s.clone())?),
            };
            Ok(json!(ui.set_component(str_field(&p, "key"), slot)))
        }
        "ui_render" => {
            ui.request_render(str_field(&p, "key"));
            Ok(Value::Null)
        }
        "ui_working" => {
            ui.set_working(params(method, p)?);
            Ok(Value::Null)
        }
        "ui_title" => {
            ui.set_title(str_field(&p, "title"));
            Ok(Value::Null)
        }
        "ui_editor_event" => {
            ui.editor_event(params(method, p)?);
            Ok(Value::Null)
        }
        other => Err(HostError::UnknownMethod(other.to_string())),
    }
}

/// Runs a program (no shell) in the session's cwd unless `cwd` is given, sandboxed and with
/// the provider keys scrubbed like the `bash` tool; ends it at the timeout (default 60 s).
async fn exec(p: ExecParams, ctx: &ExtensionContext) -> Result<Value, HostError> {
    use rho_process::{ChildGroup, ChildSpec};
    let cwd = p.cwd.map(Into::into).unwrap_or_else(|| ctx.host.cwd());
    let mut cmd = ChildSpec::new(&p.command)
        .args(&p.args)
        .cwd(cwd)
        .sandbox(ctx.host.sandbox())
        .scrub(ctx.host.key_scrub())
        .command()
        .map_err(HostError::ExecSandbox)?;
    cmd.stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let (group, pipes) = ChildGroup::spawn(cmd).map_err(|source| HostError::ExecSpawn {
        command: p.command.clone(),
        source,
    })?;
    let timeout = Duration::from_millis(p.timeout_ms.unwrap_or(60_000));
    let finished = async {
        let (stdout, stderr, code) =
            tokio::join!(read_all(pipes.stdout), read_all(pipes.stderr), group.wait());
        (stdout, stderr, code)
    };
    match tokio::time::timeout(timeout, finished).await {
        Ok((stdout, stderr, code)) => Ok(json!({
            "stdout": String::from_utf8_lossy(&stdout),
            "stderr": String::from_utf8_lossy(&stderr),
            "code": code,
            "killed": false,
        })),
        Err(_) => {
            group.terminate().await;
            Ok(json!({"stdout": "", "stderr": "", "code": null, "killed": true}))
        }
    }
}

/// Everything a pipe delivers until it closes (nothing for a missing pipe).
async fn read_all(pipe: Option<impl tokio::io::AsyncRead + Unpin>) -> Vec<u8> {
    let mut out = Vec::new();
    if let Some(mut pipe) = pipe {
        let _ = tokio::io::AsyncReadExt::read_to_end(&mut pipe, &mut out).await;
    }
    out
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;
    use std::sync::{Arc, Mutex};

    use futures_util::future::BoxFuture;

    use super::*;
    use crate::{ExtensionHost, NoUi};

    /// Records what `send_message` receives.
    #[derive(Default)]
    struct Recorder {
        sent: Mutex<Vec<(String, SendOptions)>>,
    }

    impl ExtensionHost for Recorder {
        fn cwd(&self) -> PathBuf {
            "/w".into()
        }
        fn model(&self) -> Option<rho_ai::Model> {
            None
        }
        fn is_idle(&self) -> bool {
            true
        }
        fn has_pending_messages(&self) -> bool {
            false
        }
        fn system_prompt(&self) -> String {
            "SP".into()
        }
        fn abort(&self) {}
        fn send_message(
            &self,
            message: CustomMessageInput,
            options: SendOptions,
        ) -> BoxFuture<'static, Result<(), HostError>> {
            self.sent
                .lock()
                .expect("lock")
                .push((message.content.text(), options));
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

    #[tokio::test]
    async fn send_message_maps_the_five_routes() {
        let host = Arc::new(Recorder::default());
        let ctx = ExtensionContext::new(host.clone(), Arc::new(NoUi));
        let routes = [
            json!({"deliverAs": "steer"}),
            json!({"deliverAs": "followUp"}),
            json!({"deliverAs": "nextTurn"}),
            json!({"triggerTurn": true}),
            json!({}),
        ];
        for mut p in routes {
            p["message"] = json!({"customType": "n", "content": "hi"});
            dispatch("send_message", p, &ctx, None).await.expect("sent");
        }
        let sent: Vec<SendOptions> = host
            .sent
            .lock()
            .expect("lock")
            .iter()
            .map(|s| s.1)
            .collect();
        let opt = |trigger_turn, deliver_as| SendOptions {
            trigger_turn,
            deliver_as,
        };
        assert_eq!(
            sent,
            [
                opt(false, Some(DeliverAs::Steer)),
                opt(false, Some(DeliverAs::FollowUp)),
                opt(false, Some(DeliverAs::NextTurn)),
                opt(true, None),
                opt(false, None),
            ]
        );
    }

    #[tokio::test]
    async fn bad_calls_get_clear_errors() {
        let ctx = ExtensionContext::new(Arc::new(Recorder::default()), Arc::new(NoUi));
        let bad_route =
            json!({"message": {"customType": "n", "content": "x"}, "deliverAs": "later"});
        let err = dispatch("send_message", bad_route, &ctx, None)
            .await
            .expect_err("rejected")
            .to_string();
        assert!(err.contains("deliverAs must be"), "{err}");
        let err = dispatch("send_message", json!({}), &ctx, None)
            .await
            .expect_err("rejected")
            .to_string();
        assert!(err.starts_with("send_message: invalid params"), "{err}");
        let err = dispatch("teleport", Value::Null, &ctx, None)
            .await
            .expect_err("unknown")
            .to_string();
        assert!(err.contains("unknown method \"teleport\""), "{err}");
        let state = dispatch("get_state", Value::Null, &ctx, None)
            .await
            .expect("state");
        assert_eq!(state["systemPrompt"], "SP");
        assert_eq!(state["hasUI"], false);
        let confirmed = dispatch(
            "ui_confirm",
            json!({"title": "t", "message": "m"}),
            &ctx,
            None,
        )
        .await;
        assert_eq!(confirmed.ok(), Some(json!(false)), "no UI answers false");
    }
}
