//! Finding sessions (interfaces spec §4.7): listing a project's or every project's sessions with
//! the metadata pickers show, the most recent one for `--continue`, and id-prefix lookup for
//! `--session`.
//!
//! Listing is lenient like pi: files whose line 1 is not a header are skipped, and unparseable
//! lines are ignored. Entries are read through a small struct so message bodies are skipped.

use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use rho_protocol::UserContent;
use serde::Deserialize;

use super::decode::decode_header;
use super::paths::sessions_root;
use super::time::parse_iso;
pub use rho_protocol::session::SessionSummary;

#[derive(Deserialize)]
struct LightEntry {
    #[serde(rename = "type")]
    entry_type: String,
    message: Option<LightMessage>,
    name: Option<String>,
}

#[derive(Deserialize)]
struct LightMessage {
    role: String,
    timestamp: Option<i64>,
}

#[derive(Deserialize)]
struct UserOnly {
    message: UserBody,
}

#[derive(Deserialize)]
struct UserBody {
    content: UserContent,
}

/// Reads the header and the listing metadata of one file; `None` if it is not a session.
pub fn summarize(path: &Path) -> Option<SessionSummary> {
    let meta = std::fs::metadata(path).ok()?;
    let mut lines = BufReader::new(File::open(path).ok()?).lines();
    let header = decode_header(&lines.next()?.ok()?).ok()?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_millis() as i64);
    let mut summary = SessionSummary {
        path: path.to_path_buf(),
        modified_ms: parse_iso(&header.timestamp).unwrap_or(mtime),
        header,
        name: None,
        size: meta.len(),
        message_count: 0,
        first_message: None,
    };
    let mut latest_message: Option<i64> = None;
    for line in lines.map_while(Result::ok) {
        let Ok(entry) = serde_json::from_str::<LightEntry>(&line) else {
            continue;
        };
        match entry.entry_type.as_str() {
            "session_info" => summary.name = entry.name.filter(|n| !n.is_empty()),
            "message" => {
                let Some(m) = entry.message else { continue };
                summary.message_count += 1;
                if m.role == "user" || m.role == "assistant" {
                    latest_message = latest_message.max(m.timestamp);
                }
                if m.role == "user" && summary.first_message.is_none() {
                    summary.first_message = serde_json::from_str::<UserOnly>(&line)
                        .ok()
                        .map(|u| u.message.content.text());
                }
            }
            _ => {}
        }
    }
    if let Some(ms) = latest_message {
        summary.modified_ms = ms;
    }
    Some(summary)
}

/// `*.jsonl` files directly in `dir` (none if it does not exist).
fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    read.filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl") && p.is_file())
        .collect()
}

/// The sessions in one directory, newest "modified" first.
pub fn list_sessions(dir: &Path) -> Vec<SessionSummary> {
    let mut out: Vec<SessionSummary> = jsonl_files(dir)
        .iter()
        .filter_map(|p| summarize(p))
        .collect();
    out.sort_by_key(|s| std::cmp::Reverse(s.modified_ms));
    out
}

/// The sessions of every project under `<agentDir>/sessions/`, newest first.
pub fn list_all_sessions(agent_dir: &Path) -> Vec<SessionSummary> {
    let root = sessions_root(agent_dir);
    let mut out = list_sessions(&root);
    if let Ok(read) = std::fs::read_dir(&root) {
        for dir in read
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
        {
            out.extend(list_sessions(&dir));
        }
    }
    out.sort_by_key(|s| std::cmp::Reverse(s.modified_ms));
    out
}

/// `--continue`: the file with the newest mtime among those whose line 1 is a header.
pub fn most_recent_session(dir: &Path) -> Option<PathBuf> {
    let valid_header = |p: &Path| {
        let mut first = String::new();
        let read = File::open(p).and_then(|f| BufReader::new(f).read_line(&mut first));
        read.is_ok() && decode_header(first.trim_end()).is_ok()
    };
    jsonl_files(dir)
        .into_iter()
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .filter(|(_, p)| valid_header(p))
        .max_by_key(|(mtime, _)| *mtime)
        .map(|(_, p)| p)
}

/// True when a `--session` argument names a path rather than an id prefix.
pub fn is_path_argument(arg: &str) -> bool {
    arg.contains('/') || arg.contains('\\') || arg.ends_with(".jsonl")
}

/// Where an id prefix was found.
#[derive(Debug, Clone, PartialEq)]
pub struct FoundSession {
    /// The file.
    pub path: PathBuf,
    /// False when it belongs to another project (the CLI then offers to fork it).
    pub in_current_project: bool,
}

/// `--session <prefix>`: the current project's sessions first (newest first), then every
/// project's. No match → [`StoreError::NoMatch`](super::StoreError::NoMatch).
pub fn find_session(
    prefix: &str,
    project_dir: &Path,
    agent_dir: &Path,
) -> Result<FoundSession, super::StoreError> {
    let matches = |s: &SessionSummary| s.header.id.starts_with(prefix);
    if let Some(s) = list_sessions(project_dir).into_iter().find(matches) {
        return Ok(FoundSession {
            path: s.path,
            in_current_project: true,
        });
    }
    list_all_sessions(agent_dir)
        .into_iter()
        .find(matches)
        .map(|s| FoundSession {
            in_current_project: s.path.parent() == Some(project_dir),
            path: s.path,
        })
        .ok_or_else(|| super::StoreError::NoMatch {
            query: prefix.to_string(),
        })
}
