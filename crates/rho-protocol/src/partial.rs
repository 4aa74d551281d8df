//! A reply's partial message, folded from its stream events the way pi's shared `partial`
//! object evolves: what pi 0.73.1 writes as `message_update`'s `message`, what a UI shows
//! while a reply streams, what an interrupted reply keeps.
//!
//! Events carry deltas, not snapshots, and folding one costs what its delta costs: text and
//! thinking are appended, and a tool call's argument JSON is appended raw and parsed
//! (leniently, [`parse_partial_json`]) only when the message is read. A reader that looks once
//! per written line or per drawn frame pays one parse there, not one per delta, so a long
//! reply is not quadratic in its tool calls' arguments.

use crate::content::{ContentBlock, TextContent, ThinkingContent, ToolCall};
use crate::json_stream::parse_partial_json;
use crate::message::AssistantMessage;
use crate::stream_event::AssistantMessageEvent;

/// The partial message of one reply (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct PartialMessage {
    message: Option<AssistantMessage>,
    /// The tool calls still streaming.
    tool_json: Vec<ToolJson>,
}

/// A streaming tool call's argument JSON so far.
#[derive(Debug, Clone)]
struct ToolJson {
    /// Its content index.
    index: usize,
    raw: String,
    /// Whether the call's `arguments` are parsed from all of `raw`.
    parsed: bool,
}

impl PartialMessage {
    /// An empty fold (no message before `start`).
    pub fn new() -> Self {
        Self::default()
    }

    /// A fold whose reply began as `message` (the `start` event's partial, which an agent's
    /// `message_start` carries).
    pub fn starting(message: AssistantMessage) -> Self {
        Self {
            message: Some(message),
            tool_json: Vec::new(),
        }
    }

    /// The message so far (`None` before `start`), tool-call arguments parsed from all the
    /// JSON streamed so far.
    pub fn message(&mut self) -> Option<&AssistantMessage> {
        self.parse_arguments();
        self.message.as_ref()
    }

    /// The message so far without parsing streaming tool calls' arguments: their `arguments`
    /// are as of the last [`Self::message`] (or `{}`); everything else is current. For readers
    /// of the text, thinking or usage, at no cost per delta.
    pub fn peek(&self) -> Option<&AssistantMessage> {
        self.message.as_ref()
    }

    /// The message so far, as [`Self::message`] gives it.
    pub fn into_message(mut self) -> Option<AssistantMessage> {
        self.parse_arguments();
        self.message
    }

    /// Applies one event.
    pub fn apply(&mut self, event: &AssistantMessageEvent) {
        use AssistantMessageEvent as E;
        match event {
            E::Start { partial } => self.message = Some(partial.clone()),
            E::Done { message, .. } => self.message = Some(message.clone()),
            E::Error { error, .. } => self.message = Some(error.clone()),
            E::TextStart { content_index } => {
                self.set_block(*content_index, ContentBlock::Text(TextContent::default()))
            }
            E::ThinkingStart { content_index } => self.set_block(
                *content_index,
                ContentBlock::Thinking(ThinkingContent::default()),
            ),
            E::ToolCallStart {
                content_index,
                id,
                name,
            } => {
                self.tool_json.push(ToolJson {
                    index: *content_index,
                    raw: String::new(),
                    parsed: true,
                });
                self.set_block(
                    *content_index,
                    ContentBlock::ToolCall(ToolCall {
                        id: id.clone(),
                        name: name.clone(),
                        ..Default::default()
                    }),
                )
            }
            E::TextDelta {
                content_index,
                delta,
            } => {
                if let Some(ContentBlock::Text(t)) = self.block_mut(*content_index) {
                    t.text.push_str(delta);
                }
            }
            E::ThinkingDelta {
                content_index,
                delta,
            } => {
                if let Some(ContentBlock::Thinking(t)) = self.block_mut(*content_index) {
                    t.thinking.push_str(delta);
                }
            }
            E::ToolCallDelta {
                content_index,
                delta,
            } => {
                if let Some(call) = self
                    .tool_json
                    .iter_mut()
                    .find(|c| c.index == *content_index)
                {
                    call.raw.push_str(delta);
                    call.parsed = false;
                }
            }
            E::TextEnd {
                content_index,
                text,
            } => self.set_block(*content_index, ContentBlock::Text(text.clone())),
            E::ThinkingEnd {
                content_index,
                thinking,
            } => self.set_block(*content_index, ContentBlock::Thinking(thinking.clone())),
            E::ToolCallEnd {
                content_index,
                tool_call,
            } => {
                self.tool_json.retain(|c| c.index != *content_index);
                self.set_block(*content_index, ContentBlock::ToolCall(tool_call.clone()))
            }
        }
    }

    /// Parses the argument JSON of every streaming tool call that changed since it was last
    /// parsed.
    fn parse_arguments(&mut self) {
        let Some(message) = self.message.as_mut() else {
            return;
        };
        for call in self.tool_json.iter_mut().filter(|c| !c.parsed) {
            call.parsed = true;
            if let Some(ContentBlock::ToolCall(tc)) = message.content.get_mut(call.index) {
                tc.arguments = parse_partial_json(&call.raw);
            }
        }
    }

    fn block_mut(&mut self, index: usize) -> Option<&mut ContentBlock> {
        self.message.as_mut()?.content.get_mut(index)
    }

    fn set_block(&mut self, index: usize, block: ContentBlock) {
        let Some(m) = self.message.as_mut() else {
            return;
        };
        if index < m.content.len() {
            m.content[index] = block;
        } else {
            m.content.push(block);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stream_event::AssistantMessageEvent as E;
    use serde_json::json;

    #[test]
    fn partial_message_folds_deltas_and_lenient_tool_json() {
        let mut p = PartialMessage::new();
        let events = [
            E::Start {
                partial: AssistantMessage::empty("a", "p", "m"),
            },
            E::TextStart { content_index: 0 },
            E::TextDelta {
                content_index: 0,
                delta: "Hel".into(),
            },
            E::TextDelta {
                content_index: 0,
                delta: "lo".into(),
            },
            E::ToolCallStart {
                content_index: 1,
                id: "t1".into(),
                name: "read".into(),
            },
            E::ToolCallDelta {
                content_index: 1,
                delta: "{\"path\": \"src/ma".into(),
            },
        ];
        for e in &events {
            p.apply(e);
        }
        let m = p.message().expect("started");
        assert_eq!(m.text(), "Hello");
        let tc = m.tool_calls().next().expect("tool call");
        assert_eq!(tc.arguments, json!({"path": "src/ma"}));
    }

    /// A tool call's arguments are parsed when the message is read, from all the JSON so far:
    /// reading after every delta gives what parsing after every delta gave.
    #[test]
    fn arguments_are_parsed_when_read_from_all_the_json_so_far() {
        let mut p = PartialMessage::starting(AssistantMessage::empty("a", "p", "m"));
        p.apply(&E::ToolCallStart {
            content_index: 0,
            id: "t1".into(),
            name: "write".into(),
        });
        let (mut raw, mut last_read) = (String::new(), json!({}));
        for piece in [
            "{\"pa",
            "th\": \"a.rs\", \"con",
            "tent\": \"fn main() {}",
            "\"}",
        ] {
            raw.push_str(piece);
            p.apply(&E::ToolCallDelta {
                content_index: 0,
                delta: piece.into(),
            });
            assert_eq!(
                p.peek()
                    .and_then(|m| m.tool_calls().next())
                    .map(|c| &c.arguments),
                Some(&last_read),
                "not parsed again before the message is read"
            );
            let m = p.message().expect("started");
            let call = m.tool_calls().next().expect("a call");
            assert_eq!(call.arguments, parse_partial_json(&raw));
            last_read = call.arguments.clone();
        }
        assert_eq!(
            p.clone()
                .into_message()
                .expect("started")
                .tool_calls()
                .next()
                .map(|c| c.arguments.clone()),
            Some(json!({"path": "a.rs", "content": "fn main() {}"}))
        );
        let end = ToolCall {
            id: "t1".into(),
            name: "write".into(),
            arguments: json!({"path": "final"}),
            ..Default::default()
        };
        p.apply(&E::ToolCallEnd {
            content_index: 0,
            tool_call: end.clone(),
        });
        assert_eq!(p.peek().and_then(|m| m.tool_calls().next()), Some(&end));
    }
}
