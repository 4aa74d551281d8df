//! The session as extensions see it ([`ExtensionHost`]). (How extensions take part in every
//! run, `context`, `tool_call`, `tool_result`, is the agent's up-calls: `upcalls.rs`.)
//!
//! A refusal is a [`HostError`]: the session's own error is kept as its source, and its text
//! is what the extension hears.

use std::path::PathBuf;
use std::sync::{Arc, Weak};

use futures_util::future::BoxFuture;
use rho_agent::AgentTool;
use rho_ai::{ContentBlock, ImageContent, Model};
use rho_protocol::extension::calls::{McpServerRegistered, ToolsState};
use rho_protocol::extension::McpServerSpec;
use serde_json::Value;

use super::custom::{SendMessageOptions, UserMessageContent};
use super::ops::Origin;
use super::{AgentSession, Inner, ModelProviders, SessionError};
use rho_extension_host::{
    CommandDef, CustomMessageInput, DeliverAs, ExtensionHost, HostError, ProviderDef, SendOptions,
    SessionAction, VirtualModelDef,
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

    /// The session and where its late providers and virtual models go.
    fn model_providers(&self) -> Result<(AgentSession, Arc<dyn ModelProviders>), HostError> {
        let s = self.session().ok_or(HostError::Stale)?;
        let providers = s.inner.services.model_providers.clone();
        let providers = providers.ok_or(HostError::Unsupported("cannot take providers"))?;
        Ok((s, providers))
    }
}

impl ExtensionHost for SessionHost {
    fn cwd(&self) -> PathBuf {
        self.session()
            .map(|s| s.cwd().to_path_buf())
            .unwrap_or_default()
    }

    fn sandbox(&self) -> Option<Arc<rho_sandbox::Sandbox>> {
        self.session().and_then(|s| s.sandbox())
    }

    fn key_scrub(&self) -> rho_process::KeyScrub {
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
            // Marked at once, as pi's abort request is: a handler that aborts and returns
            // (`agent_before_settle`) has its continuation dropped.
            s.inner.run.update(|r| r.aborted |= r.streaming());
            tokio::spawn(async move { s.abort().await });
        }
    }

    fn send_message(
        &self,
        message: CustomMessageInput,
        options: SendOptions,
    ) -> BoxFuture<'static, Result<(), HostError>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(HostError::Stale)?;
            s.send_custom_message(
                message,
                SendMessageOptions {
                    trigger_turn: options.trigger_turn,
                    deliver_as: options.deliver_as,
                },
            )
            .await
            .map_err(HostError::session)
        })
    }

    fn send_user_message(
        &self,
        text: String,
        images: Vec<ImageContent>,
        deliver_as: Option<DeliverAs>,
    ) -> BoxFuture<'static, Result<(), HostError>> {
        let session = self.session();
        let origin = self.origin;
        Box::pin(async move {
            let s = session.ok_or(HostError::Stale)?;
            let mut content = vec![ContentBlock::text(text)];
            content.extend(images.into_iter().map(ContentBlock::Image));
            let content = UserMessageContent::Blocks(content);
            s.send_user_message_from(content, deliver_as, origin)
                .await
                .map_err(HostError::session)
        })
    }

    fn append_entry(&self, custom_type: String, data: Option<Value>) -> Result<(), HostError> {
        let s = self.session().ok_or(HostError::Stale)?;
        s.append_custom_entry(&custom_type, data)
            .map_err(HostError::session)
    }

    fn set_session_name(&self, name: String) -> Result<(), HostError> {
        let s = self.session().ok_or(HostError::Stale)?;
        s.set_session_name(&name).map_err(HostError::session)
    }

    fn session_entries(&self, from: usize) -> Result<Value, HostError> {
        let s = self.session().ok_or(HostError::Stale)?;
        let view = super::session_setup::entries_view(&s.state().session, from);
        Ok(view)
    }

    fn set_label(&self, id: String, label: Option<String>) -> Result<(), HostError> {
        let s = self.session().ok_or(HostError::Stale)?;
        let mut state = s.state();
        state
            .session
            .append_label(&id, label.as_deref())
            .map(|_| ())
            .map_err(HostError::session)
    }

    fn tools_state(&self) -> Result<ToolsState, HostError> {
        Ok(self.session().ok_or(HostError::Stale)?.tools_state())
    }

    fn set_active_tools(&self, names: Vec<String>) -> Result<ToolsState, HostError> {
        Ok(self
            .session()
            .ok_or(HostError::Stale)?
            .set_active_tool_names(&names))
    }

    fn register_tool(&self, tool: Arc<dyn AgentTool>) -> Result<(), HostError> {
        self.session()
            .ok_or(HostError::Stale)?
            .register_dynamic_tool(tool);
        Ok(())
    }

    fn register_command(&self, def: CommandDef, path: String) -> Result<(), HostError> {
        let s = self.session().ok_or(HostError::Stale)?;
        s.inner.services.extensions.add_command(def, path);
        Ok(())
    }

    fn register_provider(&self, def: ProviderDef) -> Result<(), HostError> {
        let (_, providers) = self.model_providers()?;
        providers.register(&def).map_err(HostError::session)
    }

    fn unregister_provider(&self, name: String) -> Result<(), HostError> {
        self.model_providers()?.1.unregister(&name);
        Ok(())
    }

    fn register_mcp_server(&self, spec: McpServerSpec) -> Result<McpServerRegistered, HostError> {
        let s = self.session().ok_or(HostError::Stale)?;
        let unconnected = s
            .register_external_server(spec)
            .map_err(HostError::Session)?;
        Ok(McpServerRegistered { unconnected })
    }

    fn unregister_mcp_server(&self, name: String, extension_path: String) -> Result<(), HostError> {
        let s = self.session().ok_or(HostError::Stale)?;
        s.unregister_external_server(&name, &extension_path);
        Ok(())
    }

    fn register_virtual_model(&self, def: VirtualModelDef) -> Result<(), HostError> {
        let (s, providers) = self.model_providers()?;
        providers
            .register_virtual_model(def.spec.model())
            .map_err(HostError::session)?;
        s.inner.services.extensions.add_virtual_model(def);
        Ok(())
    }

    fn unregister_virtual_model(&self, provider: String, id: String) -> Result<(), HostError> {
        let (s, providers) = self.model_providers()?;
        providers.unregister_virtual_model(&provider, &id);
        s.inner
            .services
            .extensions
            .remove_virtual_model(&provider, &id);
        Ok(())
    }

    fn models(&self) -> Vec<Model> {
        self.session()
            .map(|s| s.models().as_ref().clone())
            .unwrap_or_default()
    }

    fn provider_has_auth(&self, provider: &str) -> bool {
        self.session()
            .is_some_and(|s| s.auth_status(provider) == super::AuthStatus::Configured)
    }

    fn set_model(
        &self,
        provider: String,
        model_id: String,
    ) -> BoxFuture<'static, Result<bool, HostError>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(HostError::Stale)?;
            let model = s
                .models()
                .iter()
                .find(|m| m.provider == provider && m.id == model_id)
                .cloned()
                .ok_or(HostError::UnknownModel { provider, model_id })?;
            match s.set_model(model).await {
                Ok(()) => Ok(true),
                Err(SessionError::ModelWithoutKey { .. }) => Ok(false),
                Err(e) => Err(HostError::session(e)),
            }
        })
    }

    fn context_usage(&self) -> Option<rho_protocol::rpc::ContextUsage> {
        let s = self.session()?;
        s.usage_model().and_then(|model| s.context_usage(&model))
    }

    fn thinking_level(&self) -> String {
        self.session()
            .map(|s| s.thinking_level().as_str().to_string())
            .unwrap_or_else(|| "off".into())
    }

    fn set_thinking_level(&self, level: String) -> BoxFuture<'static, Result<String, HostError>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(HostError::Stale)?;
            let level = super::parse_level(&level).map_err(HostError::session)?;
            s.set_thinking_level(level).await;
            Ok(s.thinking_level().as_str().to_string())
        })
    }

    fn complete(
        &self,
        call: rho_protocol::extension::calls::Complete,
    ) -> BoxFuture<'static, Result<Value, HostError>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(HostError::Stale)?;
            let context: rho_ai::Context =
                serde_json::from_value(call.context).map_err(HostError::InvalidContext)?;
            let reply = s
                .complete_for_extension(&call.provider, &call.model_id, context, call.max_tokens)
                .await
                .map_err(HostError::session)?;
            serde_json::to_value(reply).map_err(HostError::Encode)
        })
    }

    fn compact(
        &self,
        instructions: Option<String>,
    ) -> BoxFuture<'static, Result<Value, HostError>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(HostError::Stale)?;
            let result = s
                .compact(instructions.as_deref())
                .await
                .map_err(HostError::session)?;
            serde_json::to_value(result).map_err(HostError::Encode)
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

    fn session_action(&self, action: SessionAction) -> BoxFuture<'static, Result<bool, HostError>> {
        let session = self.session();
        Box::pin(async move {
            let s = session.ok_or(HostError::Stale)?;
            s.run_session_action(action)
                .await
                .map_err(HostError::session)
        })
    }
}
