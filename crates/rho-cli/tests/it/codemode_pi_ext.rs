//! codemode with a pi extension in `rho --mode rpc`: the extension sees the `tool_execution_*`
//! events of a script's nested calls with `parentToolCallId`, and its `ctx.reload()` (pi's
//! /reload) keeps codemode on. Skipped, with the reason printed, without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support;

use pi_support::notified;
use rho_testkit::json::tool_names;
use rho_testkit::openai_chat::ChatStream;
use serde_json::json;
use support::{reply, Start};

const EXTENSION: &str = r#"export default function (pi) {
  pi.registerCommand("reload-runtime", {
    handler: async (_args, ctx) => {
      await ctx.reload();
    },
  });
  pi.on("session_start", (event, ctx) => {
    ctx.ui.notify(`started: ${event.reason}`, "info");
  });
  pi.on("tool_execution_start", (event, ctx) => {
    ctx.ui.notify(`start ${event.toolName} ${event.toolCallId} parent ${event.parentToolCallId}`, "info");
  });
  pi.on("tool_execution_end", (event, ctx) => {
    ctx.ui.notify(`end ${event.toolName} ${event.toolCallId} parent ${event.parentToolCallId} error ${event.isError}`, "info");
  });
}
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn extensions_see_nested_calls_and_reload_keeps_codemode_on() {
    let files = [("events.ts", EXTENSION)];
    let start = Start {
        args: vec!["--tools".into(), "+codemode".into()],
        ..Default::default()
    };
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, start).await else {
        return;
    };
    notified(&mut rpc, "started: startup").await;
    let r = rpc
        .call(json!({"id": "c1", "type": "prompt", "message": "/reload-runtime"}))
        .await;
    assert_eq!(r["success"], true, "{r}");
    notified(&mut rpc, "started: reload").await;

    let code = r#"const r = await tools.bash({ command: "echo nested" }); return r.output;"#;
    rpc.server.push(
        ChatStream::new("chatcmpl-t", "m1")
            .role()
            .tool_call_start(0, "cm1", "codemode")
            .tool_args(0, &json!({ "code": code }).to_string())
            .finish("tool_calls")
            .done()
            .response(),
    );
    rpc.server.push(reply("done"));
    assert_eq!(rpc.prompt_ok("p", "after the reload").await, "done");
    let declared = tool_names(&rpc.server.requests()[0].json());
    assert!(
        declared.contains(&"codemode".to_string()),
        "codemode stays on after the reload: {declared:?}"
    );
    notified(&mut rpc, "start codemode cm1 parent undefined").await;
    notified(&mut rpc, "start bash cm1/1 parent cm1").await;
    notified(&mut rpc, "end bash cm1/1 parent cm1 error false").await;
    notified(&mut rpc, "end codemode cm1 parent undefined error false").await;
    assert_eq!(rpc.close().await, Some(0));
}
