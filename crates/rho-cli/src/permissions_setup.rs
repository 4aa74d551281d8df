//! The session's permission rules and mode: `permissions.allow/ask/deny` from the global and
//! the (trusted) project settings joined, the mode from `--permission-mode`, else the global
//! `permissions.defaultMode`, else `default`.

use rho_core::permissions::{PermissionMode, Permissions, UnknownPermissionMode};
use rho_core::settings::Settings;
use serde_json::Value;

use crate::args::Args;

/// Builds the permissions; a bad flag is an error, a bad setting a warning.
pub fn build(
    args: &Args,
    settings: &Settings,
    warnings: &mut Vec<String>,
) -> anyhow::Result<Permissions> {
    let mode = match &args.permission_mode {
        Some(flag) => flag.parse()?,
        None => match settings
            .global_value("permissions.defaultMode")
            .and_then(Value::as_str)
        {
            Some(text) => text.parse().unwrap_or_else(|e: UnknownPermissionMode| {
                warnings.push(format!("settings.json permissions.defaultMode: {e}"));
                PermissionMode::Default
            }),
            None => PermissionMode::Default,
        },
    };
    Ok(Permissions::from_lists(
        mode,
        &settings.joined_list("permissions.allow"),
        &settings.joined_list("permissions.ask"),
        &settings.joined_list("permissions.deny"),
        warnings,
    ))
}
