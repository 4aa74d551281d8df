//! The session as extensions see it ([`ExtensionHost`]), and the agent hooks through which
//! extensions take part in every run: `context`, `tool_call`, `tool_result` (EXT-5, 10, 11).
//!
//! The host's errors are strings on purpose: each is the text answered to the extension's
//! call (wire data), so the session's typed errors are turned into text here, at that edge.

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use futures_util::future::BoxFuture;
use rho_agent::AgentTool;
use rho_agent::{
    AfterToolCallContext, AgentMessage, BeforeToolCallContext, ToolCallDecision, ToolResultOverride,
};
use rho_ai::{ContentBlock, ImageContent, Model};
use rho_protocol::extension::calls::ToolsState;
use serde_json::Value;

use super::custom::{SendMessageOptions, UserMessageContent};
use super::events::SessionOnlyEvent;
use super::ops::Origin;
use super::{AgentSession, CredentialStore, Inner, SessionError};
use rho_extension_host::runner::ToolOutcome;
use rho_extension_host::{
    CustomMessageInput, DeliverAs, ExtensionHost, SendOptions, SessionAction,
};

/// A weak handle: a captured context never keeps a closed session alive.
pub(crate) struct SessionHost {
    pub inner: Weak<Inner>,
    /// Where the calls come from: a handler the run loop awaits must not wait for it.
    pub origin: Origin,
}

impl SessionHost {
    fn session(&self) -> Option<AgentSession> {
        self.inner.upgrade().map(|inner| AgentSession { inner })
    }
}

const GONE: &str = "This extension ctx is stale: the session it belonged to has ended.";

impl ExtensionHost for SessionHost {
    fn cwd(&self) -> PathBuf {
        self.session()
            .map(|s| s.cwd().to_path_buf())
            .unwrap_or_default()
    }

    fn sandbox(&self) -> Option<Arc<rho_sandbox::Sandbox>> {
        self.session().and_then(|s| s.sandbox())
    }

    fn key_scrub(&self) -> rho_tools::process::KeyScrub {
        self.session()
            .map(|s| s.shell_config(None).scrub)
            .unwrap_or_default()
    }

    fn model(&self) -> Option<Model> {
        self.session().and_then(|s| s.model())
    }

    fn is_idle(&self) -> bool {
        self.session().is_none_or(|s| !s.is_streaming())
    }

    fn has_pending_messages(&self) -> bool {
        self.session()
            .is_some_and(|s| s.pending_message_count() > 0)
    }

    fn system_prompt(&self) -> String {
        self.session()
            .map(|s| s.system_prompt())
            .unwrap_or_default()
    }

    fn abort(&self) {
        if let Some(s) = self.session() {
            tokio::spawn(async move { s.abort().await });
        }
    }

    fn send_message(
        &self,
        message: CustomMessageInput,
        options: SendOptions,
    ) -> BoxFuture<'static, Result<(), String>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(GONE)?;
            s.send_custom_message(
                message,
                SendMessageOptions {
                    trigger_turn: options.trigger_turn,
                    deliver_as: options.deliver_as,
                },
            )
            .await
            .map_err(|e| e.to_string())
        })
    }

    fn send_user_message(
        &self,
        text: String,
        images: Vec<ImageContent>,
        deliver_as: Option<DeliverAs>,
    ) -> BoxFuture<'static, Result<(), String>> {
        let session = self.session();
        let origin = self.origin;
        Box::pin(async move {
            let s = session.ok_or(GONE)?;
            let mut content = vec![ContentBlock::text(text)];
            content.extend(images.into_iter().map(ContentBlock::Image));
            let content = UserMessageContent::Blocks(content);
            s.send_user_message_from(content, deliver_as, origin)
                .await
                .map_err(|e| e.to_string())
        })
    }

    fn append_entry(&self, custom_type: String, data: Option<Value>) -> Result<(), String> {
        let s = self.session().ok_or(GONE)?;
        let entry = s
            .state()
            .session
            .append_custom(&custom_type, data)
            .cloned()
            .map_err(|e| e.to_string())?;
        s.emit_session(SessionOnlyEvent::EntryAppended {
            entry: Box::new(entry),
        });
        Ok(())
    }

    fn set_session_name(&self, name: String) -> Result<(), String> {
        let s = self.session().ok_or(GONE)?;
        s.set_session_name(&name).map_err(|e| e.to_string())
    }

    fn session_entries(&self, from: usize) -> Result<Value, String> {
        let s = self.session().ok_or(GONE)?;
        let state = s.state();
        let store = &state.session;
        let entries = store.entries();
        Ok(serde_json::json!({
            "sessionId": store.session_id(),
            "sessionFile": store.path(),
            "header": store.header(),
            "leafId": store.leaf_id(),
            "total": entries.len(),
            "entries": entries.get(from..).unwrap_or_default(),
        }))
    }

    fn set_label(&self, id: String, label: Option<String>) -> Result<(), String> {
        let s = self.session().ok_or(GONE)?;
        let mut state = s.state();
        state
            .session
            .append_label(&id, label.as_deref())
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn tools_state(&self) -> Result<ToolsState, String> {
        Ok(self.session().ok_or(GONE)?.tools_state())
    }

    fn set_active_tools(&self, names: Vec<String>) -> Result<ToolsState, String> {
        Ok(self.session().ok_or(GONE)?.set_active_tool_names(&names))
    }

    fn register_tool(&self, tool: Arc<dyn AgentTool>) -> Result<(), String> {
        self.session().ok_or(GONE)?.register_dynamic_tool(tool);
        Ok(())
    }

    fn models(&self) -> Vec<Model> {
        self.session()
            .map(|s| s.models().as_ref().clone())
            .unwrap_or_default()
    }

    fn set_model(
        &self,
        provider: String,
        model_id: String,
    ) -> BoxFuture<'static, Result<bool, String>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(GONE)?;
            let model = s
                .models()
                .iter()
                .find(|m| m.provider == provider && m.id == model_id)
                .cloned()
                .ok_or_else(|| format!("set_model: no model {provider}/{model_id}"))?;
            match s.set_model(model).await {
                Ok(()) => Ok(true),
                Err(SessionError::ModelWithoutKey { .. }) => Ok(false),
                Err(e) => Err(e.to_string()),
            }
        })
    }

    fn thinking_level(&self) -> String {
        self.session()
            .map(|s| s.thinking_level().as_str().to_string())
            .unwrap_or_else(|| "off".into())
    }

    fn set_thinking_level(&self, level: String) -> BoxFuture<'static, Result<String, String>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(GONE)?;
            let level = super::parse_level(&level).map_err(|e| e.to_string())?;
            s.set_thinking_level(level).await;
            Ok(s.thinking_level().as_str().to_string())
        })
    }

    fn complete(
        &self,
        call: rho_protocol::extension::calls::Complete,
    ) -> BoxFuture<'static, Result<Value, String>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(GONE)?;
            let context: rho_ai::Context = serde_json::from_value(call.context)
                .map_err(|e| format!("complete: invalid context: {e}"))?;
            let reply = s
                .complete_for_extension(&call.provider, &call.model_id, context, call.max_tokens)
                .await
                .map_err(|e| e.to_string())?;
            serde_json::to_value(reply).map_err(|e| e.to_string())
        })
    }

    fn compact(&self, instructions: Option<String>) -> BoxFuture<'static, Result<Value, String>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(GONE)?;
            let result = s
                .compact(instructions.as_deref())
                .await
                .map_err(|e| e.to_string())?;
            serde_json::to_value(result).map_err(|e| e.to_string())
        })
    }

    fn wait_for_idle(&self) -> BoxFuture<'static, ()> {
        let session = self.session();
        Box::pin(async move {
            if let Some(s) = session {
                s.wait_for_idle().await;
            }
        })
    }

    fn session_action(&self, action: SessionAction) -> BoxFuture<'static, Result<bool, String>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(GONE)?;
            s.run_session_action(action)
                .await
                .map_err(|e| e.to_string())
        })
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

impl AgentSession {
    /// `before_provider_request` / `after_provider_response` as HTTP hooks, only when an
    /// extension handles them (EXT-6, EXT-8).
    fn request_hooks(&self) -> rho_ai::options::RequestHooks {
        let runner = &self.inner.services.extensions;
        let mut hooks = rho_ai::options::RequestHooks::default();
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
        hooks
    }

    /// Installs the hooks that connect the agent loop to the session: full message
    /// conversion, credentials per request, and the extension events inside a run.
    pub(crate) fn install_agent_hooks(&self) {
        let weak = self.inner.weak.clone();
        let stream = self.inner.services.stream_fn.clone();
        let credentials = self.inner.services.credentials.clone();
        let block_images = self.state().settings.block_images();
        let (timeout, idle_timeout, retry, budgets) = {
            let s = self.state();
            (
                s.settings.provider_timeout(),
                s.settings.http_idle_timeout(),
                s.settings.retry(),
                s.settings.thinking_budgets(),
            )
        };
        let hooks = self.request_hooks();
        self.inner.services.agent.update_options(|o| {
            o.stream_options.timeout = timeout;
            o.stream_options.idle_timeout = idle_timeout;
            o.stream_options.max_retries = retry.provider_max_retries;
            o.stream_options.max_retry_delay_ms = Some(retry.max_retry_delay_ms);
            o.stream_options.thinking_budgets = budgets;
            o.convert_to_llm = Some(Arc::new(move |messages: &[Arc<AgentMessage>]| {
                let converted = rho_agent::convert_to_llm(messages);
                if block_images {
                    super::model::block_images(converted)
                } else {
                    converted
                }
            }));
            let store = credentials.clone();
            o.get_api_key = Some(Arc::new(move |provider: &str| {
                let (store, provider) = (store.clone(), provider.to_string());
                Box::pin(async move {
                    store
                        .request_key(&provider)
                        .await
                        .map_err(|e| e.to_string())
                })
            }));
            o.stream_fn = Arc::new(move |model, context, mut options| {
                options.hooks = hooks.clone();
                options.hooks.on_unauthorized = Some(reauthorize(&credentials, &model.provider));
                if options.api_key.is_none() {
                    options.api_key = credentials
                        .api_key(&model.provider)
                        .map_err(|e| key_error(&model.provider, e))?;
                }
                stream(model, context, options)
            });
        });
        let runner = &self.inner.services.extensions;
        if runner.has_handlers("context") {
            let w = weak.clone();
            self.inner.services.agent.update_options(|o| {
                o.transform_context = Some(Arc::new(move |messages, _cancel| {
                    let w = w.clone();
                    Box::pin(async move {
                        let Some(inner) = w.upgrade() else {
                            return Ok(messages);
                        };
                        let s = AgentSession { inner };
                        let ctx = s.ext_ctx();
                        Ok(s.inner
                            .services
                            .extensions
                            .emit_context(messages, &ctx)
                            .await)
                    })
                }));
            });
        }
        let gate = !self.inner.services.permissions.is_open();
        let handlers = runner.has_handlers("tool_call");
        if gate || handlers {
            let w = weak.clone();
            self.inner.services.agent.update_options(|o| {
                o.before_tool_call = Some(Arc::new(move |c: BeforeToolCallContext| {
                    let w = w.clone();
                    Box::pin(async move {
                        let Some(inner) = w.upgrade() else {
                            return Ok(None);
                        };
                        let s = AgentSession { inner };
                        // SE-2 / EXT-10: the event pipeline first finishes the assistant
                        // message that made this call (handlers, listeners, session file).
                        let mut processed = s.inner.processed_assistant.subscribe();
                        let target = c.assistant_message.timestamp;
                        let _ = processed.wait_for(|t| *t >= target).await;
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
                }));
            });
        }
        let escalation = self.sandbox_confines();
        let result_handlers = runner.has_handlers("tool_result");
        if escalation || result_handlers {
            self.inner.services.agent.update_options(|o| {
                o.after_tool_call = Some(Arc::new(move |c: AfterToolCallContext| {
                    let w = weak.clone();
                    Box::pin(async move {
                        let Some(inner) = w.upgrade() else {
                            return Ok(None);
                        };
                        let s = AgentSession { inner };
                        let mut start = ToolOutcome {
                            content: c.content.clone(),
                            details: c.details.clone(),
                            is_error: c.is_error,
                        };
                        if escalation {
                            let (name, id) = (&c.tool_call.name, &c.tool_call.id);
                            start = s.escalate(name, id, &c.args, start, c.cancel.clone()).await;
                        }
                        let out = if result_handlers {
                            // As for tool_call (SE-2): handlers see the assistant message
                            // that made this call in the session (ctx.sessionManager).
                            let mut processed = s.inner.processed_assistant.subscribe();
                            let target = c.assistant_message.timestamp;
                            let _ = processed.wait_for(|t| *t >= target).await;
                            let ctx = s.ext_ctx();
                            s.inner
                                .services
                                .extensions
                                .emit_tool_result(
                                    &c.tool_call.name,
                                    &c.tool_call.id,
                                    &c.args,
                                    start,
                                    &ctx,
                                )
                                .await
                        } else {
                            start
                        };
                        Ok(Some(ToolResultOverride {
                            content: Some(out.content),
                            details: out.details,
                            is_error: Some(out.is_error),
                            terminate: None,
                        }))
                    })
                }));
            });
        }
    }
}

/// The provider error a failed key lookup ends the turn with: a models.json value that
/// could not be resolved keeps its own text (which command, which variable), anything else
/// is "no key".
fn key_error(provider: &str, e: super::credentials::CredentialError) -> rho_ai::ProviderError {
    use rho_ai::auth::AuthError;
    match e {
        super::credentials::CredentialError::Resolve(AuthError::ModelsJson(r)) => r.into(),
        _ => rho_ai::ProviderError::NoApiKey(provider.to_string()),
    }
}
