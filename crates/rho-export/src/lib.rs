//! Exporting a session: as one self-contained HTML page (`--export`, `/export`, `/share`, RPC
//! `export_html`) or, for a `.jsonl` target, as a session file holding the current branch
//! (`/export x.jsonl`, as pi does). One implementation serves every caller.

mod html;
mod html_entry;
mod html_tree;
mod jsonl;
mod markdown;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};

use rho_session::{load_file, SessionHeader, SessionManager, SessionTree, StoreError};

pub use html::page;
pub use jsonl::branch_jsonl;

/// Why an export wrote nothing; the text is what the user sees.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The session file could not be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The session file.
        path: PathBuf,
        /// What went wrong.
        source: StoreError,
    },
    /// A session that was never saved has no file to name the page after.
    #[error("Cannot export in-memory session to HTML")]
    InMemory,
    /// A missing folder of the target could not be created.
    #[error("cannot create {}: {source}", path.display())]
    CreateDir {
        /// The folder.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The target could not be written.
    #[error("cannot write {}: {source}", path.display())]
    Write {
        /// The target file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
}

/// `--export <session.jsonl> [out.html]`: the page for a session file, written to `out`
/// (default `rho-session-<basename>.html` in `cwd`); returns where it went. The file is only
/// read, never migrated in place.
pub fn export_session(
    session: &Path,
    out: Option<&str>,
    cwd: &Path,
) -> Result<PathBuf, ExportError> {
    let loaded = load_file(session).map_err(|source| ExportError::Read {
        path: session.to_path_buf(),
        source,
    })?;
    let tree = SessionTree::from_entries(loaded.entries);
    let target = match out {
        Some(p) => cwd.join(p),
        None => cwd.join(default_html_name(session)),
    };
    write(&target, &page(&loaded.header, &tree))?;
    Ok(target)
}

/// `/export [file]` for the open session: JSONL (the current branch) when `out` ends in
/// `.jsonl`, else the HTML page (default name beside `cwd`, like `--export`).
pub fn export_live(
    manager: &SessionManager,
    out: Option<&str>,
    cwd: &Path,
) -> Result<PathBuf, ExportError> {
    if let Some(out) = out.filter(|o| o.ends_with(".jsonl")) {
        let target = cwd.join(out);
        write(&target, &branch_jsonl(manager))?;
        return Ok(target);
    }
    let Some(file) = manager.path() else {
        return Err(ExportError::InMemory);
    };
    let target = match out {
        Some(p) => cwd.join(p),
        None => cwd.join(default_html_name(file)),
    };
    write(&target, &live_page(manager))?;
    Ok(target)
}

/// The page for the open session.
pub fn live_page(manager: &SessionManager) -> String {
    page(manager.header(), manager.tree())
}

/// `rho-session-<basename of the session file>.html`: pi names the page
/// `<app>-session-<basename>.html` for the CLI and RPC alike, so rho uses its own name in both.
pub fn default_html_name(session: &Path) -> String {
    let stem = session
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into());
    format!("rho-session-{stem}.html")
}

/// Writes `text` to `target`, creating missing parent folders (as pi does).
fn write(target: &Path, text: &str) -> Result<(), ExportError> {
    if let Some(dir) = target.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| ExportError::CreateDir {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    std::fs::write(target, text).map_err(|source| ExportError::Write {
        path: target.to_path_buf(),
        source,
    })
}

/// The page's title: the session name, else `Session <id>`.
fn title(header: &SessionHeader, tree: &SessionTree) -> String {
    tree.name()
        .map(str::to_string)
        .unwrap_or_else(|| format!("Session {}", header.id))
}

/// HTML-escapes text for element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}
