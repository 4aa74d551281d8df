//! Virtual models (pi 1.6's docs/virtual-models.md): the session routes each request made
//! with one selected.
//!
//! Design. The selection is the session's model like any other: `set_model` records it in a
//! `model_change`, `get_state`, `/model` and the footer show it, and the agent runs with it.
//! Only a request needs a physical model, so the agent asks its owner for one through the
//! [`rho_agent::SessionHooks::route_call`] up-call right before each call it makes with a
//! virtual model, as it asks for the call's key (`prepare_call`). The session answers here:
//! it works out what pi's router gets (`reason`, `previous`, `failed`, the branch's router
//! `state`, the messages), asks the extension that registered the model through the
//! extension host (a `route` request of the process protocol, as events and commands are
//! asked), checks the answer against the registry (a physical model whose provider has
//! credentials), clamps the level, stores new router state on the branch, and hands the
//! agent the pair to send. The agent stamps the reply with that model and level, so each
//! assistant message names what answered while `model_change` keeps the selection.

use std::sync::Mutex;

use rho_agent::RouteRequest;
use rho_ai::{AssistantMessage, Message, Model, StopReason, ThinkingLevel};
use rho_protocol::virtual_model::VIRTUAL_MODEL_STATE_ENTRY;
use rho_session::EntryData;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::credentials::AuthStatus;
use super::AgentSession;

/// Why a request of a virtual model was not routed (pi's texts; each names the virtual
/// model, and for a bad answer where its router sent it).
#[derive(Debug, thiserror::Error)]
pub enum RouteError {
    /// No extension registered the model (any more).
    #[error("Virtual model {provider}/{id} is not registered.")]
    NotRegistered {
        /// The virtual model's provider.
        provider: String,
        /// Its id.
        id: String,
    },
    /// The request was aborted while the router decided.
    #[error("Request was aborted")]
    Aborted,
    /// The router failed: the extension's own error text, shown as it wrote it.
    #[error("{0}")]
    Router(String),
    /// The router picked a model the registry does not list as physical.
    #[error("Virtual model {from} routed to {to}, which is not a physical model.")]
    NotPhysical {
        /// `provider/id` of the virtual model.
        from: String,
        /// `provider/id` the router answered.
        to: String,
    },
    /// The router picked a model whose provider has no credentials: log in or set its key.
    #[error("Virtual model {from} routed to {to}, which has no credentials.")]
    NoCredentials {
        /// `provider/id` of the virtual model.
        from: String,
        /// `provider/id` the router answered.
        to: String,
    },
    /// The transcript could not be read back for a summary's routing.
    #[error(transparent)]
    Transcript(#[from] rho_agent::ReadError),
}

/// The failed response an automatic retry answers (pi's `_failedResponse`): set when the
/// retry is decided under a virtual selection, taken by the next routing as its `failed`.
#[derive(Default)]
pub(crate) struct FailedResponse(Mutex<Option<AssistantMessage>>);

impl FailedResponse {
    pub(crate) fn set(&self, message: Option<AssistantMessage>) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = message;
    }

    fn take(&self) -> Option<AssistantMessage> {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// What a routing gets from the request, read while the agent still lends its messages.
pub(crate) struct RouteInput {
    /// The selected virtual model and level.
    pub selected: Model,
    pub thinking: ThinkingLevel,
    /// The latest successful response: `(provider, model, thinkingLevel)`.
    pub latest: Option<(String, String, Option<String>)>,
    /// Whether a message the user wrote follows the latest response (pi's `user` reason).
    pub user_turn: bool,
    /// The request's messages, as pi's router reads them.
    pub messages: Value,
    /// A request outside the agent loop (a summary): reason `direct`, no router state.
    pub direct: bool,
}

impl RouteInput {
    /// Reads the agent's request once; the work is only done for virtual models.
    pub(crate) fn new(request: &RouteRequest<'_>) -> Self {
        let latest = request.messages.iter().rev().find_map(|m| match m {
            Message::Assistant(a) => answered(a),
            _ => None,
        });
        Self {
            selected: request.model.clone(),
            thinking: request.thinking,
            latest,
            user_turn: request.user_turn,
            messages: serde_json::to_value(request.messages).unwrap_or(Value::Null),
            direct: false,
        }
    }
}

impl AgentSession {
    /// Routes one request of the virtual model `input.selected`: the physical model and
    /// level to send it to, or why not (pi's texts).
    pub(crate) async fn route_request(
        &self,
        input: RouteInput,
        cancel: CancellationToken,
    ) -> Result<(Model, ThinkingLevel), RouteError> {
        let model = &input.selected;
        let route = self
            .inner
            .services
            .extensions
            .virtual_route(&model.provider, &model.id)
            .ok_or_else(|| RouteError::NotRegistered {
                provider: model.provider.clone(),
                id: model.id.clone(),
            })?;
        // Taken once the route is known to exist, so a refused call keeps it for the next.
        let failed = match input.direct {
            true => None,
            false => self.inner.services.failed_response.take(),
        };
        let state = match input.direct {
            true => None,
            false => self.router_state(model),
        };
        let reason = match (input.direct, &failed, input.user_turn) {
            (true, _, _) => "direct",
            (false, Some(_), _) => "retry",
            (false, None, true) => "user",
            (false, None, false) => "continuation",
        };
        let physical = |provider: &str, id: &str| self.physical_model(provider, id);
        let previous = input.latest.as_ref().and_then(|(provider, id, level)| {
            Some(json!({"model": physical(provider, id)?, "thinkingLevel": level}))
        });
        let failed = failed.and_then(|message| {
            let model = physical(&message.provider, &message.model)?;
            Some(json!({"model": model, "thinkingLevel": message.thinking_level, "message": message}))
        });
        let request = json!({
            "model": model,
            "thinkingLevel": input.thinking.as_str(),
            "reason": reason,
            "previous": previous,
            "failed": failed,
            "state": state,
            "messages": input.messages,
        });
        let answer = tokio::select! {
            answer = route(request, self.ext_ctx()) => answer.map_err(RouteError::Router)?,
            _ = cancel.cancelled() => return Err(RouteError::Aborted),
        };
        let (provider, id) = (str_of(&answer, "provider"), str_of(&answer, "id"));
        let from = || format!("{}/{}", model.provider, model.id);
        let to = || format!("{provider}/{id}");
        let target = physical(provider, id).ok_or_else(|| RouteError::NotPhysical {
            from: from(),
            to: to(),
        })?;
        if self.inner.services.credentials.status(provider) == AuthStatus::Missing {
            return Err(RouteError::NoCredentials {
                from: from(),
                to: to(),
            });
        }
        let level = ThinkingLevel::parse(str_of(&answer, "thinkingLevel")).unwrap_or_default();
        if answer["stateChanged"] == true && !input.direct {
            self.store_router_state(model, answer.get("state").cloned().unwrap_or(Value::Null));
        }
        let level = target.clamp_thinking_level(level);
        Ok((target, level))
    }

    /// The model and level a summary request (compaction, branch summary) is sent with: the
    /// selection, or under a virtual one the model its router picks for a `direct` request.
    pub(crate) async fn summary_route(
        &self,
        model: Model,
        thinking: ThinkingLevel,
    ) -> Result<(Model, ThinkingLevel), RouteError> {
        if !model.is_virtual() {
            return Ok((model, thinking));
        }
        let messages = self.shared_messages()?;
        let messages = rho_agent::convert_to_llm(&messages);
        let cancel = CancellationToken::new();
        let mut input = RouteInput::new(&RouteRequest {
            model: &model,
            thinking,
            messages: &messages,
            user_turn: false,
            cancel: &cancel,
        });
        input.direct = true;
        self.route_request(input, cancel).await
    }

    /// The model whose limits apply to `reply` (pi's `_modelForMessage`): the selection when
    /// the reply came from it, under a virtual selection the physical model that produced it,
    /// otherwise none (a reply of another model is not measured against this one).
    pub(crate) fn model_for_message(
        &self,
        selected: Model,
        reply: &AssistantMessage,
    ) -> Option<Model> {
        if selected.is_virtual() {
            return self.physical_model(&reply.provider, &reply.model);
        }
        (selected.provider == reply.provider && selected.id == reply.model).then_some(selected)
    }

    /// A catalog model that is not virtual.
    fn physical_model(&self, provider: &str, id: &str) -> Option<Model> {
        self.models()
            .iter()
            .find(|m| m.provider == provider && m.id == id && !m.is_virtual())
            .cloned()
    }

    /// The router state last stored on the current branch for `model` (pi's
    /// `getVirtualModelState`).
    fn router_state(&self, model: &Model) -> Option<Value> {
        let state = self.state();
        let branch = state.session.tree().branch();
        branch.iter().rev().find_map(|entry| match &entry.data {
            EntryData::Custom {
                custom_type,
                data: Some(data),
            } if custom_type == VIRTUAL_MODEL_STATE_ENTRY
                && data["provider"] == model.provider.as_str()
                && data["modelId"] == model.id.as_str() =>
            {
                Some(data["state"].clone())
            }
            _ => None,
        })
    }

    /// Stores new router state on the branch before the request is sent (it stays when the
    /// request fails), as `appendEntry` stores an extension's entry.
    fn store_router_state(&self, model: &Model, router_state: Value) {
        let data = json!({"provider": model.provider, "modelId": model.id, "state": router_state});
        if self
            .append_custom_entry(VIRTUAL_MODEL_STATE_ENTRY, Some(data))
            .is_err()
        {
            self.announce_save_failure();
        }
    }

    /// Under a virtual selection, the physical model and level of the latest successful
    /// response (pi's `routedModel`): what the footer shows after the arrow, and whose limits
    /// context usage is measured against.
    pub fn routed_model(&self) -> Option<(Model, Option<ThinkingLevel>)> {
        self.model().filter(Model::is_virtual)?;
        // The footer asks on every frame: decode from the end only back to the latest answer,
        // not the whole transcript.
        let latest = self
            .inner
            .services
            .agent
            .stored_messages()
            .iter()
            .rev()
            .filter_map(|m| m.get().ok())
            .find_map(|m| answered(m.as_assistant()?))?;
        let model = self.physical_model(&latest.0, &latest.1)?;
        Some((model, latest.2.as_deref().and_then(ThinkingLevel::parse)))
    }
}

impl AgentSession {
    /// The model whose limits context usage is measured against: the selected one, or under
    /// a virtual selection the physical model of the latest response (the virtual model's own
    /// declared limits before any).
    pub fn usage_model(&self) -> Option<Model> {
        self.routed_model()
            .map(|(routed, _)| routed)
            .or_else(|| self.model())
    }
}

/// `(provider, model, thinkingLevel)` of a reply that answered (pi's `findLatestResponse`
/// skips failed and aborted ones, whose model may be the virtual one).
fn answered(reply: &AssistantMessage) -> Option<(String, String, Option<String>)> {
    let failed = matches!(reply.stop_reason, StopReason::Error | StopReason::Aborted);
    (!failed).then(|| {
        let level = reply.thinking_level.clone();
        (reply.provider.clone(), reply.model.clone(), level)
    })
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}
