//! What a running tool gets: the call's ids, streamed updates and cancellation.

use crate::protocol::FromExtension;
use crate::rho::Rho;
use crate::Error;
use crate::ToolResult;

/// One running tool call. rho sends `cancel` when the run is aborted; a long tool checks
/// [`ToolCall::is_cancelled`] (or blocks in [`ToolCall::wait_cancelled`]) and stops.
pub struct ToolCall {
    rho: Rho,
    request_id: u64,
    tool_call_id: String,
}

impl ToolCall {
    pub(crate) fn new(rho: Rho, request_id: u64, tool_call_id: String) -> Self {
        Self {
            rho,
            request_id,
            tool_call_id,
        }
    }

    /// The model's id for this call.
    pub fn tool_call_id(&self) -> &str {
        &self.tool_call_id
    }

    /// A handle for calling rho.
    pub fn rho(&self) -> &Rho {
        &self.rho
    }

    /// Streams a cumulative partial result; rho turns it into a `tool_execution_update`.
    pub fn update(&self, partial: &ToolResult) -> Result<(), Error> {
        self.rho.shared.send(&FromExtension::ToolUpdate {
            id: self.request_id,
            partial: partial.clone(),
        })
    }

    /// True once rho aborted this call (or closed the connection); its result is ignored.
    pub fn is_cancelled(&self) -> bool {
        self.rho.shared.is_cancelled(self.request_id)
    }

    /// Blocks until rho cancels this call or closes the connection.
    pub fn wait_cancelled(&self) {
        self.rho.shared.wait_cancelled(self.request_id);
    }
}

impl Drop for ToolCall {
    fn drop(&mut self) {
        self.rho.shared.forget_cancel(self.request_id);
    }
}
