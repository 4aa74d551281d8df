//! Argument decoding. The agent validates arguments against each schema before a tool runs;
//! this is the tool's own guard for SDK callers that skip that step.

use rho_agent::ToolError;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Decodes `args` into the tool's argument struct, or an error in pi's validation wording.
pub(crate) fn parse<T: DeserializeOwned>(tool: &str, args: Value) -> Result<T, ToolError> {
    match T::deserialize(&args) {
        Ok(parsed) => Ok(parsed),
        Err(err) => {
            let received = serde_json::to_string_pretty(&args).unwrap_or_default();
            Err(ToolError::new(format!(
                "Validation failed for tool \"{tool}\":\n  - root: {err}\n\nReceived arguments:\n{received}"
            )))
        }
    }
}

/// A non-negative whole count from a JSON number the model sent (`2.0` and `2` alike).
pub(crate) fn count(value: Option<f64>) -> Option<usize> {
    value.map(|v| {
        if v.is_finite() && v > 0.0 {
            v as usize
        } else {
            0
        }
    })
}
