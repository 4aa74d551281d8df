//! pi 1.x's system messages as a state: replaying a transcript's `system` messages in order
//! gives the prompt and tools the model currently has (pi-ai's `getCurrentSystemMessage`),
//! and comparing that state with the wanted prompt sections and tools gives the one
//! `system` message that records the change (`sections` patched by name, `null` removing
//! one; `toolsAdded`/`toolsRemoved`), or none when nothing changed. The model is sent what
//! the replay says, so the prompt's prefix stays the same across reloads.

use serde_json::{json, Map, Value};

use super::message::SystemMessage;
use crate::message::{Tool, UserContent};

/// What a transcript's system messages add up to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SystemState {
    /// Each message's non-empty free-form content, in order (later content appends).
    pub content: Vec<String>,
    /// Named sections in the order first declared (a patch keeps a section's place).
    pub sections: Vec<(String, String)>,
    /// Tool declarations as written, in declaration order (a tool removed and added again
    /// moves to the end).
    pub tools: Vec<Value>,
    /// The first system message's timestamp.
    pub timestamp: i64,
}

fn tool_name(declaration: &Value) -> &str {
    declaration["name"].as_str().unwrap_or_default()
}

impl SystemState {
    /// Replays `messages` in order; `None` when there are none.
    pub fn replay<'a>(messages: impl IntoIterator<Item = &'a SystemMessage>) -> Option<Self> {
        let mut messages = messages.into_iter().peekable();
        let first = messages.peek()?.timestamp;
        let mut state = SystemState {
            timestamp: first,
            ..SystemState::default()
        };
        for message in messages {
            state.apply(message);
        }
        Some(state)
    }

    /// Applies one system message: content appends, sections are set or (`null`) removed,
    /// removed tools go before added ones.
    pub fn apply(&mut self, message: &SystemMessage) {
        let text = message.content.text();
        if !text.is_empty() {
            self.content.push(text);
        }
        for (name, value) in message.sections.iter().flatten() {
            let at = self.sections.iter().position(|(n, _)| n == name);
            match (value.as_str(), at) {
                (Some(text), Some(i)) => self.sections[i].1 = text.to_string(),
                (Some(text), None) => self.sections.push((name.clone(), text.to_string())),
                (None, Some(i)) => {
                    self.sections.remove(i);
                }
                (None, None) => {}
            }
        }
        for removed in message.tools_removed.iter().flatten() {
            let name = tool_name(removed);
            self.tools.retain(|t| tool_name(t) != name);
        }
        for added in message.tools_added.iter().flatten() {
            match self
                .tools
                .iter_mut()
                .find(|t| tool_name(t) == tool_name(added))
            {
                Some(slot) => *slot = added.clone(),
                None => self.tools.push(added.clone()),
            }
        }
    }

    /// The prompt as the model gets it: the content, then each section, blank-line separated
    /// (pi-ai's `getSystemMessageText` of the replayed message).
    pub fn text(&self) -> String {
        let content = self.content.join("\n\n");
        std::iter::once(content.as_str())
            .chain(self.sections.iter().map(|(_, text)| text.as_str()))
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("\n\n")
    }

    /// The tools as the model gets them; a declaration that is not a tool is left out.
    pub fn tools(&self) -> Vec<Tool> {
        self.tools
            .iter()
            .filter_map(|t| serde_json::from_value(t.clone()).ok())
            .collect()
    }

    /// The whole state as one system message (a compaction's checkpoint), at `timestamp`.
    pub fn checkpoint(&self, timestamp: i64) -> SystemMessage {
        SystemMessage {
            content: UserContent::Text(self.content.join("\n\n")),
            sections: (!self.sections.is_empty()).then(|| section_map(&self.sections)),
            tools_added: (!self.tools.is_empty()).then(|| self.tools.clone()),
            tools_removed: None,
            timestamp,
        }
    }

    /// The system message that brings this state to `sections` and `tools`, or `None` when
    /// it is there already. A changed tool is removed and added again (pi's
    /// `getToolStateChanges`).
    pub fn patch(
        &self,
        sections: &[(String, String)],
        tools: &[Tool],
        timestamp: i64,
    ) -> Option<SystemMessage> {
        let mut patch = Map::new();
        for (name, text) in sections {
            let now = self.sections.iter().find(|(n, _)| n == name);
            if now.map(|(_, t)| t) != Some(text) {
                patch.insert(name.clone(), json!(text));
            }
        }
        for (name, _) in &self.sections {
            if !sections.iter().any(|(n, _)| n == name) {
                patch.insert(name.clone(), Value::Null);
            }
        }
        let wanted: Vec<Value> = tools.iter().map(declaration).collect();
        let same = |a: &Value, list: &[Value]| list.iter().any(|b| b == a);
        let added: Vec<Value> = wanted
            .iter()
            .filter(|t| !same(t, &self.tools))
            .cloned()
            .collect();
        let removed: Vec<Value> = self
            .tools
            .iter()
            .filter(|t| !same(t, &wanted))
            .map(|t| json!({"name": tool_name(t)}))
            .collect();
        if patch.is_empty() && added.is_empty() && removed.is_empty() {
            return None;
        }
        Some(SystemMessage {
            content: UserContent::Text(String::new()),
            sections: (!patch.is_empty()).then_some(patch),
            tools_added: (!added.is_empty()).then_some(added),
            tools_removed: (!removed.is_empty()).then_some(removed),
            timestamp,
        })
    }
}

/// The first system message of a transcript: every section and tool.
pub fn initial_system_message(
    sections: &[(String, String)],
    tools: &[Tool],
    timestamp: i64,
) -> Option<SystemMessage> {
    SystemState::default().patch(sections, tools, timestamp)
}

fn section_map(sections: &[(String, String)]) -> Map<String, Value> {
    sections
        .iter()
        .map(|(name, text)| (name.clone(), json!(text)))
        .collect()
}

/// A tool as a transcript declares it: name, description, parameters.
fn declaration(tool: &Tool) -> Value {
    json!({"name": tool.name, "description": tool.description, "parameters": tool.parameters})
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(name: &str, description: &str) -> Tool {
        Tool {
            name: name.into(),
            description: description.into(),
            parameters: json!({"type": "object"}),
        }
    }

    fn sections(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect()
    }

    #[test]
    fn the_first_message_declares_everything_and_replays_to_it() {
        let wanted = sections(&[("preamble", "You help."), ("cwd", "<cwd>\n/p\n</cwd>")]);
        let tools = [tool("read", "Read"), tool("bash", "Run")];
        let first = initial_system_message(&wanted, &tools, 7).expect("a message");
        let line = serde_json::to_value(&first).expect("encodes");
        assert_eq!(line["content"], "");
        assert_eq!(
            line["sections"],
            json!({"preamble": "You help.", "cwd": "<cwd>\n/p\n</cwd>"})
        );
        assert_eq!(line["toolsAdded"][1]["name"], "bash");
        assert!(line.get("toolsRemoved").is_none());
        let state = SystemState::replay([&first]).expect("state");
        assert_eq!(state.text(), "You help.\n\n<cwd>\n/p\n</cwd>");
        assert_eq!(state.tools(), tools);
        assert_eq!(state.timestamp, 7);
        assert!(state.patch(&wanted, &tools, 8).is_none(), "nothing changed");
    }

    #[test]
    fn changes_patch_sections_by_name_and_tools_by_declaration() {
        let before = sections(&[("preamble", "P"), ("skills", "S"), ("cwd", "C")]);
        let first = initial_system_message(&before, &[tool("read", "R"), tool("write", "W")], 1)
            .expect("first");
        let state = SystemState::replay([&first]).expect("state");
        let after = sections(&[("preamble", "P"), ("cwd", "C2"), ("addendum", "A")]);
        let tools = [tool("read", "R, better"), tool("grep", "G")];
        let patch = state.patch(&after, &tools, 2).expect("a change");
        let line = serde_json::to_value(&patch).expect("encodes");
        assert_eq!(
            line["sections"],
            json!({"cwd": "C2", "addendum": "A", "skills": null})
        );
        let added: Vec<&str> = patch.tools_added.iter().flatten().map(tool_name).collect();
        assert_eq!(added, ["read", "grep"]);
        assert_eq!(
            line["toolsRemoved"],
            json!([{"name": "read"}, {"name": "write"}])
        );
        let replayed = SystemState::replay([&first, &patch]).expect("state");
        // A patched section keeps its place; a new one goes last, so the prefix stays.
        assert_eq!(replayed.text(), "P\n\nC2\n\nA");
        assert_eq!(replayed.tools(), tools);
        assert!(replayed.patch(&after, &tools, 3).is_none());
        let checkpoint = serde_json::to_value(replayed.checkpoint(9)).expect("encodes");
        assert_eq!(
            checkpoint,
            json!({"content": "", "sections": {"preamble": "P", "cwd": "C2", "addendum": "A"},
                   "toolsAdded": [declaration(&tools[0]), declaration(&tools[1])], "timestamp": 9})
        );
    }

    #[test]
    fn content_appends_and_nothing_wanted_removes_everything() {
        let first = SystemMessage {
            content: UserContent::Text("Base.".into()),
            sections: None,
            tools_added: None,
            tools_removed: None,
            timestamp: 1,
        };
        let more = SystemMessage {
            content: UserContent::Text("More.".into()),
            ..first.clone()
        };
        let state = SystemState::replay([&first, &more]).expect("state");
        assert_eq!(state.text(), "Base.\n\nMore.");
        assert!(SystemState::replay([]).is_none());
        let empty = SystemState::default();
        assert!(initial_system_message(&[], &[], 1).is_none());
        assert!(empty.patch(&[], &[], 1).is_none());
    }
}
