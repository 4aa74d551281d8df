//! Which files the summarised history read and modified, so the summary can list them and
//! later compactions can carry the lists forward (`details = {readFiles, modifiedFiles}`).

use std::collections::BTreeSet;

use rho_agent::AgentMessage;
use rho_ai::ContentBlock;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// File paths touched by the built-in `read`, `write` and `edit` tools.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FileOps {
    /// Paths passed to `read`.
    pub read: BTreeSet<String>,
    /// Paths passed to `write`.
    pub written: BTreeSet<String>,
    /// Paths passed to `edit` (and modified paths carried over from earlier summaries).
    pub edited: BTreeSet<String>,
}

/// The lists stored in `details` and appended to the summary.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FileLists {
    /// Files only read, never modified, sorted.
    pub read_files: Vec<String>,
    /// Files written or edited, sorted.
    pub modified_files: Vec<String>,
}

impl FileLists {
    /// The `details` value of a built-in compaction or branch summary.
    pub fn to_details(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }

    /// The text appended to a summary: `\n\n<read-files>…</read-files>` and/or
    /// `<modified-files>…</modified-files>`, one path per line; empty when both are empty.
    pub fn format(&self) -> String {
        let mut sections = Vec::new();
        if !self.read_files.is_empty() {
            sections.push(format!(
                "<read-files>\n{}\n</read-files>",
                self.read_files.join("\n")
            ));
        }
        if !self.modified_files.is_empty() {
            sections.push(format!(
                "<modified-files>\n{}\n</modified-files>",
                self.modified_files.join("\n")
            ));
        }
        if sections.is_empty() {
            return String::new();
        }
        format!("\n\n{}", sections.join("\n\n"))
    }
}

impl FileOps {
    /// Records the `path` argument of every `read`/`write`/`edit` tool call of an assistant
    /// message; other messages and tools are ignored.
    pub fn add_message(&mut self, message: &AgentMessage) {
        let AgentMessage::Assistant(a) = message else {
            return;
        };
        for block in &a.content {
            let ContentBlock::ToolCall(tc) = block else {
                continue;
            };
            let Some(path) = tc.arguments.get("path").and_then(Value::as_str) else {
                continue;
            };
            let set = match tc.name.as_str() {
                "read" => &mut self.read,
                "write" => &mut self.written,
                "edit" => &mut self.edited,
                _ => continue,
            };
            set.insert(path.to_string());
        }
    }

    /// Carries forward the lists of an earlier built-in summary's `details`; malformed
    /// details are ignored (they may come from an old or foreign file).
    pub fn add_details(&mut self, details: &Value) {
        let strings = |key: &str| {
            details
                .get(key)
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(str::to_string)
        };
        self.read.extend(strings("readFiles"));
        self.edited.extend(strings("modifiedFiles"));
    }

    /// The final lists: modified = written ∪ edited; read = read minus modified.
    pub fn lists(&self) -> FileLists {
        let modified: BTreeSet<&String> = self.written.iter().chain(&self.edited).collect();
        FileLists {
            read_files: self
                .read
                .iter()
                .filter(|f| !modified.contains(f))
                .cloned()
                .collect(),
            modified_files: modified.into_iter().cloned().collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;
    use serde_json::json;

    #[test]
    fn tracks_read_write_edit_paths() {
        let mut ops = FileOps::default();
        ops.add_message(&assistant_with(
            vec![
                tool_call("1", "read", json!({"path": "src/a.rs"})),
                tool_call("2", "read", json!({"path": "src/b.rs"})),
                tool_call("3", "edit", json!({"path": "src/b.rs", "oldText": "x"})),
                tool_call("4", "write", json!({"path": "new.txt"})),
                tool_call("5", "bash", json!({"command": "cat z"})),
                tool_call("6", "read", json!({"file": "ignored"})),
            ],
            0,
        ));
        ops.add_message(&user("read path=src/c.rs"));
        let lists = ops.lists();
        assert_eq!(lists.read_files, ["src/a.rs"]);
        assert_eq!(lists.modified_files, ["new.txt", "src/b.rs"]);
    }

    #[test]
    fn carries_details_forward() {
        let mut ops = FileOps::default();
        ops.add_details(&json!({"readFiles": ["r.md", 3], "modifiedFiles": ["m.rs"]}));
        ops.add_details(&json!("garbage"));
        let lists = ops.lists();
        assert_eq!(lists.read_files, ["r.md"]);
        assert_eq!(lists.modified_files, ["m.rs"]);
        assert_eq!(
            lists.to_details(),
            json!({"readFiles": ["r.md"], "modifiedFiles": ["m.rs"]})
        );
    }

    #[test]
    fn formats_tags_only_when_non_empty() {
        assert_eq!(FileLists::default().format(), "");
        let lists = FileLists {
            read_files: vec!["a".into(), "b".into()],
            modified_files: vec![],
        };
        assert_eq!(lists.format(), "\n\n<read-files>\na\nb\n</read-files>");
        let both = FileLists {
            read_files: vec!["a".into()],
            modified_files: vec!["m".into()],
        };
        assert_eq!(
            both.format(),
            "\n\n<read-files>\na\n</read-files>\n\n<modified-files>\nm\n</modified-files>"
        );
    }
}
