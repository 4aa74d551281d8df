//! When a sandboxed `bash` call fails on what looks like a sandbox denial: where the mode can
//! ask (the interactive mode, or RPC with `sandbox.escalate: true`), offer to run it once
//! without the sandbox; otherwise tell the model (and so the user) that the sandbox may have
//! stopped it, instead of leaving a bare "Permission denied".

use rho_agent::{AgentTool, ToolContext};
use rho_ai::ContentBlock;
use rho_sandbox::{looks_like_denial, Denial, Mechanism};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::AgentSession;
use rho_extension_host::runner::ToolOutcome;

fn text_of(content: &[ContentBlock]) -> String {
    content
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect::<Vec<_>>()
        .join("\n")
}

impl AgentSession {
    /// Whether failed `bash` results are looked at for sandbox denials.
    pub(crate) fn sandbox_confines(&self) -> bool {
        self.inner
            .services
            .sandbox
            .as_ref()
            .is_some_and(|s| !matches!(s.mechanism(), Mechanism::None | Mechanism::Refused(_)))
    }

    /// The result to use instead of `outcome`, or `outcome` itself.
    pub(crate) async fn escalate(
        &self,
        tool: &str,
        call_id: &str,
        args: &Value,
        outcome: ToolOutcome,
        cancel: CancellationToken,
    ) -> ToolOutcome {
        let Some(sandbox) = self.inner.services.sandbox.clone() else {
            return outcome;
        };
        if tool != "bash" || !outcome.is_error {
            return outcome;
        }
        let Some(denial) = looks_like_denial(&text_of(&outcome.content)) else {
            return outcome;
        };
        let what = match denial {
            Denial::FileSystem => "a write outside the sandbox's writable folders",
            Denial::Network => "a network connection while the sandbox's network is off",
        };
        let command = args
            .get("command")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let ui = super::lock(&self.inner.services.ui).clone();
        if self.inner.services.escalate && ui.has_ui() {
            let message = format!(
                "{command}\n\nThis failed, possibly on {what} (sandbox: {}). Run it once without the sandbox?",
                sandbox.describe()
            );
            if ui
                .confirm("Sandbox blocked a command".into(), message)
                .await
            {
                return self.run_unsandboxed(call_id, args, cancel).await;
            }
        }
        let mut outcome = outcome;
        outcome.content.push(ContentBlock::text(format!(
            "[rho] The sandbox ({}) may have blocked this: {what}. Tell the user if the command is \
             needed; they can allow a folder with sandbox.writableRoots or run rho with \
             --sandbox off.",
            sandbox.describe()
        )));
        outcome
    }

    async fn run_unsandboxed(
        &self,
        call_id: &str,
        args: &Value,
        cancel: CancellationToken,
    ) -> ToolOutcome {
        let config = self.shell_config(None);
        let tool = rho_tools::BashTool::new(self.cwd(), config);
        let mut ctx = ToolContext::detached(call_id);
        ctx.cancel = cancel;
        match tool.execute(args.clone(), ctx).await {
            Ok(out) => ToolOutcome {
                content: out.content,
                details: out.details,
                is_error: false,
            },
            Err(e) => ToolOutcome {
                content: vec![ContentBlock::text(e.message)],
                details: None,
                is_error: true,
            },
        }
    }
}
