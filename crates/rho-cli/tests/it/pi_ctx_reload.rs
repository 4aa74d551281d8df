//! pi's `ctx.reload()` in `rho --mode rpc`: an extension command reloads the runtime as /reload
//! does, after the command returned, so the extension's edited code is live for the next
//! command. Skipped, with the reason printed, without node ≥ 22.18.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::pi_support;
use crate::support;

use pi_support::notified;
use serde_json::json;
use support::{Rpc, Start};

/// An extension whose `/which` names its version; `/reload-runtime` is pi's documented use.
fn extension(version: u32) -> String {
    format!(
        r#"export default function (pi) {{
  pi.registerCommand("reload-runtime", {{
    description: "Reload extensions, skills, prompts and context files",
    handler: async (_args, ctx) => {{
      await ctx.reload();
      return;
    }},
  }});
  pi.registerCommand("which", {{
    handler: async (_args, ctx) => {{
      ctx.ui.notify("version {version}", "info");
    }},
  }});
  pi.on("session_start", (event, ctx) => {{
    ctx.ui.notify(`version {version} started: ${{event.reason}}`, "info");
  }});
}}
"#
    )
}

async fn command(rpc: &mut Rpc, id: &str, text: &str) {
    let r = rpc
        .call(json!({"id": id, "type": "prompt", "message": text}))
        .await;
    assert_eq!(r["success"], true, "{r}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ctx_reload_restarts_the_extensions_with_their_edited_code() {
    let v1 = extension(1);
    let files = [("versioned.ts", v1.as_str())];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    notified(&mut rpc, "version 1 started: startup").await;
    command(&mut rpc, "c1", "/which").await;
    notified(&mut rpc, "version 1").await;
    let file = rpc.home.path().join("exts/versioned.ts");
    std::fs::write(&file, extension(2)).expect("edit the extension");
    // Until a reload the running code stays the old one.
    command(&mut rpc, "c2", "/which").await;
    notified(&mut rpc, "version 1").await;
    command(&mut rpc, "c3", "/reload-runtime").await;
    notified(&mut rpc, "version 2 started: reload").await;
    command(&mut rpc, "c4", "/which").await;
    notified(&mut rpc, "version 2").await;
    assert_eq!(rpc.close().await, Some(0));
}

/// An extension registering provider `reloadprov` at load, with model `m<version>`.
fn provider_extension(version: u32) -> String {
    format!(
        r#"export default function (pi) {{
  pi.registerCommand("reload-runtime", {{ handler: async (_args, ctx) => {{ await ctx.reload(); }} }});
  pi.registerProvider("reloadprov", {{
    baseUrl: "http://127.0.0.1:9/v1",
    apiKey: "k",
    api: "openai-completions",
    models: [{{ id: "m{version}", name: "Model {version}", reasoning: false, input: ["text"],
               cost: {{ input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }},
               contextWindow: 100000, maxTokens: 1000 }}],
  }});
  pi.on("session_start", (event, ctx) => ctx.ui.notify(`provider {version}: ${{event.reason}}`, "info"));
}}
"#
    )
}

async fn provider_models(rpc: &mut Rpc, id: &str) -> Vec<String> {
    let r = rpc
        .call(json!({"id": id, "type": "get_available_models"}))
        .await;
    let models = r["data"]["models"].as_array().cloned().unwrap_or_default();
    models
        .iter()
        .filter(|m| m["provider"] == "reloadprov")
        .filter_map(|m| m["id"].as_str().map(str::to_string))
        .collect()
}

/// A provider registered while loading is registered again by the reloaded code: the edited
/// extension's models replace the old ones, as in pi.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reload_registers_the_edited_extension_s_providers_anew() {
    let v1 = provider_extension(1);
    let files = [("provider.ts", v1.as_str())];
    let Some(mut rpc) = pi_support::start_with_files(&[], &files, Start::default()).await else {
        return;
    };
    notified(&mut rpc, "provider 1: startup").await;
    assert_eq!(provider_models(&mut rpc, "a1").await, ["m1"]);
    let file = rpc.home.path().join("exts/provider.ts");
    std::fs::write(&file, provider_extension(2)).expect("edit the extension");
    command(&mut rpc, "c1", "/reload-runtime").await;
    notified(&mut rpc, "provider 2: reload").await;
    assert_eq!(provider_models(&mut rpc, "a2").await, ["m2"]);
    assert_eq!(rpc.close().await, Some(0));
}
