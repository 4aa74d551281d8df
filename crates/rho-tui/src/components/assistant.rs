//! The assistant's reply: thinking blocks (collapsible) and text, as markdown; aborted and failed
//! replies end with a red notice. Tool calls are separate components ([`super::ToolCallView`]).

use rho_protocol::{AssistantMessage, ContentBlock, StopReason};

use super::{indent_lines, Component};
use crate::incremental::MarkdownCache;
use crate::markdown::render_markdown;
use crate::theme::{italic, Theme};

/// One displayable block of a reply.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplyBlock {
    /// Answer text (markdown).
    Text(String),
    /// Reasoning text.
    Thinking(String),
}

impl ReplyBlock {
    fn text_mut(&mut self) -> &mut String {
        match self {
            ReplyBlock::Text(t) | ReplyBlock::Thinking(t) => t,
        }
    }
}

/// An assistant message as shown in the transcript.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AssistantMessageView {
    /// Text and thinking blocks in stream order (tool calls are not drawn here).
    pub blocks: Vec<ReplyBlock>,
    /// When false, thinking shows as a one-line `Thinking...` label (pi's hidden thinking).
    pub thinking_expanded: bool,
    /// What that one line says instead of `Thinking...` (an extension's
    /// `setHiddenThinkingLabel`).
    pub hidden_label: Option<String>,
    /// `aborted` / `error` end the message with a notice.
    pub stop_reason: Option<StopReason>,
    /// The error text for `error`, the reason for `aborted`.
    pub error_message: Option<String>,
    /// Markdown caches, one per block (kept in step by [`Self::sync`]).
    md: Vec<MarkdownCache>,
}

impl AssistantMessageView {
    /// A view with thinking shown or collapsed.
    pub fn new(thinking_expanded: bool) -> Self {
        Self {
            thinking_expanded,
            ..Self::default()
        }
    }

    /// Brings the view up to date with a (partial or final) message. Streaming only appends, so
    /// the common case copies just the new suffix of the last block.
    pub fn sync(&mut self, msg: &AssistantMessage) -> bool {
        self.sync_blocks(msg, false)
    }

    /// [`Self::sync`] for a partial message of the reply being streamed: its blocks only grow,
    /// so a longer block takes its new suffix and an equally long one is unchanged, without
    /// comparing the text already shown (per-token work stays O(delta)).
    pub fn sync_partial(&mut self, msg: &AssistantMessage) -> bool {
        self.sync_blocks(msg, true)
    }

    fn sync_blocks(&mut self, msg: &AssistantMessage, appending: bool) -> bool {
        let mut changed = false;
        let mut i = 0;
        for block in &msg.content {
            let (text, thinking) = match block {
                ContentBlock::Text(t) => (t.text.as_str(), false),
                ContentBlock::Thinking(t) => (t.thinking.as_str(), true),
                _ => continue,
            };
            if i == self.blocks.len() {
                self.blocks.push(if thinking {
                    ReplyBlock::Thinking(String::new())
                } else {
                    ReplyBlock::Text(String::new())
                });
            }
            let cur = self.blocks[i].text_mut();
            if appending && text.len() >= cur.len() && text.is_char_boundary(cur.len()) {
                if text.len() > cur.len() {
                    cur.push_str(&text[cur.len()..]);
                    changed = true;
                }
            } else if cur.as_str() != text {
                if text.len() > cur.len() && text.starts_with(cur.as_str()) {
                    cur.push_str(&text[cur.len()..]);
                } else {
                    *cur = text.to_string();
                }
                changed = true;
            }
            i += 1;
        }
        if self.blocks.len() > i {
            self.blocks.truncate(i);
            changed = true;
        }
        self.md
            .resize_with(self.blocks.len(), MarkdownCache::default);
        let stop = matches!(msg.stop_reason, StopReason::Aborted | StopReason::Error)
            .then_some(msg.stop_reason);
        if stop != self.stop_reason || msg.error_message != self.error_message {
            self.stop_reason = stop;
            self.error_message = msg.error_message.clone();
            changed = true;
        }
        changed
    }
}

impl Component for AssistantMessageView {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        let c = &theme.colors;
        let inner = width.saturating_sub(2).max(1);
        let md = |i: usize, text: &str| match self.md.get(i) {
            Some(cache) => cache.render(text, inner, theme),
            None => render_markdown(text, inner, theme),
        };
        let mut out = Vec::new();
        for (i, block) in self.blocks.iter().enumerate() {
            match block {
                ReplyBlock::Text(t) if !t.trim().is_empty() => {
                    out.push(String::new());
                    out.extend(indent_lines(md(i, t), 1));
                }
                ReplyBlock::Thinking(t) if !t.trim().is_empty() => {
                    out.push(String::new());
                    if self.thinking_expanded {
                        let lines = md(i, t)
                            .into_iter()
                            .map(|l| italic(&theme.fg(c.thinking_text, &l)))
                            .collect();
                        out.extend(indent_lines(lines, 1));
                    } else {
                        out.push(format!(
                            " {}",
                            italic(&theme.fg(
                                c.thinking_text,
                                self.hidden_label.as_deref().unwrap_or("Thinking...")
                            ))
                        ));
                    }
                }
                _ => {}
            }
        }
        match self.stop_reason {
            Some(StopReason::Aborted) => {
                // As pi: the reason when there is one beyond the plain abort (a reply cut off
                // by steering says it was discarded).
                let msg = match self.error_message.as_deref() {
                    Some(m) if m != "Request was aborted" && !m.is_empty() => m,
                    _ => "Operation aborted",
                };
                out.push(String::new());
                let text = theme.fg(c.error, msg);
                out.extend(indent_lines(crate::ansi::wrap(&text, inner), 1));
            }
            Some(StopReason::Error) => {
                let msg = self.error_message.as_deref().unwrap_or("Unknown error");
                out.push(String::new());
                let text = theme.fg(c.error, &format!("Error: {msg}"));
                out.extend(indent_lines(crate::ansi::wrap(&text, inner), 1));
            }
            _ => {}
        }
        out
    }
}
