//! The `bash` response (interfaces spec §1.4): the session runs the command (`!cmd`'s path,
//! so the sandbox and the key scrubbing apply as for every other command) and records it;
//! this is the result as RPC clients receive it.

use rho_protocol::agent::BashExecutionMessage;
use serde::Serialize;

/// The `bash` response data.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BashResult {
    /// Cleaned, tail-truncated output.
    pub output: String,
    /// Absent when the command was cancelled or killed by a signal.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// True after `abort_bash`.
    pub cancelled: bool,
    /// True when `output` is a tail.
    pub truncated: bool,
    /// The whole output, when it was cut.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub full_output_path: Option<String>,
}

impl From<BashExecutionMessage> for BashResult {
    fn from(m: BashExecutionMessage) -> Self {
        Self {
            output: m.output,
            exit_code: m.exit_code,
            cancelled: m.cancelled,
            truncated: m.truncated,
            full_output_path: m.full_output_path,
        }
    }
}
