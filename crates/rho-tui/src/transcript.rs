//! The transcript: the conversation's components, kept up to date from [`SessionEvent`]s, and
//! their rendered lines, cached per component.
//!
//! A streamed token changes only the reply being streamed, so only that component is rendered
//! again and its lines spliced into the flat line list; everything above is reused untouched.

use std::collections::HashMap;

use rho_protocol::agent::{AgentEvent, AgentMessage, CustomMessage};
use rho_protocol::message::join_text;
use rho_protocol::session::entry::EntryData;
use rho_protocol::session::{SessionEvent, SessionOnlyEvent};
use rho_protocol::{AssistantMessage, ContentBlock, PartialMessage, StopReason};

use crate::components::{
    AssistantMessageView, BashExecutionView, BranchSummaryView, CompactionView, Component,
    CustomEntryView, CustomMessageView, QueueView, StatusView, ToolCallView, ToolStatus,
    UsageTotals, UserMessageView,
};
use crate::theme::Theme;

mod streaming;

/// Any component the transcript holds.
#[derive(Debug, Clone, PartialEq)]
pub enum View {
    /// A user message.
    User(UserMessageView),
    /// An assistant reply.
    Assistant(AssistantMessageView),
    /// A tool call and its result.
    Tool(ToolCallView),
    /// An extension message.
    Custom(CustomMessageView),
    /// An extension's `custom` entry (shown only as the extension draws it).
    Entry(CustomEntryView),
    /// A compaction summary.
    Compaction(CompactionView),
    /// A branch summary.
    BranchSummary(BranchSummaryView),
    /// A user shell command.
    Bash(BashExecutionView),
    /// A one-line status note.
    Status(StatusView),
    /// Nothing (a status that went away).
    Empty,
}

impl Component for View {
    fn render(&self, width: usize, theme: &Theme) -> Vec<String> {
        match self {
            View::User(v) => v.render(width, theme),
            View::Assistant(v) => v.render(width, theme),
            View::Tool(v) => v.render(width, theme),
            View::Custom(v) => v.render(width, theme),
            View::Entry(v) => v.render(width, theme),
            View::Compaction(v) => v.render(width, theme),
            View::BranchSummary(v) => v.render(width, theme),
            View::Bash(v) => v.render(width, theme),
            View::Status(v) => v.render(width, theme),
            View::Empty => Vec::new(),
        }
    }
}

/// The note under a reply cut off by a steering message.
const INTERRUPTED: &str =
    "Interrupted by your message: this partial reply was discarded (not in the context)";

/// Whether a reply's `message_end` says steering discarded it (stopReason `aborted`, an
/// errorMessage that says so).
fn is_discarded(a: &AssistantMessage) -> bool {
    a.stop_reason == rho_protocol::StopReason::Aborted
        && a.error_message
            .as_deref()
            .is_some_and(|m| m.to_ascii_lowercase().contains("discard"))
}

#[derive(Debug)]
struct Slot {
    view: View,
    start: usize,
    len: usize,
    dirty: bool,
    /// Counts changes to the view (what an extension's drawing of it is checked against).
    revision: u64,
}

/// The conversation as components plus its rendered lines.
#[derive(Debug)]
pub struct Transcript {
    theme: Theme,
    slots: Vec<Slot>,
    lines: Vec<String>,
    width: usize,
    /// First slot that needs rendering (`usize::MAX`: none).
    dirty_from: usize,
    tools: HashMap<String, usize>,
    /// The slot of the reply being streamed.
    streaming: Option<usize>,
    /// That reply, folded from its events (see `streaming`).
    reply: PartialMessage,
    /// A streaming tool call's argument JSON grew since its view was last given it.
    arguments_behind: bool,
    status: Option<usize>,
    queue: QueueView,
    usage: UsageTotals,
    context_tokens: Option<u64>,
    thinking_expanded: bool,
    hidden_thinking_label: Option<String>,
    tools_expanded: bool,
}

impl Transcript {
    /// An empty transcript drawn with `theme`.
    pub fn new(theme: Theme) -> Self {
        Self {
            theme,
            slots: Vec::new(),
            lines: Vec::new(),
            width: 0,
            dirty_from: usize::MAX,
            tools: HashMap::new(),
            streaming: None,
            reply: PartialMessage::new(),
            arguments_behind: false,
            status: None,
            queue: QueueView::default(),
            usage: UsageTotals::default(),
            context_tokens: None,
            thinking_expanded: true,
            hidden_thinking_label: None,
            tools_expanded: false,
        }
    }

    /// The components, oldest first.
    pub fn views(&self) -> impl Iterator<Item = &View> {
        self.slots.iter().map(|s| &s.view)
    }

    /// The queued messages as last reported.
    pub fn queue(&self) -> &QueueView {
        &self.queue
    }

    /// Usage summed over finished assistant messages (for the footer).
    pub fn usage(&self) -> UsageTotals {
        self.usage
    }

    /// Context size per the last successful reply (pi's footer figure).
    pub fn context_tokens(&self) -> Option<u64> {
        self.context_tokens
    }

    /// Removes every component (a new session, or a rebuild after compaction or a tree move);
    /// queue and toggles are kept; usage starts again from zero ([`Transcript::load`] recounts it).
    pub fn clear(&mut self) {
        self.usage = UsageTotals::default();
        self.context_tokens = None;
        self.slots.clear();
        self.lines.clear();
        self.tools.clear();
        self.streaming = None;
        self.end_reply();
        self.status = None;
        self.dirty_from = usize::MAX;
    }

    /// Switches theme; everything is drawn again.
    pub fn set_theme(&mut self, theme: Theme) {
        self.theme = theme;
        self.width = 0;
    }

    /// Shows or collapses thinking blocks in every reply (pi's ctrl+t).
    pub fn set_thinking_expanded(&mut self, expanded: bool) {
        self.thinking_expanded = expanded;
        for i in 0..self.slots.len() {
            if let View::Assistant(a) = &mut self.slots[i].view {
                a.thinking_expanded = expanded;
                self.mark(i);
            }
        }
    }

    /// What collapsed thinking says in every reply (`None`: `Thinking...`).
    pub fn set_hidden_thinking_label(&mut self, label: Option<String>) {
        self.hidden_thinking_label = label;
        for i in 0..self.slots.len() {
            if let View::Assistant(a) = &mut self.slots[i].view {
                a.hidden_label.clone_from(&self.hidden_thinking_label);
                self.mark(i);
            }
        }
    }

    /// Expands or collapses every tool output and summary (pi's ctrl+o).
    pub fn set_tools_expanded(&mut self, expanded: bool) {
        self.tools_expanded = expanded;
        for i in 0..self.slots.len() {
            let touched = match &mut self.slots[i].view {
                View::Tool(t) => std::mem::replace(&mut t.expanded, expanded) != expanded,
                View::Compaction(c) => std::mem::replace(&mut c.expanded, expanded) != expanded,
                View::BranchSummary(b) => std::mem::replace(&mut b.expanded, expanded) != expanded,
                View::Custom(c) => std::mem::replace(&mut c.expanded, expanded) != expanded,
                View::Entry(e) => std::mem::replace(&mut e.expanded, expanded) != expanded,
                _ => false,
            };
            if touched {
                self.mark(i);
            }
        }
    }

    /// Appends a component (for messages loaded from a session file, or UI notes).
    pub fn push(&mut self, view: View) -> usize {
        let start = self.lines.len();
        self.slots.push(Slot {
            view,
            start,
            len: 0,
            dirty: true,
            revision: 0,
        });
        let i = self.slots.len() - 1;
        self.dirty_from = self.dirty_from.min(i);
        i
    }

    /// Changes the component at `index` (as [`Transcript::push`] returned it) in place, e.g.
    /// a `!` command's output as it streams. Out-of-range indexes (the transcript was cleared
    /// since) are ignored.
    pub fn update(&mut self, index: usize, change: impl FnOnce(&mut View)) {
        if let Some(slot) = self.slots.get_mut(index) {
            change(&mut slot.view);
            self.mark(index);
        }
    }

    fn mark(&mut self, i: usize) {
        self.slots[i].revision += 1;
        self.redraw(i);
    }

    fn redraw(&mut self, i: usize) {
        self.slots[i].dirty = true;
        self.dirty_from = self.dirty_from.min(i);
    }

    /// The components with their indexes and revisions (a revision changes with every change
    /// to the component), for drawing some of them elsewhere.
    pub fn revisions(&mut self) -> impl Iterator<Item = (usize, u64, &View)> {
        self.catch_up_arguments();
        self.slots
            .iter()
            .enumerate()
            .map(|(i, s)| (i, s.revision, &s.view))
    }

    /// Puts lines drawn elsewhere for revision `revision` of component `index` into it
    /// (`change`), unless the component changed since; the revision stays, so the same
    /// drawing is not asked for again.
    pub fn set_drawn(&mut self, index: usize, revision: u64, change: impl FnOnce(&mut View)) {
        if self
            .slots
            .get(index)
            .is_some_and(|s| s.revision == revision)
        {
            change(&mut self.slots[index].view);
            self.redraw(index);
        }
    }

    /// Appends the component for a message, as it looks when final.
    pub fn push_message(&mut self, message: &AgentMessage) {
        match message {
            AgentMessage::User(u) => {
                self.push(View::User(UserMessageView {
                    text: u.content.text(),
                }));
            }
            AgentMessage::Assistant(a) => {
                let mut v = AssistantMessageView::new(self.thinking_expanded);
                v.hidden_label.clone_from(&self.hidden_thinking_label);
                v.sync(a);
                self.push(View::Assistant(v));
                self.sync_tool_calls(a);
            }
            AgentMessage::ToolResult(r) => self.finish_tool(
                &r.tool_call_id,
                &r.tool_name,
                &r.content,
                r.details.clone(),
                r.is_error,
            ),
            AgentMessage::BashExecution(b) => {
                self.push(View::Bash(BashExecutionView {
                    command: b.command.clone(),
                    output: b.output.clone(),
                    exit_code: b.exit_code,
                    cancelled: b.cancelled,
                    excluded: b.exclude_from_context == Some(true),
                }));
            }
            AgentMessage::Custom(c) if c.display => {
                self.push(View::Custom(CustomMessageView {
                    custom_type: c.custom_type.clone(),
                    text: c.content.text(),
                    details: c.details.clone(),
                    custom: None,
                    expanded: self.tools_expanded,
                }));
            }
            // Prompt state (pi 1.x), not conversation.
            AgentMessage::Custom(_) | AgentMessage::System(_) => {}
            AgentMessage::BranchSummary(b) => {
                self.push(View::BranchSummary(BranchSummaryView {
                    summary: b.summary.clone(),
                    expanded: self.tools_expanded,
                }));
            }
            AgentMessage::CompactionSummary(c) => {
                self.push(View::Compaction(CompactionView {
                    tokens_before: c.tokens_before,
                    summary: c.summary.clone(),
                    expanded: self.tools_expanded,
                }));
            }
        }
    }

    /// Appends the components of `messages` (a session opened, resumed or rebuilt), counting
    /// their usage for the footer.
    pub fn load(&mut self, messages: &[AgentMessage]) {
        self.load_with_entries(messages, Vec::new());
    }

    /// [`Transcript::load`] with the branch's `custom` entries, each `(when, entry)` with its
    /// time in Unix ms: an entry goes before the first message written after it.
    pub fn load_with_entries(
        &mut self,
        messages: &[AgentMessage],
        entries: Vec<(i64, serde_json::Value)>,
    ) {
        let mut entries = entries.into_iter().peekable();
        for message in messages {
            while let Some((_, entry)) = entries.next_if(|(at, _)| *at < message.timestamp()) {
                self.push_entry(entry);
            }
            self.push_message(message);
            if let AgentMessage::Assistant(a) = message {
                self.record_usage(a);
            }
        }
        for (_, entry) in entries {
            self.push_entry(entry);
        }
    }

    /// Appends an extension's `custom` entry.
    fn push_entry(&mut self, entry: serde_json::Value) {
        self.push(View::Entry(CustomEntryView {
            entry,
            custom: None,
            expanded: self.tools_expanded,
        }));
    }

    /// Applies one session event.
    pub fn apply(&mut self, event: &SessionEvent) {
        match event {
            SessionEvent::Agent(e) => self.apply_agent(e),
            SessionEvent::Session(e) => self.apply_session(e),
        }
    }

    fn apply_agent(&mut self, e: &AgentEvent) {
        match e {
            AgentEvent::MessageStart { message } => {
                if let Some(i) = self.streaming.take() {
                    // A reply without `message_end` was discarded (steering, decision D4).
                    self.interrupt(i);
                    self.end_reply();
                }
                self.push_message(message);
                if let Some(a) = message.as_assistant() {
                    self.start_reply(self.last_assistant(), a);
                }
            }
            AgentEvent::MessageUpdate {
                assistant_message_event,
                ..
            } => self.apply_update(assistant_message_event),
            AgentEvent::MessageEnd { message } => {
                self.end_reply();
                if let (Some(i), Some(a)) = (self.streaming.take(), message.as_assistant()) {
                    self.sync_assistant(i, a, false);
                    self.record_usage(a);
                    if is_discarded(a) {
                        self.drop_announced_calls(i);
                    }
                }
            }
            // Calls a tool made (a codemode script's) show in their caller's box.
            AgentEvent::ToolExecutionStart {
                parent_tool_call_id: Some(_),
                ..
            }
            | AgentEvent::ToolExecutionUpdate {
                parent_tool_call_id: Some(_),
                ..
            }
            | AgentEvent::ToolExecutionEnd {
                parent_tool_call_id: Some(_),
                ..
            } => {}
            AgentEvent::ToolExecutionStart {
                tool_call_id,
                tool_name,
                args,
                ..
            } => {
                let i = self.tool_slot(tool_call_id, tool_name);
                if let View::Tool(t) = &mut self.slots[i].view {
                    t.started = Some(std::time::Instant::now());
                    if &t.args != args {
                        t.args = args.clone();
                        self.mark(i);
                    }
                }
            }
            AgentEvent::ToolExecutionUpdate {
                tool_call_id,
                tool_name,
                partial_result,
                ..
            } => {
                let i = self.tool_slot(tool_call_id, tool_name);
                if let View::Tool(t) = &mut self.slots[i].view {
                    t.output = join_text(&partial_result.content);
                    self.mark(i);
                }
            }
            AgentEvent::ToolExecutionEnd {
                tool_call_id,
                tool_name,
                result,
                is_error,
                ..
            } => self.finish_tool(
                tool_call_id,
                tool_name,
                &result.content,
                result.details.clone(),
                *is_error,
            ),
            _ => {}
        }
    }

    fn apply_session(&mut self, e: &SessionOnlyEvent) {
        match e {
            SessionOnlyEvent::EntryAppended { entry } => match &entry.data {
                EntryData::Custom { .. } => {
                    if let Ok(entry) = serde_json::to_value(entry) {
                        self.push_entry(entry);
                    }
                }
                // A shown message an extension's `turn_end`/`agent_before_settle` appended
                // (pi 1.6 shows it as it is appended).
                EntryData::CustomMessage {
                    custom_type,
                    content,
                    display: true,
                    details,
                } => self.push_message(&AgentMessage::Custom(CustomMessage {
                    custom_type: custom_type.clone(),
                    content: content.clone(),
                    display: true,
                    details: details.as_deref().cloned(),
                    timestamp: 0,
                })),
                _ => {}
            },
            SessionOnlyEvent::QueueUpdate {
                steering,
                follow_up,
            } => {
                self.queue.steering.clone_from(steering);
                self.queue.follow_up.clone_from(follow_up);
            }
            SessionOnlyEvent::CompactionStart { .. } => {
                self.set_status(Some(View::Status(StatusView {
                    text: "Compacting context... (esc to cancel)".into(),
                    is_error: false,
                })));
            }
            SessionOnlyEvent::CompactionEnd {
                result,
                aborted,
                error_message,
                ..
            } => {
                let view = match (result, error_message) {
                    (Some(r), _) => View::Compaction(CompactionView {
                        tokens_before: r.tokens_before,
                        summary: r.summary.clone(),
                        expanded: self.tools_expanded,
                    }),
                    (None, Some(err)) => View::Status(StatusView {
                        text: err.clone(),
                        is_error: true,
                    }),
                    (None, None) if *aborted => View::Status(StatusView {
                        text: "Compaction cancelled".into(),
                        is_error: false,
                    }),
                    (None, None) => View::Empty,
                };
                self.set_status(Some(view));
                self.status = None;
            }
            SessionOnlyEvent::AutoRetryStart {
                attempt,
                max_attempts,
                delay_ms,
                error_message,
            } => {
                let text = retry_text(
                    "Retrying",
                    (*attempt, *max_attempts),
                    *delay_ms,
                    error_message,
                );
                self.set_status(Some(View::Status(StatusView {
                    text,
                    is_error: false,
                })));
            }
            SessionOnlyEvent::SummarizationRetryScheduled {
                attempt,
                max_attempts,
                delay_ms,
                error_message,
            } => {
                let what = "Summary failed, retrying";
                let text = retry_text(what, (*attempt, *max_attempts), *delay_ms, error_message);
                self.set_status(Some(View::Status(StatusView {
                    text,
                    is_error: false,
                })));
            }
            SessionOnlyEvent::AutoRetryEnd { final_error, .. } => {
                let view = final_error.as_ref().map_or(View::Empty, |err| {
                    View::Status(StatusView {
                        text: format!("Retry failed: {err}"),
                        is_error: true,
                    })
                });
                self.set_status(Some(view));
                self.status = None;
            }
            _ => {}
        }
    }

    /// Keeps the streamed reply at slot `i` on screen, marked as interrupted and left out of the
    /// context, for a reply that ended without `message_end` (steering, decision D4: a steering
    /// message discards the partial reply). The tool calls it announced never ran and go.
    fn interrupt(&mut self, i: usize) {
        if let View::Assistant(v) = &mut self.slots[i].view {
            v.stop_reason = Some(rho_protocol::StopReason::Aborted);
            v.error_message = Some(INTERRUPTED.to_string());
            self.mark(i);
        }
        self.drop_announced_calls(i);
    }

    /// Removes the pending tool views after slot `i`: calls a discarded reply announced.
    fn drop_announced_calls(&mut self, i: usize) {
        let pending: Vec<usize> = (i + 1..self.slots.len())
            .filter(|&j| {
                matches!(&self.slots[j].view, View::Tool(t) if t.status == ToolStatus::Pending)
            })
            .collect();
        for &j in &pending {
            self.slots[j].view = View::Empty;
            self.mark(j);
        }
        self.tools.retain(|_, slot| !pending.contains(slot));
    }

    /// Replaces the current status slot (or adds one).
    fn set_status(&mut self, view: Option<View>) {
        let Some(view) = view else { return };
        match self.status {
            Some(i) => {
                self.slots[i].view = view;
                self.mark(i);
            }
            None => self.status = Some(self.push(view)),
        }
    }

    #[allow(
        clippy::expect_used,
        reason = "called right after an assistant view is pushed"
    )]
    fn last_assistant(&self) -> usize {
        self.slots
            .iter()
            .rposition(|s| matches!(s.view, View::Assistant(_)))
            .expect("an assistant view was just pushed")
    }

    fn tool_slot(&mut self, id: &str, name: &str) -> usize {
        if let Some(&i) = self.tools.get(id) {
            return i;
        }
        let mut view = ToolCallView::new(id, name, serde_json::Value::Object(Default::default()));
        view.expanded = self.tools_expanded;
        let i = self.push(View::Tool(view));
        self.tools.insert(id.to_string(), i);
        i
    }

    fn finish_tool(
        &mut self,
        id: &str,
        name: &str,
        content: &[ContentBlock],
        details: Option<serde_json::Value>,
        is_error: bool,
    ) {
        let i = self.tool_slot(id, name);
        if let View::Tool(t) = &mut self.slots[i].view {
            t.output = join_text(content);
            t.details = details;
            t.duration = t.started.map(|s| s.elapsed());
            t.status = if is_error {
                ToolStatus::Error
            } else {
                ToolStatus::Success
            };
            self.mark(i);
        }
    }

    fn record_usage(&mut self, a: &AssistantMessage) {
        let u = &a.usage;
        self.usage.input += u.input;
        self.usage.output += u.output;
        self.usage.cache_read += u.cache_read;
        self.usage.cache_write += u.cache_write;
        self.usage.cost += u.cost.total;
        if !matches!(a.stop_reason, StopReason::Aborted | StopReason::Error) {
            self.context_tokens = Some(u.input + u.output + u.cache_read + u.cache_write);
        }
    }

    /// Where each user message starts in [`Transcript::lines`] (valid once it ran): the
    /// fullscreen mode's jumps between the prompts sent.
    pub fn user_message_starts(&self) -> Vec<usize> {
        let users = self
            .slots
            .iter()
            .filter(|s| matches!(s.view, View::User(_)));
        users.map(|s| s.start).collect()
    }

    /// The rendered lines for `width`, re-rendering only components that changed since the
    /// last call (all of them after a width or theme change).
    pub fn lines(&mut self, width: usize) -> &[String] {
        self.catch_up_arguments();
        if width != self.width {
            self.width = width;
            self.lines.clear();
            for slot in &mut self.slots {
                let lines = slot.view.render(width, &self.theme);
                slot.start = self.lines.len();
                slot.len = lines.len();
                slot.dirty = false;
                self.lines.extend(lines);
            }
            self.dirty_from = usize::MAX;
            return &self.lines;
        }
        let mut start = match self.dirty_from.checked_sub(1) {
            None => 0,
            Some(prev) if prev < self.slots.len() => self.slots[prev].start + self.slots[prev].len,
            Some(_) => return &self.lines,
        };
        for slot in self.slots.iter_mut().skip(self.dirty_from) {
            slot.start = start;
            if slot.dirty {
                let fresh = slot.view.render(width, &self.theme);
                let new_len = fresh.len();
                self.lines.splice(start..start + slot.len, fresh);
                slot.len = new_len;
                slot.dirty = false;
            }
            start += slot.len;
        }
        self.dirty_from = usize::MAX;
        &self.lines
    }
}
/// `<what> (n/max) in Ns... <error>`: a retry's status line.
fn retry_text(what: &str, (attempt, max): (u32, u32), delay_ms: u64, error: &str) -> String {
    let secs = (delay_ms as f64 / 1000.0).ceil() as u64;
    format!("{what} ({attempt}/{max}) in {secs}s... {error}")
}
