//! The reply being streamed. Its events carry deltas, not the partial message, so the
//! transcript folds them ([`PartialMessage`]) and brings the reply's views up to date with
//! each one at the cost of its delta: text and thinking by appending what the delta added, a
//! tool call's arguments once per drawn frame ([`Transcript::lines`]), since parsing a call's
//! argument JSON costs what all of it costs and per delta would make a long call quadratic.

use rho_protocol::{
    AssistantMessage, AssistantMessageEvent, ContentBlock, PartialMessage, ToolCall,
};

use super::{ToolStatus, Transcript, View};

impl Transcript {
    /// A reply began streaming in slot `i` as `message` (its `message_start`).
    pub(super) fn start_reply(&mut self, i: usize, message: &AssistantMessage) {
        self.streaming = Some(i);
        self.reply = PartialMessage::starting(message.clone());
        self.arguments_behind = false;
    }

    /// The streaming reply ended (or the transcript was cleared): its fold goes.
    pub(super) fn end_reply(&mut self) {
        self.reply = PartialMessage::new();
        self.arguments_behind = false;
    }

    /// One `message_update` of the streaming reply.
    pub(super) fn apply_update(&mut self, event: &AssistantMessageEvent) {
        self.reply.apply(event);
        let Some(i) = self.streaming else {
            return;
        };
        match event {
            AssistantMessageEvent::ToolCallStart { id, name, .. } => {
                self.tool_slot(id, name);
            }
            AssistantMessageEvent::ToolCallDelta { .. } => self.arguments_behind = true,
            AssistantMessageEvent::ToolCallEnd { tool_call, .. } => self.sync_call(tool_call),
            _ => {
                let reply = std::mem::take(&mut self.reply);
                if let Some(a) = reply.peek() {
                    self.sync_reply_view(i, a, true);
                }
                self.reply = reply;
            }
        }
    }

    /// Gives the streaming tool calls' views the arguments streamed so far (parsed here, once
    /// per frame, rather than per delta).
    pub(super) fn catch_up_arguments(&mut self) {
        if !std::mem::take(&mut self.arguments_behind) {
            return;
        }
        let mut reply = std::mem::take(&mut self.reply);
        if let Some(a) = reply.message() {
            self.sync_tool_calls(a);
        }
        self.reply = reply;
    }

    /// `partial`: `a` is the streaming reply's partial message (its blocks only grow).
    pub(super) fn sync_assistant(&mut self, i: usize, a: &AssistantMessage, partial: bool) {
        self.sync_reply_view(i, a, partial);
        self.sync_tool_calls(a);
    }

    /// The reply's own view (its text and thinking blocks).
    fn sync_reply_view(&mut self, i: usize, a: &AssistantMessage, partial: bool) {
        if let View::Assistant(v) = &mut self.slots[i].view {
            let changed = if partial {
                v.sync_partial(a)
            } else {
                v.sync(a)
            };
            if changed {
                self.mark(i);
            }
        }
    }

    pub(super) fn sync_tool_calls(&mut self, a: &AssistantMessage) {
        for block in &a.content {
            if let ContentBlock::ToolCall(call) = block {
                self.sync_call(call);
            }
        }
    }

    /// A pending call's view shows `call`'s arguments.
    fn sync_call(&mut self, call: &ToolCall) {
        let i = self.tool_slot(&call.id, &call.name);
        if let View::Tool(t) = &mut self.slots[i].view {
            if t.status == ToolStatus::Pending && t.args != call.arguments {
                t.args = call.arguments.clone();
                self.mark(i);
            }
        }
    }
}
