//! `export_html`: the session as the self-contained HTML page of [`rho_export`] (the page's
//! format is not a compatibility requirement, interfaces spec §1.4; the paths and errors are).

use std::path::Path;

use rho_protocol::rpc::ExportedHtml;
use serde_json::Value;

use super::error::CommandError;
use super::sessions::absolute;
use super::Rpc;

/// Writes the page; returns `{"path"}`.
pub fn export(rpc: &Rpc, output_path: Option<&str>) -> Result<Value, CommandError> {
    let (file, persisted) = rpc
        .session
        .with_session(|s| (s.path().map(Path::to_path_buf), s.is_persisted()));
    let file = file.ok_or(CommandError::Refused(
        "Cannot export in-memory session to HTML",
    ))?;
    if !persisted {
        return Err(CommandError::Refused(
            "Nothing to export yet - start a conversation first",
        ));
    }
    let path = match output_path {
        Some(p) => absolute(Path::new(p)),
        None => absolute(Path::new(&rho_export::default_html_name(&file))),
    };
    let html = rpc.session.with_session(rho_export::live_page);
    if let Err(source) = std::fs::write(&path, html) {
        return Err(CommandError::Write { path, source });
    }
    super::dispatch::data_of(&ExportedHtml {
        path: path.to_string_lossy().into_owned(),
    })
}
