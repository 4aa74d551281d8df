//! Runs extension handlers with the per-event rules of session-behavior §2, §3, §7 and §18:
//! load order, error isolation (reports, never aborts), chaining and short-circuits.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use rho_agent::AgentMessage;
use rho_ai::{ContentBlock, ImageContent};
use serde_json::Value;

use super::commands::{invocation_names, parse_command};
use super::events::{
    BeforeAgentStartResult, ExtensionEvent, InjectedMessage, InputResult, ProjectTrustResult,
    SessionBeforeResult, ToolCallResult, ToolResultPatch, TrustAnswer,
};
use super::{CommandDef, Extension, ExtensionContext, ShortcutDef};

/// An isolated handler failure, forwarded to listeners as `extension_error`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtensionErrorReport {
    /// The extension (or `command:<name>`, a skill file, `<runtime>`).
    pub extension_path: String,
    /// The event that failed.
    pub event: String,
    /// The error text.
    pub error: String,
}

/// Receives error reports.
pub type ErrorSink = Arc<dyn Fn(ExtensionErrorReport) + Send + Sync>;

/// The outcome of the `input` chain (IN-7).
#[derive(Debug, Clone, PartialEq)]
pub enum InputOutcome {
    /// A handler consumed the input.
    Handled,
    /// The text or images changed.
    Transform {
        /// Final text.
        text: String,
        /// Final images.
        images: Vec<ImageContent>,
    },
    /// Nothing changed.
    Continue,
}

/// A tool result as `tool_result` handlers patch it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// Content for the model.
    pub content: Vec<ContentBlock>,
    /// Details for UIs.
    pub details: Option<Value>,
    /// Error flag.
    pub is_error: bool,
}

/// All loaded extensions, in load order. The set is replaceable (/reload): each emission works
/// on the set current when it began, so a replacement never cuts a chain in half. Clones share
/// the set.
#[derive(Clone)]
pub struct ExtensionRunner {
    extensions: Arc<RwLock<Arc<[Extension]>>>,
    /// What the extensions registered after loading (pi's `registerCommand` from a handler or
    /// a command); forgotten when the set is replaced.
    late: Arc<RwLock<Late>>,
    /// Bumped whenever the commands change (a late one, a new set): UIs that list them (the
    /// terminal's `/` completion) read it to know when to list them again.
    command_generation: Arc<AtomicU64>,
    errors: ErrorSink,
}

/// Registrations made after loading.
#[derive(Default)]
struct Late {
    /// Commands with the file that registered each, in registration order.
    commands: Vec<(CommandDef, String)>,
    /// Virtual models, in registration order.
    virtual_models: Vec<crate::VirtualModelDef>,
    /// Virtual models unregistered since loading, `(provider, id)`: a loaded one is no longer
    /// routed.
    removed_virtual_models: Vec<(String, String)>,
}

impl Default for ExtensionRunner {
    fn default() -> Self {
        Self::new(Vec::new(), Arc::new(|_| {}))
    }
}

impl ExtensionRunner {
    /// A runner over `extensions` reporting failures to `errors`.
    pub fn new(extensions: Vec<Extension>, errors: ErrorSink) -> Self {
        Self {
            extensions: Arc::new(RwLock::new(extensions.into())),
            late: Arc::default(),
            command_generation: Arc::default(),
            errors,
        }
    }

    /// The extensions in load order (the set current now).
    pub fn extensions(&self) -> Arc<[Extension]> {
        self.extensions
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Puts `extensions` in place of the current set and returns the set it replaced.
    pub fn replace(&self, extensions: Vec<Extension>) -> Arc<[Extension]> {
        let mut current = self.extensions.write().unwrap_or_else(|p| p.into_inner());
        *self.late.write().unwrap_or_else(|p| p.into_inner()) = Late::default();
        self.command_generation.fetch_add(1, Ordering::Release);
        std::mem::replace(&mut *current, extensions.into())
    }

    /// Changes whenever the commands do (see [`ExtensionRunner::commands`]).
    pub fn command_generation(&self) -> u64 {
        self.command_generation.load(Ordering::Acquire)
    }

    /// Adds a command the file `path` registered after loading: listed and invocable at once.
    /// One of the same name from the same file (loaded or late) is replaced in its place, as
    /// pi's registration of a name again overwrites the extension's command.
    pub fn add_command(&self, def: CommandDef, path: String) {
        let mut late = self.late.write().unwrap_or_else(|p| p.into_inner());
        late.commands
            .retain(|(c, p)| (c.name.as_str(), p.as_str()) != (def.name.as_str(), path.as_str()));
        late.commands.push((def, path));
        self.command_generation.fetch_add(1, Ordering::Release);
    }

    /// Replaces the error sink (the session installs its own).
    pub fn set_error_sink(&mut self, errors: ErrorSink) {
        self.errors = errors;
    }

    /// Whether any extension handles `event` (hooks are skipped entirely otherwise, EXT-8).
    pub fn has_handlers(&self, event: &str) -> bool {
        self.extensions()
            .iter()
            .any(|e| e.handlers_for(event).next().is_some())
    }

    /// Reports an error.
    pub fn report(&self, extension_path: &str, event: &str, error: String) {
        (self.errors)(ExtensionErrorReport {
            extension_path: extension_path.to_string(),
            event: event.to_string(),
            error,
        });
    }

    /// Calls every handler of the event in order, isolating errors; returns each extension's
    /// non-null results as `(extension path, result)`.
    async fn call_all(
        &self,
        event: &ExtensionEvent,
        ctx: &ExtensionContext,
    ) -> Vec<(String, Value)> {
        let name = event.type_name();
        let mut results = Vec::new();
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for(name) {
                match handler(event.clone(), ctx.clone()).await {
                    Ok(Some(v)) if !v.is_null() => results.push((ext.path.clone(), v)),
                    Ok(_) => {}
                    Err(e) => self.report(&ext.path, name, e),
                }
            }
        }
        results
    }

    /// `before_provider_request` (EXT-6): any non-null result replaces the payload for later
    /// handlers and for the request; errors are isolated.
    pub async fn emit_payload(&self, payload: Value, ctx: &ExtensionContext) -> Value {
        let event = |payload| ExtensionEvent::BeforeProviderRequest { payload };
        let name = "before_provider_request";
        self.emit_chained(name, payload, event, |v| !v.is_null(), ctx)
            .await
    }

    /// `before_provider_headers` (pi 1.6): each handler gets the headers as changed so far
    /// (a map of names to a string, or to null for a name to remove) and returns the map.
    pub async fn emit_headers(&self, headers: Value, ctx: &ExtensionContext) -> Value {
        let event = |headers| ExtensionEvent::BeforeProviderHeaders { headers };
        let name = "before_provider_headers";
        self.emit_chained(name, headers, event, Value::is_object, ctx)
            .await
    }

    /// A chained emission: each handler of `name` gets `value` as the handlers before it left
    /// it (wrapped by `event`), and a result `takes` accepts replaces it; errors are isolated.
    async fn emit_chained(
        &self,
        name: &str,
        value: Value,
        event: impl Fn(Value) -> ExtensionEvent,
        takes: impl Fn(&Value) -> bool,
        ctx: &ExtensionContext,
    ) -> Value {
        let mut current = value;
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for(name) {
                match handler(event(current.clone()), ctx.clone()).await {
                    Ok(Some(v)) if takes(&v) => current = v,
                    Ok(_) => {}
                    Err(e) => self.report(&ext.path, name, e),
                }
            }
        }
        current
    }

    /// Emission whose results are collected from every handler (`resources_discover`).
    pub async fn emit_collect(&self, event: ExtensionEvent, ctx: &ExtensionContext) -> Vec<Value> {
        if !self.has_handlers(event.type_name()) {
            return Vec::new();
        }
        self.call_all(&event, ctx)
            .await
            .into_iter()
            .map(|(_, v)| v)
            .collect()
    }

    /// Generic emission (EXT-2): results ignored, errors isolated.
    pub async fn emit(&self, event: ExtensionEvent, ctx: &ExtensionContext) {
        if self.has_handlers(event.type_name()) {
            self.call_all(&event, ctx).await;
        }
    }

    /// The `input` chain (IN-2..7): transforms accumulate, `handled` short-circuits.
    pub async fn emit_input(
        &self,
        text: &str,
        images: &[ImageContent],
        source: &str,
        streaming_behavior: Option<&str>,
        ctx: &ExtensionContext,
    ) -> InputOutcome {
        let mut cur_text = text.to_string();
        let mut cur_images = images.to_vec();
        let mut images_replaced = false;
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for("input") {
                let event = ExtensionEvent::Input {
                    text: cur_text.clone(),
                    images: (!cur_images.is_empty()).then(|| cur_images.clone()),
                    source: source.to_string(),
                    streaming_behavior: streaming_behavior.map(str::to_string),
                };
                match handler(event, ctx.clone()).await {
                    Err(e) => self.report(&ext.path, "input", e),
                    Ok(Some(v)) => match serde_json::from_value::<InputResult>(v) {
                        Ok(InputResult::Handled) => return InputOutcome::Handled,
                        Ok(InputResult::Transform { text, images }) => {
                            cur_text = text;
                            if let Some(i) = images {
                                cur_images = i;
                                images_replaced = true;
                            }
                        }
                        _ => {}
                    },
                    Ok(None) => {}
                }
            }
        }
        if cur_text != text || images_replaced {
            InputOutcome::Transform {
                text: cur_text,
                images: cur_images,
            }
        } else {
            InputOutcome::Continue
        }
    }

    /// `before_agent_start` (MSG-4/5): collects injected messages in order and chains the
    /// system prompt; `ctx.system_prompt()` sees the chained value.
    pub async fn emit_before_agent_start(
        &self,
        prompt: &str,
        images: &[ImageContent],
        base_system_prompt: &str,
        system_prompt_options: Value,
        ctx: &ExtensionContext,
    ) -> (Vec<InjectedMessage>, Option<String>) {
        let mut messages = Vec::new();
        let mut chained: Option<String> = None;
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for("before_agent_start") {
                let current = chained
                    .clone()
                    .unwrap_or_else(|| base_system_prompt.to_string());
                let event = ExtensionEvent::BeforeAgentStart {
                    prompt: prompt.to_string(),
                    images: (!images.is_empty()).then(|| images.to_vec()),
                    system_prompt: current.clone(),
                    system_prompt_options: system_prompt_options.clone(),
                };
                let mut hctx = ctx.clone();
                hctx.system_prompt_override = chained.clone();
                match handler(event, hctx).await {
                    Err(e) => self.report(&ext.path, "before_agent_start", e),
                    Ok(Some(v)) => match serde_json::from_value::<BeforeAgentStartResult>(v) {
                        Ok(r) => {
                            messages.extend(r.message);
                            if let Some(sp) = r.system_prompt {
                                chained = Some(sp);
                            }
                        }
                        Err(e) => self.report(
                            &ext.path,
                            "before_agent_start",
                            format!("invalid result: {e}"),
                        ),
                    },
                    Ok(None) => {}
                }
            }
        }
        (messages, chained)
    }

    /// `tool_call` (EXT-10): the first `block` ends the chain; a failing handler blocks the
    /// tool with its message (not isolated). An `input` in the result replaces the arguments.
    pub async fn emit_tool_call(
        &self,
        tool_name: &str,
        tool_call_id: &str,
        input: &mut Value,
        ctx: &ExtensionContext,
    ) -> Option<ToolCallResult> {
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for("tool_call") {
                let event = ExtensionEvent::ToolCall {
                    tool_name: tool_name.to_string(),
                    tool_call_id: tool_call_id.to_string(),
                    input: input.clone(),
                };
                match handler(event, ctx.clone()).await {
                    Err(e) => {
                        return Some(ToolCallResult {
                            block: true,
                            reason: Some(e),
                        })
                    }
                    Ok(Some(v)) => {
                        if let Some(new_input) = v.get("input") {
                            *input = new_input.clone();
                        }
                        if let Ok(r) = serde_json::from_value::<ToolCallResult>(v) {
                            if r.block {
                                return Some(r);
                            }
                        }
                    }
                    Ok(None) => {}
                }
            }
        }
        None
    }

    /// `tool_result` (EXT-11): each defined field of a result replaces the current one.
    pub async fn emit_tool_result(
        &self,
        tool_name: &str,
        tool_call_id: &str,
        input: &Value,
        result: ToolOutcome,
        ctx: &ExtensionContext,
    ) -> ToolOutcome {
        let ToolOutcome {
            mut content,
            mut details,
            mut is_error,
        } = result;
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for("tool_result") {
                let event = ExtensionEvent::ToolResult {
                    tool_name: tool_name.to_string(),
                    tool_call_id: tool_call_id.to_string(),
                    input: input.clone(),
                    content: content.clone(),
                    details: details.clone(),
                    is_error,
                };
                match handler(event, ctx.clone()).await {
                    Err(e) => self.report(&ext.path, "tool_result", e),
                    Ok(Some(v)) => match serde_json::from_value::<ToolResultPatch>(v) {
                        Ok(p) => {
                            if let Some(c) = p.content {
                                content = c;
                            }
                            if p.details.is_some() {
                                details = p.details;
                            }
                            if let Some(e) = p.is_error {
                                is_error = e;
                            }
                        }
                        Err(e) => {
                            self.report(&ext.path, "tool_result", format!("invalid result: {e}"))
                        }
                    },
                    Ok(None) => {}
                }
            }
        }
        ToolOutcome {
            content,
            details,
            is_error,
        }
    }

    /// pi 1.6's `project_trust`: handlers in load order until one answers yes or no (that
    /// answer decides); `undecided`, nothing or a failure (reported) goes on to the next.
    pub async fn emit_project_trust(
        &self,
        cwd: String,
        ctx: &ExtensionContext,
    ) -> Option<ProjectTrustResult> {
        let event = ExtensionEvent::ProjectTrust { cwd };
        let name = event.type_name();
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for(name) {
                match handler(event.clone(), ctx.clone()).await {
                    Err(e) => self.report(&ext.path, name, e),
                    Ok(Some(v)) => match serde_json::from_value::<ProjectTrustResult>(v) {
                        Ok(r) if r.trusted != TrustAnswer::Undecided => return Some(r),
                        Ok(_) => {}
                        Err(e) => self.report(&ext.path, name, format!("invalid result: {e}")),
                    },
                    Ok(None) => {}
                }
            }
        }
        None
    }

    /// `session_before_*` (EXT-4): the last truthy result wins; `cancel` returns at once.
    pub async fn emit_session_before(
        &self,
        event: ExtensionEvent,
        ctx: &ExtensionContext,
    ) -> Option<SessionBeforeResult> {
        let name = event.type_name();
        let mut last = None;
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for(name) {
                match handler(event.clone(), ctx.clone()).await {
                    Err(e) => self.report(&ext.path, name, e),
                    Ok(Some(v)) => match serde_json::from_value::<SessionBeforeResult>(v) {
                        Ok(r) if r.cancel => return Some(r),
                        Ok(r) => last = Some(r),
                        Err(e) => self.report(&ext.path, name, format!("invalid result: {e}")),
                    },
                    Ok(None) => {}
                }
            }
        }
        last
    }

    /// `message_end` (EXT-12): a replacement of the same role becomes current for later
    /// handlers; another role is reported and ignored. Returns the final replacement, if any.
    pub async fn emit_message_end(
        &self,
        message: &AgentMessage,
        ctx: &ExtensionContext,
    ) -> Option<AgentMessage> {
        let mut current = message.clone();
        let mut replaced = false;
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for("message_end") {
                let event = ExtensionEvent::MessageEnd {
                    message: current.clone(),
                };
                match handler(event, ctx.clone()).await {
                    Err(e) => self.report(&ext.path, "message_end", e),
                    Ok(Some(v)) => {
                        let Some(m) = v.get("message") else { continue };
                        match serde_json::from_value::<AgentMessage>(m.clone()) {
                            Ok(m) if m.role() == message.role() => {
                                current = m;
                                replaced = true;
                            }
                            Ok(_) => self.report(
                                &ext.path,
                                "message_end",
                                "message_end handlers must return a message with the same role"
                                    .into(),
                            ),
                            Err(e) => self.report(
                                &ext.path,
                                "message_end",
                                format!("invalid message: {e}"),
                            ),
                        }
                    }
                    Ok(None) => {}
                }
            }
        }
        replaced.then_some(current)
    }

    /// `user_bash` (BASH-9): the first truthy result wins.
    pub async fn emit_user_bash(
        &self,
        event: ExtensionEvent,
        ctx: &ExtensionContext,
    ) -> Option<Value> {
        for ext in self.extensions().iter() {
            for handler in ext.handlers_for("user_bash") {
                match handler(event.clone(), ctx.clone()).await {
                    Err(e) => self.report(&ext.path, "user_bash", e),
                    Ok(Some(v)) if !v.is_null() && v != Value::Bool(false) => return Some(v),
                    Ok(_) => {}
                }
            }
        }
        None
    }

    /// Every command with the file that registered it: the loaded ones in load order, those
    /// registered later after them (one replacing a command of its name and file in place).
    fn all_commands(&self) -> Vec<(CommandDef, String)> {
        let mut all: Vec<(CommandDef, String)> = self
            .extensions()
            .iter()
            .flat_map(|e| {
                e.commands()
                    .iter()
                    .map(|c| (c.clone(), e.command_path(&c.name).to_string()))
            })
            .collect();
        let late = self.late.read().unwrap_or_else(|p| p.into_inner());
        for (def, path) in &late.commands {
            let same = |(c, p): &(CommandDef, String)| c.name == def.name && p == path;
            match all.iter_mut().find(|entry| same(entry)) {
                Some(entry) => entry.0 = def.clone(),
                None => all.push((def.clone(), path.clone())),
            }
        }
        all
    }

    /// Every command with its invocation name (CMD-2), in load order.
    pub fn commands(&self) -> Vec<(String, CommandDef)> {
        let all = self.all_commands();
        let names: Vec<&str> = all.iter().map(|(c, _)| c.name.as_str()).collect();
        invocation_names(&names)
            .into_iter()
            .zip(all.iter().map(|(c, _)| c.clone()))
            .collect()
    }

    /// Every command's invocation name with the file that registered it, in load order.
    pub fn command_paths(&self) -> Vec<(String, String)> {
        let all = self.all_commands();
        let names: Vec<&str> = all.iter().map(|(c, _)| c.name.as_str()).collect();
        invocation_names(&names)
            .into_iter()
            .zip(all.iter().map(|(_, p)| p.clone()))
            .collect()
    }

    /// The command invoked by `name`, if any.
    pub fn get_command(&self, name: &str) -> Option<CommandDef> {
        self.commands()
            .into_iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| c)
    }

    /// The completions of the arguments of command `name` for `prefix` (pi's
    /// `getArgumentCompletions`): `None` when it offers none or completes nothing. A failing
    /// completer is reported as `command:<name>`, event `command_completions`.
    pub async fn command_completions(
        &self,
        name: &str,
        prefix: &str,
    ) -> Option<Vec<crate::ArgumentCompletion>> {
        let complete = self.get_command(name)?.complete?;
        match complete(prefix.to_string()).await {
            Ok(items) => items.filter(|i| !i.is_empty()),
            Err(e) => {
                self.report(&format!("command:{name}"), "command_completions", e);
                None
            }
        }
    }

    /// Runs `/name args` if `name` is a command (CMD-3..5). Returns false when it is not one.
    /// A failing command is reported as `command:<name>` and still counts as handled.
    pub async fn execute_command(&self, text: &str, ctx: &ExtensionContext) -> bool {
        let Some((name, args)) = parse_command(text) else {
            return false;
        };
        let Some(cmd) = self.get_command(name) else {
            return false;
        };
        if let Err(e) = (cmd.handler)(args.to_string(), ctx.clone()).await {
            self.report(&format!("command:{name}"), "command", e);
        }
        true
    }

    /// Every shortcut with the path of the extension that registered it, in load order.
    pub fn shortcuts(&self) -> Vec<(String, ShortcutDef)> {
        self.extensions()
            .iter()
            .flat_map(|e| e.shortcuts().iter().map(|s| (e.path.clone(), s.clone())))
            .collect()
    }

    /// Every tool extensions registered, in load order.
    pub fn tools(&self) -> Vec<Arc<dyn rho_agent::AgentTool>> {
        self.extensions()
            .iter()
            .flat_map(|e| e.tools().iter().cloned())
            .collect()
    }

    /// Adds a virtual model registered after loading; it replaces one of its provider and id.
    pub fn add_virtual_model(&self, def: crate::VirtualModelDef) {
        let mut late = self.late.write().unwrap_or_else(|p| p.into_inner());
        let key = (def.spec.provider.clone(), def.spec.id.clone());
        late.removed_virtual_models.retain(|k| *k != key);
        late.virtual_models
            .retain(|v| (&v.spec.provider, &v.spec.id) != (&key.0, &key.1));
        late.virtual_models.push(def);
    }

    /// Removes the virtual model `provider`/`id`, loaded or registered later.
    pub fn remove_virtual_model(&self, provider: &str, id: &str) {
        let mut late = self.late.write().unwrap_or_else(|p| p.into_inner());
        late.virtual_models
            .retain(|v| (v.spec.provider.as_str(), v.spec.id.as_str()) != (provider, id));
        let removed = (provider.to_string(), id.to_string());
        if !late.removed_virtual_models.contains(&removed) {
            late.removed_virtual_models.push(removed);
        }
    }

    /// The router of the virtual model `provider`/`id` (the last registration wins, as a
    /// later registration replaces an earlier one in pi).
    pub fn virtual_route(&self, provider: &str, id: &str) -> Option<crate::VirtualRoute> {
        let is = |v: &&crate::VirtualModelDef| v.spec.provider == provider && v.spec.id == id;
        {
            let late = self.late.read().unwrap_or_else(|p| p.into_inner());
            if let Some(v) = late.virtual_models.iter().rfind(is) {
                return Some(v.route.clone());
            }
            let removed = |(p, i): &(String, String)| p == provider && i == id;
            if late.removed_virtual_models.iter().any(removed) {
                return None;
            }
        }
        self.extensions()
            .iter()
            .flat_map(|e| e.virtual_models())
            .rfind(is)
            .map(|v| v.route.clone())
    }
}
