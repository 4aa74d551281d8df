//! One run of the loop (AC-6..AC-10, AC-18..AC-20, D4): prompts, turns of "stream a reply,
//! execute its tool calls", steering and follow-up polls, and the run's failure path.

use std::panic::AssertUnwindSafe;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use futures_util::FutureExt;
use rho_ai::{
    AssistantMessage, AssistantMessageEvent, AssistantStream, ContentBlock, Context, Model,
    PartialMessage, StopReason, ThinkingLevel, ToolResultMessage, Usage,
};
use tokio_util::sync::CancellationToken;

use crate::event::AgentEvent;
use crate::message::AgentMessage;
use crate::queue::Queue;
use crate::run_failure::RunFailure;
use crate::shared::{abort_deadline, Shared, SteeringPoll};
use crate::state::AgentOptions;
use crate::stored::{ReadError, StoredMessage};
use crate::system;
use crate::tool::AgentTool;
use crate::tools_exec::ToolRunner;
use rho_protocol::agent::SystemState;

/// The `errorMessage` of a partial reply discarded because steering interrupted it (D4).
pub const DISCARDED_TEXT: &str =
    "Interrupted by your message: this partial reply was discarded (not in the context)";

/// The `errorMessage` of a reply whose call was due after the abort fired (an abort while
/// tools ran, AB-4): no request is made. pi 1.6 reports its HTTP client's text for a call
/// made with a fired signal; an abort while a reply streams keeps the provider's own text.
const ABORTED_BEFORE_CALL: &str = "This operation was aborted";

/// True for a reply steering interrupted and discarded (D4): such a reply is ended on the
/// event stream but never kept in the transcript, persisted or sent to the model.
pub fn is_discarded(message: &AssistantMessage) -> bool {
    message.stop_reason == StopReason::Aborted
        && message.error_message.as_deref() == Some(DISCARDED_TEXT)
}

/// How a streamed reply ended (short-lived; the size gap does not matter).
#[allow(clippy::large_enum_variant)]
enum Reply {
    /// The final message (also `error`/`aborted` ones).
    Done(AssistantMessage),
    /// A steering message arrived; the partial was dropped (D4). `closed` when its
    /// `message_start` had gone out and the message and turn were ended as discarded.
    Interrupted { closed: bool },
}

/// How a turn ended.
enum TurnOutcome {
    /// Normally; `tool_calls` says whether the model is waiting for tool results,
    /// `requested` whether the owner asked for one more request ([`crate::SessionHooks::finish_turn`]).
    Next { tool_calls: bool, requested: bool },
    /// Steering interrupted the reply; `closed` when the turn was ended (a new one starts
    /// with the steering message), else the turn goes on with it.
    Interrupted { closed: bool },
    /// The run ended (error, abort, failure, or `SessionHooks::stop_after_turn`).
    RunOver,
}

/// One run's snapshot of the agent plus its request context, built incrementally when no
/// context hooks are installed so long runs do not re-convert the whole transcript per turn.
pub(crate) struct Run {
    shared: Arc<Shared>,
    opts: Arc<AgentOptions>,
    cancel: CancellationToken,
    model: Model,
    thinking: ThinkingLevel,
    /// The level of the latest request: `thinking`, or the level a virtual model's router
    /// chose (what the reply records, with the physical model it names).
    dispatched: ThinkingLevel,
    tools: Vec<Arc<dyn AgentTool>>,
    /// The fixed tools of this run; `tools` adds the source's at every turn.
    base_tools: Vec<Arc<dyn AgentTool>>,
    tool_source: Option<crate::tool::ToolSource>,
    context: Context,
    /// `(generation, messages converted)` while `context.messages` mirrors the transcript.
    converted: Option<(u64, usize)>,
    new_messages: Vec<AgentMessage>,
    /// Steering arrival count at the last poll: later arrivals interrupt the turn (D4).
    /// `None` while the turn answers a steering message delivered `one-at-a-time`: steering
    /// sent meanwhile waits until that answer is complete ("one steering message per
    /// completed assistant turn"), so two steers sent together are answered in turn.
    interrupt_after: Option<u64>,
    /// With structured prompt sections: what the transcript's system messages replay to
    /// after the last declaration, which the request sends (D18).
    system: Option<SystemState>,
    /// Declared tools that `prepare_loadout` hooks leave out of requests (codemode `only`);
    /// system messages still record them, as pi's do.
    hidden: Vec<String>,
    /// The prompt the run started with: without structured sections, what a request
    /// rewritten by `context_with_system` starts from again each call.
    base_prompt: Option<String>,
}

/// The messages a run opens with.
pub(crate) enum Opening {
    /// Given messages (`None`: continue from the transcript); steering queued meanwhile is
    /// delivered with them.
    Messages(Option<Vec<AgentMessage>>),
    /// Steering `continue_()` took from the queue.
    Steering(SteeringPoll),
    /// Follow-ups `continue_()` took from the queue.
    FollowUp(Vec<AgentMessage>),
}

/// Messages to add at the start of the next turn, and the queue they were taken from.
#[derive(Default)]
struct Pending {
    messages: Vec<AgentMessage>,
    from: Option<Queue>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.messages.is_empty()
    }
}

impl Run {
    pub fn new(shared: Arc<Shared>, cancel: CancellationToken) -> Self {
        let opts = shared.options();
        let (model, thinking, base_tools, tool_source, system_prompt) = {
            let s = shared.state();
            (
                s.model.clone(),
                s.thinking_level,
                s.tools.clone(),
                s.tool_source.clone(),
                s.system_prompt.clone(),
            )
        };
        let tools = with_source(&base_tools, tool_source.as_ref());
        let base_prompt = (!system_prompt.is_empty()).then_some(system_prompt);
        let context = Context {
            system_prompt: base_prompt.clone(),
            messages: Vec::new(),
            tools: crate::tool::definitions(&tools),
        };
        Self {
            shared,
            opts,
            cancel,
            model,
            thinking,
            dispatched: thinking,
            tools,
            base_tools,
            tool_source,
            context,
            converted: None,
            new_messages: Vec::new(),
            interrupt_after: Some(0),
            system: None,
            hidden: Vec::new(),
            base_prompt,
        }
    }

    /// Runs to the end, whatever happens inside, then marks the agent idle.
    pub async fn execute(mut self, opening: Opening) {
        let shared = self.shared.clone();
        let model = self.model.clone();
        let cancel = self.cancel.clone();
        let outcome = AssertUnwindSafe(self.run_loop(opening))
            .catch_unwind()
            .await;
        if let Err(panic) = outcome {
            let text = panic_text(&panic);
            fail(&shared, &model, &cancel, RunFailure::Panicked(text));
        }
        shared.finish_run();
    }

    async fn run_loop(&mut self, opening: Opening) {
        self.emit(AgentEvent::AgentStart);
        self.emit(AgentEvent::TurnStart);
        // A change of prompt or tools is recorded before the messages it applies to
        // (continuing from the transcript alone records nothing new).
        if !matches!(opening, Opening::Messages(None)) {
            if let Err(e) = self.declare_system() {
                return fail(&self.shared, &self.model, &self.cancel, e);
            }
        }
        let mut pending = match opening {
            Opening::Messages(prompts) => {
                for m in prompts.into_iter().flatten() {
                    self.add_message(m, None);
                }
                self.poll_steering()
            }
            Opening::Steering(poll) => {
                for m in self.took_steering(poll).messages {
                    self.add_message(m, Some(Queue::Steering));
                }
                Pending::default()
            }
            Opening::FollowUp(messages) => {
                for m in messages {
                    self.add_message(m, Some(Queue::FollowUp));
                }
                self.poll_steering()
            }
        };
        let mut need_turn_start = false;
        let mut requested_more = false;
        loop {
            let mut more_tool_calls = true;
            while more_tool_calls || !pending.is_empty() {
                if need_turn_start {
                    self.emit(AgentEvent::TurnStart);
                }
                need_turn_start = true;
                match self.turn(std::mem::take(&mut pending)).await {
                    TurnOutcome::RunOver => return,
                    TurnOutcome::Interrupted { closed } => {
                        need_turn_start = closed;
                        more_tool_calls = true;
                    }
                    TurnOutcome::Next {
                        tool_calls,
                        requested,
                    } => {
                        more_tool_calls = tool_calls;
                        requested_more = requested && !tool_calls;
                    }
                }
                pending = self.poll_steering();
                if std::mem::take(&mut requested_more) && pending.is_empty() {
                    // The owner asked for one more request and nothing else makes it:
                    // follow-ups satisfy it, else a request on the context alone.
                    pending = self.take_follow_ups();
                    more_tool_calls = true;
                }
            }
            pending = self.take_follow_ups();
            if pending.is_empty() {
                return self.end_run();
            }
        }
    }

    /// The follow-ups queued so far, for the next turn; steering that arrives from now on
    /// interrupts that turn (see `interrupt_after`).
    fn take_follow_ups(&mut self) -> Pending {
        self.interrupt_after = Some(self.shared.steer_seq());
        Pending {
            messages: self.shared.poll_follow_up(),
            from: Some(Queue::FollowUp),
        }
    }

    /// One turn: inject `pending`, stream the reply, run its tool calls, `turn_end`.
    async fn turn(&mut self, pending: Pending) -> TurnOutcome {
        if self.tool_source.is_some() {
            self.tools = with_source(&self.base_tools, self.tool_source.as_ref());
            self.context.tools = crate::tool::definitions(&self.tools);
        }
        if let Err(e) = self.declare_system() {
            fail(&self.shared, &self.model, &self.cancel, e);
            return TurnOutcome::RunOver;
        }
        for m in pending.messages {
            self.add_message(m, pending.from);
        }
        let message = match self.stream_reply().await {
            Err(e) => {
                fail(&self.shared, &self.model, &self.cancel, e);
                return TurnOutcome::RunOver;
            }
            Ok(Reply::Interrupted { closed }) => return TurnOutcome::Interrupted { closed },
            Ok(Reply::Done(m)) => m,
        };
        if matches!(message.stop_reason, StopReason::Error | StopReason::Aborted) {
            // A failed or aborted reply is a hard exit: what the owner asks is not taken.
            self.opts.hooks.finish_turn(&message, &[]).await;
            self.end_turn(message, Vec::new());
            self.end_run();
            return TurnOutcome::RunOver;
        }
        let has_calls = message.tool_calls().next().is_some();
        let (results, terminate) = if has_calls {
            self.execute_tools(&message).await
        } else {
            (Vec::new(), false)
        };
        let requested = self.opts.hooks.finish_turn(&message, &results).await;
        let stop = self.opts.hooks.stop_after_turn(&message, &results);
        self.end_turn(message, results);
        if stop {
            self.end_run();
            return TurnOutcome::RunOver;
        }
        TurnOutcome::Next {
            tool_calls: has_calls && !terminate,
            requested,
        }
    }

    /// With structured prompt sections (D18): records the change of prompt or tools since
    /// what the transcript's system messages replay to, and keeps the replay for the
    /// request. Without sections nothing is recorded.
    fn declare_system(&mut self) -> Result<(), RunFailure> {
        let (sections, recorded) = {
            let state = self.shared.state();
            let Some(sections) = state.system_sections.clone() else {
                self.system = None;
                return Ok(());
            };
            let recorded: Vec<StoredMessage> = state
                .messages
                .iter()
                .filter(|m| m.role() == "system")
                .cloned()
                .collect();
            (sections, recorded)
        };
        let replayed = system::replay(&recorded)?;
        let (tools, hidden) = crate::tool::loadout(&self.tools);
        self.hidden = hidden;
        let (message, after) = system::declare(replayed, &sections, &tools);
        if let Some(message) = message {
            self.add_message(message, None);
        }
        self.system = after;
        Ok(())
    }

    /// Drains steering per mode for the next turn (see [`Self::took_steering`]).
    fn poll_steering(&mut self) -> Pending {
        let poll = self.shared.poll_steering();
        self.took_steering(poll)
    }

    /// Sets what may interrupt the turn that delivers `poll`'s messages: steering newer than
    /// the poll, unless the turn answers a message delivered one at a time.
    fn took_steering(&mut self, poll: SteeringPoll) -> Pending {
        let answers_one = poll.one_at_a_time && !poll.messages.is_empty();
        self.interrupt_after = (!answers_one).then_some(poll.seq);
        Pending {
            messages: poll.messages,
            from: Some(Queue::Steering),
        }
    }

    fn emit(&self, event: AgentEvent) {
        self.shared.emit(event);
    }

    /// Appends a message to the transcript and the run's list, with its start/end events;
    /// `from` names the queue it was taken from.
    fn add_message(&mut self, message: AgentMessage, from: Option<Queue>) {
        self.shared.emit_from(
            AgentEvent::MessageStart {
                message: message.clone(),
            },
            from,
        );
        self.new_messages.push(message.clone());
        let message = Arc::new(message);
        self.shared
            .state()
            .messages
            .push(Arc::clone(&message).into());
        self.emit(AgentEvent::MessageEnd { message });
    }

    fn end_turn(&mut self, message: AssistantMessage, tool_results: Vec<ToolResultMessage>) {
        if let Some(e) = &message.error_message {
            self.shared.state().error_message = Some(e.clone());
        }
        self.emit(AgentEvent::TurnEnd {
            message: AgentMessage::Assistant(message),
            tool_results,
        });
    }

    fn end_run(&mut self) {
        let messages = std::mem::take(&mut self.new_messages);
        self.emit(AgentEvent::AgentEnd {
            messages,
            will_retry: false,
        });
    }

    async fn execute_tools(
        &mut self,
        message: &AssistantMessage,
    ) -> (Vec<ToolResultMessage>, bool) {
        let runner = ToolRunner {
            shared: &self.shared,
            opts: &self.opts,
            tools: &self.tools,
            definitions: &self.context.tools,
            cancel: &self.cancel,
            assistant: message,
            interrupt_after: self.interrupt_after,
        };
        let batch = runner.run().await;
        for r in &batch.results {
            self.new_messages.push(AgentMessage::ToolResult(r.clone()));
        }
        (batch.results, batch.terminate)
    }

    /// Brings `self.context.messages` up to date with the transcript (AC-9). Without a
    /// transform only the messages added since the last call are converted (the conversion
    /// works per message, see [`crate::SessionHooks::convert_to_llm`]); a transform sees a copy of
    /// the whole transcript every time.
    async fn refresh_context(&mut self) -> Result<(), RunFailure> {
        let hooks = self.opts.hooks.clone();
        let (transforms, with_system) =
            (hooks.transforms_context(), hooks.transforms_with_system());
        if !transforms && !with_system {
            let generation = self.shared.generation.load(Ordering::Acquire);
            // Only the messages not yet converted are copied out of the lock: cloning the
            // whole transcript each turn made a long run quadratic.
            let (new, total) = {
                let state = self.shared.state();
                let total = state.messages.len();
                let from = match self.converted {
                    Some((g, n)) if g == generation && n <= total => n,
                    _ => {
                        self.context.messages.clear();
                        0
                    }
                };
                (state.messages[from..].to_vec(), total)
            };
            let more = hold_all(&new)?;
            self.context.messages.extend(hooks.convert_to_llm(&more));
            self.converted = Some((generation, total));
            return Ok(());
        }
        self.converted = None;
        let stored = self.shared.state().messages.clone();
        let recorded_system = stored.iter().any(|m| m.role() == "system");
        let messages: Vec<AgentMessage> =
            hold_all(&stored)?.iter().map(|m| (**m).clone()).collect();
        let mut messages = if transforms {
            hooks
                .transform_context(messages, self.cancel.clone())
                .await?
        } else {
            messages
        };
        if with_system {
            messages = self.project_with_system(messages, recorded_system).await?;
        }
        let shared: Vec<Arc<AgentMessage>> = messages.into_iter().map(Arc::new).collect();
        self.context.messages = hooks.convert_to_llm(&shared);
        Ok(())
    }

    /// `context_with_system`: the request's messages with their system messages (led by
    /// one declaring the request's prompt and tools when the transcript records none, so a
    /// system message a `context` handler added comes after it) go through the hook, and
    /// what its system messages replay to becomes the request's prompt and tools. An
    /// extension's forced prompt still replaces the text.
    async fn project_with_system(
        &mut self,
        mut messages: Vec<AgentMessage>,
        recorded_system: bool,
    ) -> Result<Vec<AgentMessage>, RunFailure> {
        if !recorded_system {
            // Without sections nothing resets the request's prompt and tools between calls:
            // start from the run's own, not from the last call's projection.
            if self.system.is_none() {
                self.context.system_prompt = self.base_prompt.clone();
                self.context.tools = crate::tool::definitions(&self.tools);
            }
            let prompt = self.context.system_prompt.as_deref();
            let now = rho_protocol::message::now_ms();
            messages.insert(0, system::request_head(prompt, &self.context.tools, now));
        }
        let hooks = self.opts.hooks.clone();
        let messages = hooks
            .transform_with_system(messages, self.cancel.clone())
            .await?;
        let (prompt, mut tools) = system::projected(&messages);
        let forced = self.shared.state().forced_system_prompt.clone();
        self.context.system_prompt = match forced {
            Some(forced) => (!forced.is_empty()).then_some(forced),
            None => prompt,
        };
        tools.retain(|t| !self.hidden.contains(&t.name));
        self.context.tools = tools;
        Ok(messages)
    }

    /// Streams one assistant reply (AC-8), or returns `Interrupted` when steering arrives.
    async fn stream_reply(&mut self) -> Result<Reply, RunFailure> {
        if let Some(system) = &self.system {
            // The replay is what the model gets; an extension's forced prompt replaces its
            // text for this run without being recorded (pi's forced prompt).
            let forced = self.shared.state().forced_system_prompt.clone();
            let text = forced.unwrap_or_else(|| system.text());
            self.context.system_prompt = (!text.is_empty()).then_some(text);
            self.context.tools = system.tools();
            let hidden = &self.hidden;
            self.context.tools.retain(|t| !hidden.contains(&t.name));
        }
        self.refresh_context().await?;
        if self.cancel.is_cancelled() {
            let mut m = self.empty_message();
            m.stop_reason = StopReason::Aborted;
            m.error_message = Some(ABORTED_BEFORE_CALL.into());
            m.duration_ms = Some(0);
            return Ok(Reply::Done(self.finish_reply(m, false)));
        }
        // A virtual selection stays the run's model; only this request goes to the model
        // its router picks (a routing failure fails the run, naming the virtual model).
        let routed = match self.model.is_virtual() {
            true => Some(self.route().await?),
            false => None,
        };
        self.dispatched = routed.as_ref().map_or(self.thinking, |(_, level)| *level);
        let model = routed.as_ref().map_or(&self.model, |(model, _)| model);
        let call_cancel = self.cancel.child_token();
        let mut options = self.opts.stream_options.clone();
        options.cancel = call_cancel.clone();
        options.reasoning = (self.dispatched != ThinkingLevel::Off).then_some(self.dispatched);
        let options = self.opts.hooks.prepare_call(model, options).await?;
        if self.shared.steering_since(self.interrupt_after) {
            return Ok(Reply::Interrupted { closed: false });
        }
        let stream = (self.opts.stream_fn)(model, &self.context, options)?;
        self.read_stream(stream, call_cancel).await
    }

    /// Asks the owner where this call of the virtual model goes.
    // The owner's text, the failed run's `errorMessage` (`SessionHooks` errors are text).
    async fn route(&self) -> Result<(Model, ThinkingLevel), String> {
        let user_turn = {
            let state = self.shared.state();
            let since_reply = state.messages.iter().rev();
            let mut since_reply = since_reply.take_while(|m| m.role() != "assistant");
            since_reply.any(|m| m.role() == "user")
        };
        let request = crate::RouteRequest {
            model: &self.model,
            thinking: self.thinking,
            messages: &self.context.messages,
            user_turn,
            cancel: &self.cancel,
        };
        self.opts.hooks.route_call(request).await
    }

    /// Folds the provider's events into events of ours until the reply ends, steering
    /// interrupts it, or an abort the provider ignores runs out of grace.
    async fn read_stream(
        &mut self,
        mut stream: AssistantStream,
        call_cancel: CancellationToken,
    ) -> Result<Reply, RunFailure> {
        let mut started = false;
        // Built once: recreating these per event would re-register their waiters each time.
        let shared = self.shared.clone();
        let steering = shared.steering_arrived(self.interrupt_after);
        let cancel = self.cancel.clone();
        let deadline = abort_deadline(&cancel, self.opts.abort_grace);
        tokio::pin!(steering, deadline);
        loop {
            // Order: a stuck abort first, then ready provider events (a reply already
            // complete in the channel is kept), then steering.
            let event = tokio::select! {
                biased;
                _ = &mut deadline => {
                    return Ok(Reply::Done(self.give_up_stream(started)));
                }
                e = stream.next() => e,
                _ = &mut steering => {
                    call_cancel.cancel();
                    let partial = self.shared.state().streaming_message.take();
                    if started {
                        self.end_discarded(partial.and_then(PartialMessage::into_message));
                    }
                    return Ok(Reply::Interrupted { closed: started });
                }
            };
            let Some(event) = event else {
                return Err(RunFailure::StreamEnded);
            };
            match event {
                AssistantMessageEvent::Done { message, .. }
                | AssistantMessageEvent::Error { error: message, .. } => {
                    return Ok(Reply::Done(self.finish_reply(message, started)));
                }
                AssistantMessageEvent::Start { partial } => {
                    started = true;
                    let folded = PartialMessage::starting(partial.clone());
                    self.shared.state().streaming_message = Some(folded);
                    self.emit(AgentEvent::MessageStart {
                        message: AgentMessage::Assistant(partial),
                    });
                }
                delta if started => self.apply_delta(delta),
                _ => {}
            }
        }
    }

    /// Ends a partial reply that steering interrupted (D4) so the event stream stays
    /// well-formed: `message_end` marked as discarded, then `turn_end`. It stays out of the
    /// transcript and the run's messages, so it is neither persisted nor sent again.
    fn end_discarded(&mut self, partial: Option<AssistantMessage>) {
        let mut message = partial.unwrap_or_else(|| self.empty_message());
        message.stop_reason = StopReason::Aborted;
        message.error_message = Some(DISCARDED_TEXT.into());
        let message = AgentMessage::Assistant(message);
        self.emit(AgentEvent::MessageEnd {
            message: Arc::new(message.clone()),
        });
        self.emit(AgentEvent::TurnEnd {
            message,
            tool_results: Vec::new(),
        });
    }

    /// The provider ignored the abort: end the message here with what streamed so far.
    fn give_up_stream(&mut self, started: bool) -> AssistantMessage {
        let partial = self
            .shared
            .state()
            .streaming_message
            .as_mut()
            .and_then(|p| p.message().cloned());
        let mut message = partial.unwrap_or_else(|| self.empty_message());
        message.stop_reason = StopReason::Aborted;
        message.error_message = Some("Request was aborted".into());
        self.finish_reply(message, started)
    }

    /// Folds a provider event into the streaming partial and passes it on as it came: the
    /// update carries the delta, not a copy of the partial, so each costs what its delta costs
    /// however long the reply grows (listeners that need the partial fold it themselves).
    fn apply_delta(&self, event: AssistantMessageEvent) {
        let usage = {
            let mut state = self.shared.state();
            let Some(partial) = state.streaming_message.as_mut() else {
                return;
            };
            partial.apply(&event);
            partial.peek().map(|m| m.usage)
        };
        if let Some(usage) = usage {
            self.emit(AgentEvent::MessageUpdate {
                usage,
                assistant_message_event: event,
            });
        }
    }

    /// Emits `message_end` (and a late `message_start`), recording the final message in the
    /// transcript before subscribers hear of it.
    /// The reply is stamped with the thinking level it was requested at (`off` included), as
    /// pi 1.x records it on every reply the loop streams (a virtual model's: the routed one).
    fn finish_reply(&mut self, mut message: AssistantMessage, started: bool) -> AssistantMessage {
        message.thinking_level = Some(self.dispatched.as_str().to_string());
        let agent_message = AgentMessage::Assistant(message.clone());
        if !started {
            self.emit(AgentEvent::MessageStart {
                message: agent_message.clone(),
            });
        }
        self.new_messages.push(agent_message.clone());
        let agent_message = Arc::new(agent_message);
        {
            let mut state = self.shared.state();
            state.streaming_message = None;
            state.messages.push(Arc::clone(&agent_message).into());
        }
        self.emit(AgentEvent::MessageEnd {
            message: agent_message,
        });
        message
    }

    fn empty_message(&self) -> AssistantMessage {
        AssistantMessage::empty(&self.model.api, &self.model.provider, &self.model.id)
    }
}

/// Decodes the messages a request sends and keeps them decoded until the run is over (the
/// session releases them afterwards, see [`StoredMessage::release`]).
fn hold_all(messages: &[StoredMessage]) -> Result<Vec<Arc<AgentMessage>>, ReadError> {
    messages.iter().map(StoredMessage::hold).collect()
}

/// The run failure path (AC-5): a synthetic assistant message, recorded in the state and
/// reported only through `agent_end`.
fn fail(shared: &Shared, model: &Model, cancel: &CancellationToken, error: RunFailure) {
    let error = error.to_string();
    let mut message = AssistantMessage::empty(&model.api, &model.provider, &model.id);
    message.content = vec![ContentBlock::text("")];
    message.usage = Usage::default();
    message.stop_reason = if cancel.is_cancelled() {
        StopReason::Aborted
    } else {
        StopReason::Error
    };
    message.error_message = Some(error.clone());
    let message = AgentMessage::Assistant(message);
    {
        let mut state = shared.state();
        state.messages.push(message.clone().into());
        state.error_message = Some(error);
    }
    shared.emit(AgentEvent::AgentEnd {
        messages: vec![message],
        will_retry: false,
    });
}

/// The message of a caught panic payload.
pub(crate) fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// The fixed tools followed by the source's (a name already taken is skipped).
fn with_source(
    base: &[Arc<dyn AgentTool>],
    source: Option<&crate::tool::ToolSource>,
) -> Vec<Arc<dyn AgentTool>> {
    let mut tools = base.to_vec();
    for t in source.map(|s| s()).unwrap_or_default() {
        if !tools.iter().any(|b| b.name() == t.name()) {
            tools.push(t);
        }
    }
    tools
}
