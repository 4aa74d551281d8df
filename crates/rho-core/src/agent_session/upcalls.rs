//! The session's side of its agent's up-calls ([`SessionHooks`]): everything the agent asks
//! of the session during a run. Installed once, when the session is built; each call looks at
//! the session as it is then (its extensions after a /reload, its permission rules), so
//! nothing is decided at installation that a later change would make stale.
//!
//! - `convert_to_llm`: the full message conversion (custom roles, bash results, summaries),
//!   with images blocked when the settings say so;
//! - `transform_context`: the extensions' `context` event (EXT-5), then
//!   `transform_with_system`: their `context_with_system` (pi 1.6);
//! - `prepare_call`: the key of each request (an OAuth token refreshed when close to expiry,
//!   or again after a 401) and the extensions' `before_provider_request` /
//!   `after_provider_response` around the HTTP exchange (EXT-6, EXT-8);
//! - `route_call`: the physical model of a request made with a virtual model, from the
//!   extension's router (`virtual_route.rs`);
//! - `before_tool_call`: the permission rules, then the extensions' `tool_call` (EXT-10);
//! - `after_tool_call`: the sandbox escalation, then the extensions' `tool_result` (EXT-11);
//! - `finish_turn`: the extensions' actionable `turn_end` (pi 1.6, `boundary.rs`).

use std::future::ready;
use std::sync::{Arc, Weak};

use futures_util::future::BoxFuture;
use rho_agent::{
    AfterToolCallContext, AgentMessage, BeforeToolCallContext, RouteRequest, SessionHooks,
    ToolCallDecision, ToolResultOverride,
};
use rho_ai::{Message, Model, StreamOptions, ThinkingLevel};
use rho_extension_host::runner::ToolOutcome;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::credentials::CredentialError;
use super::{AgentSession, CredentialStore, Inner};

/// The session as its agent sees it. Weak: the agent lives inside the session.
pub(crate) struct Upcalls {
    inner: Weak<Inner>,
    credentials: Arc<dyn CredentialStore>,
    /// `images.blockImages`, read when the session was built.
    block_images: bool,
}

impl AgentSession {
    /// Connects the agent to the session, once: the provider's stream function, the HTTP
    /// timeouts, provider retries and thinking budgets of the settings, and the session as
    /// the agent's [`SessionHooks`].
    pub(crate) fn connect_agent(&self) {
        let (timeout, idle_timeout, block_images, retry, budgets) = {
            let s = self.state();
            (
                s.settings.provider_timeout(),
                s.settings.http_idle_timeout(),
                s.settings.block_images(),
                s.settings.retry(),
                s.settings.thinking_budgets(),
            )
        };
        let upcalls = Upcalls {
            inner: self.inner.weak.clone(),
            credentials: self.inner.services.credentials.clone(),
            block_images,
        };
        let stream = self.inner.services.stream_fn.clone();
        self.inner.services.agent.update_options(|o| {
            o.stream_fn = stream;
            o.stream_options.timeout = timeout;
            o.stream_options.idle_timeout = idle_timeout;
            o.stream_options.max_retries = retry.provider_max_retries;
            o.stream_options.max_retry_delay_ms = Some(retry.max_retry_delay_ms);
            o.stream_options.thinking_budgets = budgets;
            o.hooks = Arc::new(upcalls);
        });
    }
}

impl Upcalls {
    fn session(&self) -> Option<AgentSession> {
        self.inner.upgrade().map(|inner| AgentSession { inner })
    }

    /// Whether an extension handles `event`.
    fn handles(&self, event: &str) -> bool {
        self.session()
            .is_some_and(|s| s.inner.services.extensions.has_handlers(event))
    }

    /// The extensions' `context` (or, `with_system`, `context_with_system`) rewrite of a
    /// request's messages.
    fn rewrite(
        &self,
        messages: Vec<AgentMessage>,
        with_system: bool,
    ) -> BoxFuture<'static, Result<Vec<AgentMessage>, String>> {
        let Some(s) = self.session() else {
            return Box::pin(ready(Ok(messages)));
        };
        Box::pin(async move {
            let (ctx, extensions) = (s.ext_ctx(), &s.inner.services.extensions);
            Ok(match with_system {
                false => extensions.emit_context(messages, &ctx).await,
                true => extensions.emit_context_with_system(messages, &ctx).await,
            })
        })
    }
}

impl SessionHooks for Upcalls {
    fn convert_to_llm(&self, messages: &[Arc<AgentMessage>]) -> Vec<Message> {
        let converted = rho_agent::convert_to_llm(messages);
        if self.block_images {
            super::model::block_images(converted)
        } else {
            converted
        }
    }

    fn transforms_context(&self) -> bool {
        self.handles("context")
    }

    fn transform_context(
        &self,
        messages: Vec<AgentMessage>,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Vec<AgentMessage>, String>> {
        self.rewrite(messages, false)
    }

    fn transforms_with_system(&self) -> bool {
        self.handles("context_with_system")
    }

    fn transform_with_system(
        &self,
        messages: Vec<AgentMessage>,
        _cancel: CancellationToken,
    ) -> BoxFuture<'static, Result<Vec<AgentMessage>, String>> {
        self.rewrite(messages, true)
    }

    fn prepare_call(
        &self,
        model: &Model,
        mut options: StreamOptions,
        // The run's `errorMessage` when it fails: `SessionHooks` errors are that text.
    ) -> BoxFuture<'static, Result<StreamOptions, String>> {
        let session = self.session();
        let credentials = self.credentials.clone();
        let provider = model.provider.clone();
        let hooks = session.as_ref().map(|s| s.request_hooks(model));
        Box::pin(async move {
            let fresh = credentials
                .request_key(&provider)
                .await
                .map_err(|e| e.to_string())?;
            if fresh.is_some() {
                options.api_key = fresh;
            }
            // The session's id on every call, as pi's agent passes it: providers key their
            // prompt caches and session affinity on it (`prompt_cache_key`, `session_id`
            // headers), and it follows /new, /resume and forks since it is read per call.
            options.session_id = session
                .as_ref()
                .map(|s| s.with_session(|m| m.session_id().to_string()));
            options.hooks = hooks.unwrap_or_default();
            options.hooks.on_unauthorized = Some(reauthorize(&credentials, &provider));
            if options.api_key.is_none() {
                options.api_key = credentials
                    .api_key(&provider)
                    .map_err(|e| key_error(&provider, e).to_string())?;
            }
            Ok(options)
        })
    }

    fn route_call(
        &self,
        request: RouteRequest<'_>,
        // The run's `errorMessage` when it fails: `SessionHooks` errors are that text.
    ) -> BoxFuture<'static, Result<(Model, ThinkingLevel), String>> {
        let input = super::virtual_route::RouteInput::new(&request);
        let (session, cancel) = (self.session(), request.cancel.clone());
        Box::pin(async move {
            let session = session.ok_or("the session is gone")?;
            session
                .route_request(input, cancel)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn before_tool_call(
        &self,
        c: BeforeToolCallContext,
    ) -> BoxFuture<'static, Result<Option<ToolCallDecision>, String>> {
        let Some(s) = self.session() else {
            return Box::pin(ready(Ok(None)));
        };
        let gate = !s.inner.services.permissions.is_open();
        let handlers = s.inner.services.extensions.has_handlers("tool_call");
        if !gate && !handlers {
            return Box::pin(ready(Ok(None)));
        }
        Box::pin(async move {
            // SE-2 / EXT-10: the event pipeline first finishes the assistant message that
            // made this call (handlers, listeners, session file).
            s.processed(&c.assistant_message).await;
            if gate {
                if let Some(d) = s.permission_gate(&c.tool_call.name, &c.args).await {
                    return Ok(Some(d));
                }
            }
            if !handlers {
                return Ok(None);
            }
            let ctx = s.ext_ctx();
            let mut input = c.args.clone();
            let verdict = s
                .inner
                .services
                .extensions
                .emit_tool_call(&c.tool_call.name, &c.tool_call.id, &mut input, &ctx)
                .await;
            Ok(verdict.map(|v| ToolCallDecision {
                block: v.block,
                reason: v.reason,
            }))
        })
    }

    fn finish_turn(
        &self,
        reply: &rho_ai::AssistantMessage,
        results: &[rho_ai::ToolResultMessage],
    ) -> BoxFuture<'static, bool> {
        let Some(s) = self.session() else {
            return Box::pin(ready(false));
        };
        // Nothing is copied for a turn no handler looks at.
        if !s.turn_end_wanted(reply) {
            return Box::pin(ready(false));
        }
        let (reply, results) = (reply.clone(), results.to_vec());
        Box::pin(async move { s.turn_end_boundary(reply, results).await })
    }

    fn after_tool_call(
        &self,
        c: AfterToolCallContext,
    ) -> BoxFuture<'static, Result<Option<ToolResultOverride>, String>> {
        let Some(s) = self.session() else {
            return Box::pin(ready(Ok(None)));
        };
        let escalation = s.sandbox_confines();
        let handlers = s.inner.services.extensions.has_handlers("tool_result");
        if !escalation && !handlers {
            return Box::pin(ready(Ok(None)));
        }
        Box::pin(async move {
            let mut out = ToolOutcome {
                content: c.content.clone(),
                details: c.details.clone(),
                is_error: c.is_error,
            };
            let (name, id) = (&c.tool_call.name, &c.tool_call.id);
            if escalation {
                out = s.escalate(name, id, &c.args, out, c.cancel.clone()).await;
            }
            if handlers {
                // As for tool_call (SE-2): handlers see the assistant message that made this
                // call in the session (ctx.sessionManager).
                s.processed(&c.assistant_message).await;
                let ctx = s.ext_ctx();
                let extensions = &s.inner.services.extensions;
                out = extensions
                    .emit_tool_result(name, id, &c.args, out, &ctx)
                    .await;
            }
            Ok(Some(ToolResultOverride {
                content: Some(out.content),
                details: out.details,
                is_error: Some(out.is_error),
                terminate: None,
            }))
        })
    }
}

impl AgentSession {
    /// Resolves once the event pipeline has finished `message` (its handlers, listeners and
    /// session file, SE-2).
    async fn processed(&self, message: &rho_ai::AssistantMessage) {
        let mut processed = self.inner.processed_assistant.subscribe();
        let target = message.timestamp;
        let _ = processed.wait_for(|t| *t >= target).await;
    }

    /// `before_provider_headers` / `before_provider_request` / `after_provider_response` /
    /// `provider_stream_event` as HTTP hooks of a call to `model`, only when an extension
    /// handles them (EXT-6, EXT-8).
    fn request_hooks(&self, model: &Model) -> rho_ai::options::RequestHooks {
        let runner = &self.inner.services.extensions;
        let mut hooks = rho_ai::options::RequestHooks::default();
        if runner.has_handlers("before_provider_headers") {
            let w = self.inner.weak.clone();
            hooks.before_headers = Some(Arc::new(move |headers| {
                let w = w.clone();
                Box::pin(async move {
                    let Some(inner) = w.upgrade() else {
                        return headers;
                    };
                    let s = AgentSession { inner };
                    super::provider_headers::edited(&s, headers).await
                })
            }));
        }
        if runner.has_handlers("before_provider_request") {
            let w = self.inner.weak.clone();
            hooks.before_request = Some(Arc::new(move |payload| {
                let w = w.clone();
                Box::pin(async move {
                    let Some(inner) = w.upgrade() else {
                        return payload;
                    };
                    let s = AgentSession { inner };
                    let ctx = s.ext_ctx();
                    s.inner
                        .services
                        .extensions
                        .emit_payload(payload, &ctx)
                        .await
                })
            }));
        }
        if runner.has_handlers("after_provider_response") {
            let w = self.inner.weak.clone();
            hooks.after_response = Some(Arc::new(move |status, headers| {
                let w = w.clone();
                Box::pin(async move {
                    let Some(inner) = w.upgrade() else { return };
                    let s = AgentSession { inner };
                    let headers: serde_json::Map<String, Value> = headers
                        .into_iter()
                        .map(|(k, v)| (k, Value::String(v)))
                        .collect();
                    let event = rho_extension_host::ExtensionEvent::AfterProviderResponse {
                        status,
                        headers: Value::Object(headers),
                    };
                    s.inner.services.extensions.emit(event, &s.ext_ctx()).await;
                })
            }));
        }
        if runner.has_handlers("provider_stream_event") {
            let w = self.inner.weak.clone();
            let (provider, api, id) = (model.provider.clone(), model.api.clone(), model.id.clone());
            hooks.on_stream_event = Some(Arc::new(move |data| {
                let (w, provider, api, model) =
                    (w.clone(), provider.clone(), api.clone(), id.clone());
                Box::pin(async move {
                    let Some(inner) = w.upgrade() else { return };
                    let s = AgentSession { inner };
                    let event = rho_extension_host::ExtensionEvent::ProviderStreamEvent {
                        provider,
                        api,
                        model,
                        data,
                    };
                    s.inner.services.extensions.emit(event, &s.ext_ctx()).await;
                })
            }));
        }
        hooks
    }
}

/// The 401 hook of one request: the store refreshes the rejected OAuth token (once per call,
/// as rho-ai asks once) or says there is no fresh key.
fn reauthorize(
    credentials: &Arc<dyn CredentialStore>,
    provider: &str,
) -> rho_ai::options::UnauthorizedHook {
    let (store, provider) = (credentials.clone(), provider.to_string());
    Arc::new(move |key| {
        let (store, provider) = (store.clone(), provider.clone());
        Box::pin(async move {
            store
                .rejected(&provider, &key)
                .await
                .map_err(|e| e.to_string())
        })
    })
}

/// The provider error a failed key lookup ends the turn with: a models.json value that
/// could not be resolved keeps its own text (which command, which variable), anything else
/// is "no key".
fn key_error(provider: &str, e: CredentialError) -> rho_ai::ProviderError {
    use rho_ai::auth::AuthError;
    match e {
        CredentialError::Resolve(AuthError::ModelsJson(r)) => r.into(),
        _ => rho_ai::ProviderError::NoApiKey(provider.to_string()),
    }
}
