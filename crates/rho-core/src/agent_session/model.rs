//! Model and thinking-level switching, session names, and statistics (issue item 10).

use rho_agent::AgentMessage;
use rho_ai::{ContentBlock, Message, Model, ThinkingLevel, Usage};
pub use rho_protocol::rpc::SessionStats;

use super::credentials::AuthStatus;
use super::error::SessionError;
use super::events::SessionOnlyEvent;
use super::ops::{LevelChange, ModelSwitch, Op};
use super::task::{data as run_data, Data, RunData};
use super::AgentSession;
use rho_extension_host::ExtensionEvent;
pub use rho_protocol::rpc::StatsScope;
use rho_session::EntryData;

/// Replaces image blocks in user and tool-result messages by a notice, collapsing runs
/// (`images.blockImages`, interfaces spec §5.5).
pub(crate) fn block_images(messages: Vec<Message>) -> Vec<Message> {
    const NOTICE: &str = "[Image reading is disabled by the images.blockImages setting]";
    let strip = |blocks: Vec<ContentBlock>| {
        let mut out: Vec<ContentBlock> = Vec::with_capacity(blocks.len());
        for b in blocks {
            let b = match b {
                ContentBlock::Image(_) => ContentBlock::text(NOTICE),
                other => other,
            };
            if b.as_text() == Some(NOTICE)
                && out.last().and_then(ContentBlock::as_text) == Some(NOTICE)
            {
                continue;
            }
            out.push(b);
        }
        out
    };
    messages
        .into_iter()
        .map(|m| match m {
            Message::User(mut u) => {
                u.content = rho_ai::UserContent::Blocks(strip(u.content.to_blocks()));
                Message::User(u)
            }
            Message::ToolResult(mut t) => {
                t.content = strip(t.content);
                Message::ToolResult(t)
            }
            other => other,
        })
        .collect()
}

impl AgentSession {
    /// Switches the model (AUTH-10 when it has no credentials), records a `model_change`
    /// entry, and re-clamps the thinking level; extensions hear of both changes.
    pub async fn set_model(&self, model: Model) -> Result<(), SessionError> {
        let op = |done| Op::SetModel {
            model: Box::new(model.clone()),
            done,
        };
        let switch = self.request(op).await??;
        if let Some(change) = switch.level_change {
            self.announce_thinking_level(change).await;
        }
        if switch.changed {
            let event = ExtensionEvent::ModelSelect {
                model,
                previous_model: switch.previous,
                source: "set".into(),
            };
            self.inner
                .services
                .extensions
                .emit(event, &self.ext_ctx())
                .await;
        }
        Ok(())
    }

    /// Sets the thinking level (clamped to the model) and records it.
    pub async fn set_thinking_level(&self, level: ThinkingLevel) {
        let op = |done| Op::SetThinkingLevel {
            level,
            always_record: true,
            done,
        };
        if let Ok(Some(change)) = self.request(op).await {
            self.announce_thinking_level(change).await;
        }
    }

    /// Tells extensions the thinking level changed.
    async fn announce_thinking_level(&self, (previous, level): LevelChange) {
        let event = ExtensionEvent::ThinkingLevelSelect {
            level,
            previous_level: previous,
        };
        self.inner
            .services
            .extensions
            .emit(event, &self.ext_ctx())
            .await;
    }

    /// The model switch on the session task.
    pub(crate) fn apply_model(&self, model: Model) -> Result<ModelSwitch, SessionError> {
        if self.inner.services.credentials.status(&model.provider) == AuthStatus::Missing {
            return Err(SessionError::ModelWithoutKey {
                provider: model.provider.clone(),
                id: model.id.clone(),
            });
        }
        let previous = self.model();
        let changed = previous
            .as_ref()
            .is_none_or(|p| p.provider != model.provider || p.id != model.id);
        self.inner.services.agent.set_model(model.clone());
        {
            let mut s = self.state();
            s.model = Some(model.clone());
            if changed {
                s.session.append_model_change(&model.provider, &model.id)?;
            }
        }
        let level = model.clamp_thinking_level(self.thinking_level());
        Ok(ModelSwitch {
            previous,
            changed,
            level_change: self.apply_thinking_level(level, false),
        })
    }

    /// Sets the thinking level on the session task (clamped to the model) and records it
    /// when it changed or `always_record`; returns the change, if any.
    pub(crate) fn apply_thinking_level(
        &self,
        level: ThinkingLevel,
        always_record: bool,
    ) -> Option<LevelChange> {
        let level = match self.model() {
            Some(m) => m.clamp_thinking_level(level),
            None => ThinkingLevel::Off,
        };
        let previous = self.thinking_level();
        if previous == level && !always_record {
            return None;
        }
        self.inner.services.agent.set_thinking_level(level);
        {
            let mut s = self.state();
            s.thinking_level = level;
            let _ = s.session.append_thinking_level_change(level.as_str());
        }
        if previous == level {
            return None;
        }
        self.emit_session(SessionOnlyEvent::ThinkingLevelChanged { level });
        Some((previous, level))
    }

    /// Names the session (a `session_info` entry) and tells listeners, and extensions without
    /// waiting for their handlers (as pi does).
    pub fn set_session_name(&self, name: &str) -> Result<(), SessionError> {
        let name = name.trim().to_string();
        self.state().session.append_session_info(&name)?;
        let name = (!name.is_empty()).then_some(name);
        self.emit_session(SessionOnlyEvent::SessionInfoChanged { name: name.clone() });
        let runner = &self.inner.services.extensions;
        let runtime = tokio::runtime::Handle::try_current();
        if let (true, Ok(runtime)) = (runner.has_handlers("session_info_changed"), runtime) {
            let session = self.clone();
            runtime.spawn(async move {
                let event = ExtensionEvent::SessionInfoChanged { name };
                let runner = &session.inner.services.extensions;
                runner.emit(event, &session.ext_ctx()).await;
            });
        }
        Ok(())
    }

    /// Labels entry `id` (a `label` entry; `None` clears the label), as /tree's label key does.
    pub fn set_label(&self, id: &str, label: Option<&str>) -> Result<(), SessionError> {
        self.state().session.append_label(id, label)?;
        Ok(())
    }

    /// Replaces the session store (new, resumed or forked session): a running run is
    /// aborted and the store replaced once it has ended; the agent's messages, model and
    /// thinking level follow the new store; queues and pending state are cleared.
    pub async fn replace_session(&self, session: rho_session::SessionManager) {
        let op = |done| Op::ReplaceSession {
            next: Box::new(session),
            done,
        };
        let _ = self.request(op).await;
    }

    /// The replacement itself, on the session task with no run loop active.
    pub(crate) fn replace_store(&self, session: rho_session::SessionManager, data: &Data) {
        let context = session.build_context();
        self.inner.services.agent.reset();
        self.replace_conversation(context.messages);
        *run_data(data) = RunData::default();
        self.inner.run.update(|s| {
            s.retry_attempt = 0;
            s.pending_bash = 0;
        });
        let mut s = self.state();
        s.session = session;
        s.queue = Default::default();
        if context.has_thinking_level_change {
            if let (Some(level), Some(model)) = (
                ThinkingLevel::parse(&context.thinking_level),
                s.model.clone(),
            ) {
                s.thinking_level = model.clamp_thinking_level(level);
                self.inner
                    .services
                    .agent
                    .set_thinking_level(s.thinking_level);
            }
        }
    }

    /// Counts and totals over the conversation.
    pub fn stats(&self) -> SessionStats {
        self.stats_over(StatsScope::Context)
    }

    /// Counts and totals over the conversation in context (pi 0.73.1) or over every message
    /// in the file, earlier branches and compacted history included (pi 1.x).
    pub fn stats_over(&self, scope: StatsScope) -> SessionStats {
        let mut st = SessionStats::default();
        match scope {
            StatsScope::Context => {
                let messages = self.inner.services.agent.stored_messages();
                for m in messages.iter().filter(|m| m.role() != "system") {
                    if let Ok(m) = m.get() {
                        count_message(&mut st, &m);
                    }
                }
            }
            StatsScope::File => {
                for entry in self.state().session.entries() {
                    if let Some(Ok(m)) = entry.stored_message().map(|m| m.get()) {
                        count_message(&mut st, &m);
                    }
                }
            }
        }
        // pi 1.x records model work outside assistant messages: `usage` entries and the
        // summaries' own usage. They count wherever they are in the file.
        for entry in self.state().session.entries() {
            let usage = match &entry.data {
                EntryData::Usage(u) => Some(&u.usage),
                EntryData::Compaction(c) => c.usage.as_ref(),
                EntryData::BranchSummary { usage, .. } => usage.as_deref(),
                _ => None,
            };
            if let Some(usage) = usage {
                add_usage(&mut st, usage);
            }
        }
        let t = &mut st.tokens;
        t.total = t.input + t.output + t.cache_read + t.cache_write;
        st
    }
}

/// Counts one message, and its usage.
fn count_message(st: &mut SessionStats, m: &AgentMessage) {
    st.total_messages += 1;
    match m {
        AgentMessage::User(_) => st.user_messages += 1,
        AgentMessage::Assistant(a) => {
            st.assistant_messages += 1;
            st.tool_calls += a.tool_calls().count();
            add_usage(st, &a.usage);
        }
        AgentMessage::ToolResult(t) => {
            st.tool_results += 1;
            if let Some(usage) = &t.usage {
                add_usage(st, usage);
            }
        }
        _ => {}
    }
}

/// Adds one reply's (or summary's) usage to the totals.
fn add_usage(st: &mut SessionStats, usage: &Usage) {
    st.tokens.input += usage.input;
    st.tokens.output += usage.output;
    st.tokens.cache_read += usage.cache_read;
    st.tokens.cache_write += usage.cache_write;
    st.cost += usage.cost.total;
}
