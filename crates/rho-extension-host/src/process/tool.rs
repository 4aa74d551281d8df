//! A tool registered by an extension process: executing it sends a `tool` request, streams
//! the extension's `tool_update`s to the progress sink and sends `cancel` on abort.

use std::time::Duration;

use futures_util::future::BoxFuture;
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use serde_json::Value;

use super::connection::Connection;
use super::wire::{Request, ToolPayload, ToolSpec};

/// The text a tool result gets when rho aborts the call.
pub const TOOL_ABORTED: &str = "Tool execution was aborted";

/// An [`AgentTool`] whose work happens in the extension process.
pub struct ProcessTool {
    spec: ToolSpec,
    label: String,
    connection: Connection,
    deadline: Duration,
}

impl ProcessTool {
    /// A tool from its registration, answering within `deadline`.
    pub fn new(spec: ToolSpec, connection: Connection, deadline: Duration) -> Self {
        let label = spec.label.clone().unwrap_or_else(|| spec.name.clone());
        Self {
            spec,
            label,
            connection,
            deadline,
        }
    }
}

impl AgentTool for ProcessTool {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn label(&self) -> &str {
        &self.label
    }

    fn description(&self) -> &str {
        &self.spec.description
    }

    fn parameters(&self) -> Value {
        self.spec.parameters.clone()
    }

    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let conn = self.connection.clone();
        let name = self.spec.name.clone();
        let deadline = self.deadline;
        Box::pin(async move {
            let progress = Some(ctx.progress.clone());
            let (id, rx) = conn
                .send(progress, |id| Request::Tool {
                    id,
                    name: name.clone(),
                    tool_call_id: ctx.call_id.clone(),
                    args,
                })
                .await
                .map_err(ToolError::new)?;
            let what = format!("tool {name}");
            let reply = tokio::select! {
                r = conn.wait(id, rx, &what, deadline) => r,
                _ = ctx.cancel.cancelled() => {
                    conn.cancel(id).await;
                    return Err(ToolError::new(TOOL_ABORTED));
                }
            };
            let value = reply.map_err(ToolError::new)?;
            let payload: ToolPayload = serde_json::from_value(value).map_err(|e| {
                ToolError::new(format!(
                    "extension {} returned an invalid result for tool {name}: {e}",
                    conn.path()
                ))
            })?;
            if payload.is_error {
                let message = rho_ai::message::join_text(&payload.content);
                return Err(ToolError {
                    message,
                    details: payload.details,
                });
            }
            Ok(ToolOutput {
                content: payload.content,
                details: payload.details,
            })
        })
    }
}
