//! The `data` of the responses pi 1.x added or reshaped (pi 1.6's docs/rpc-commands.md):
//! prompt dispositions, `clear_queue`, `get_entries`, `get_tree`,
//! `get_available_thinking_levels`, and the `bash_execution_update` event of the `bash` command.

use crate::ThinkingLevel;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::session::SessionEntry;

/// What happened to a submitted prompt, steer or follow-up.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Disposition {
    /// Accepted to start a run.
    Started,
    /// Queued behind the running one.
    Queued,
    /// Consumed by an extension command or input handler; no run follows.
    Handled,
}

/// `{"disposition"}` of `prompt`, `steer` and `follow_up`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct DispositionReply {
    /// What happened to the input.
    pub disposition: Disposition,
}

/// `clear_queue`: the texts taken out of both queues.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct QueueContents {
    /// Steering texts.
    pub steering: Vec<String>,
    /// Follow-up texts.
    pub follow_up: Vec<String>,
}

/// `get_entries`: entries in append order (borrowed), and the current leaf (`null` when empty).
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct EntryList<'a> {
    /// The entries after the cursor, or all.
    pub entries: &'a [SessionEntry],
    /// The current leaf.
    pub leaf_id: Option<&'a str>,
}

/// One node of `get_tree`: an entry, its children (oldest first) and its label.
#[derive(Debug, Clone)]
pub struct TreeNode<'a> {
    /// The entry.
    pub entry: &'a SessionEntry,
    /// Indexes (into [`SessionTreeReply::nodes`]) of the entries whose parent it is.
    pub children: Vec<usize>,
    /// The label the last `label` entry targeting it set.
    pub label: Option<&'a str>,
    /// When that label was set.
    pub label_timestamp: Option<&'a str>,
}

/// `get_tree`'s `data`: `{"tree":[{entry, children, label?, labelTimestamp?}...], "leafId"}`.
/// Held flat and written without recursion, so a session of any depth (every message is one
/// level deeper) encodes without exhausting the stack.
#[derive(Debug, Clone, Default)]
pub struct SessionTreeReply<'a> {
    /// Every node.
    pub nodes: Vec<TreeNode<'a>>,
    /// Indexes of the roots (orphans included), in file order.
    pub roots: Vec<usize>,
    /// The current leaf.
    pub leaf_id: Option<&'a str>,
}

impl SessionTreeReply<'_> {
    /// The JSON text.
    pub fn to_json(&self) -> serde_json::Result<Vec<u8>> {
        let mut out = b"{\"tree\":[".to_vec();
        // (node, how many of its children are written), deepest last.
        let mut stack: Vec<(usize, usize)> = Vec::new();
        for (n, &root) in self.roots.iter().enumerate() {
            if n > 0 {
                out.push(b',');
            }
            self.open(root, &mut out)?;
            stack.push((root, 0));
            while let Some((node, written)) = stack.last_mut() {
                let node = &self.nodes[*node];
                if let Some(&child) = node.children.get(*written) {
                    if *written > 0 {
                        out.push(b',');
                    }
                    *written += 1;
                    self.open(child, &mut out)?;
                    stack.push((child, 0));
                } else {
                    out.push(b']');
                    if let Some(label) = node.label {
                        out.extend_from_slice(b",\"label\":");
                        serde_json::to_writer(&mut out, label)?;
                    }
                    if let Some(at) = node.label_timestamp {
                        out.extend_from_slice(b",\"labelTimestamp\":");
                        serde_json::to_writer(&mut out, at)?;
                    }
                    out.push(b'}');
                    stack.pop();
                }
            }
        }
        out.extend_from_slice(b"],\"leafId\":");
        serde_json::to_writer(&mut out, &self.leaf_id)?;
        out.push(b'}');
        Ok(out)
    }

    /// `{"entry":<entry>,"children":[`
    fn open(&self, node: usize, out: &mut Vec<u8>) -> serde_json::Result<()> {
        out.extend_from_slice(b"{\"entry\":");
        serde_json::to_writer(&mut *out, self.nodes[node].entry)?;
        out.extend_from_slice(b",\"children\":[");
        Ok(())
    }
}

/// `get_available_thinking_levels`: `["off"]` for a model that does not reason.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct ThinkingLevels {
    /// Supported levels, lowest first.
    pub levels: Vec<ThinkingLevel>,
}

/// pi 1.x's `get_last_assistant_text`: `text` is `null` when there is none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct NullableText {
    /// The last reply's trimmed text.
    pub text: Option<String>,
}

/// `{"type":"bash_execution_update","id"?,"delta"}`: one piece of a running `bash` command's
/// output; `id` is the command's, when it had one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct BashExecutionUpdate {
    /// Always `"bash_execution_update"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The `bash` command's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Value>,
    /// The output written since the last update.
    pub delta: String,
}
