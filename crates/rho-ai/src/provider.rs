//! The entry point: `stream(model, context, options)` picks the wire API and runs the call.
//!
//! Each API module turns a context into an [`HttpRequest`] (pure, snapshot-tested) and parses
//! the reply with a [`WireParser`]. The shared [`drive`] does the HTTP, the abort handling and
//! the error mapping, so every API ends its streams the same way. [`Api`] is the one place a
//! wire API is named: adding one means a module under `providers/` and its arm in [`stream`].
//!
//! Cloud credentials (Bedrock's AWS chain, Vertex's Application Default Credentials) are an
//! [`Authorize`] step run just before sending, so their crates start only when a request for
//! those APIs is made.

use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::event::AssistantStream;
use crate::fold::Fold;
use futures_util::future::BoxFuture;

use crate::http::{self, HttpFailure, StatusFailure};
use crate::message::Context;
use crate::model::Model;
use crate::options::StreamOptions;
use crate::reply::ReplyBuilder;
use crate::sse::{EventDecoder, SseEvent, SseParser};
use crate::stream_error::StreamError;
use crate::usage::StopReason;

/// Why a call could not even start (no stream exists yet).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProviderError {
    /// No key in the options nor in the provider's environment variables.
    #[error("No API key for provider: {0}")]
    NoApiKey(String),
    /// The provider's models.json configuration could not be applied (a header command
    /// failed, or `authHeader` without a key); the text says which and what to fix.
    #[error(transparent)]
    Config(#[from] crate::models_json::ResolveError),
    /// The key cannot be used with this provider (a Codex token without its account id).
    #[error("{0}")]
    BadKey(String),
    /// The model names an API neither rho nor pi knows.
    #[error("Unsupported API \"{api}\" for model {model}: use anthropic-messages, openai-completions, openai-responses, openai-codex-responses, google-generative-ai, google-vertex, bedrock-converse-stream, azure-openai-responses or mistral-conversations")]
    UnsupportedApi {
        /// The api field.
        api: String,
        /// The model id.
        model: String,
    },
    /// The model's API is one of pi's that rho does not speak yet (its text says which).
    #[error("{0}")]
    ApiNotServed(String),
}

/// A fully built request: what goes on the wire.
#[derive(Debug, Clone, PartialEq)]
pub struct HttpRequest {
    /// Endpoint URL.
    pub url: String,
    /// Headers in precedence order (later ones win).
    pub headers: Vec<(String, String)>,
    /// JSON body.
    pub body: serde_json::Value,
}

impl HttpRequest {
    /// The same request carrying `new` where it carried `old` (a refreshed OAuth token): in
    /// every header, and for GitHub Copilot in the API host its token names.
    pub fn replace_key(&mut self, old: &str, new: &str) {
        for (_, value) in &mut self.headers {
            if value.contains(old) {
                *value = value.replace(old, new);
            }
        }
        let hosts = (
            crate::oauth::copilot_base_url(old),
            crate::oauth::copilot_base_url(new),
        );
        if let (Some(from), Some(to)) = hosts {
            if let Some(rest) = self.url.strip_prefix(&from) {
                self.url = format!("{to}{rest}");
            }
        }
    }
}

/// What a parser wants after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Flow {
    /// Keep reading.
    Continue,
    /// The API's terminal event arrived, but more may follow that belongs to the reply
    /// (the usage chunk after a Chat Completions `finish_reason`): keep reading.
    Terminal,
    /// The API's terminal event arrived and nothing after it matters: stop reading.
    Stop,
}

/// Folds one API's SSE events into the reply. The shared driver ([`crate::fold`]) ends the
/// reply: as complete only when an event returned [`Flow::Terminal`] or [`Flow::Stop`], as
/// [`WireParser::ended_early`] otherwise.
pub trait WireParser: Send {
    /// Handles one event; `Err` ends the stream with that error message.
    fn on_event(&mut self, event: SseEvent, reply: &mut ReplyBuilder) -> Result<Flow, StreamError>;
    /// Called when the body ended, whether or not the terminal event arrived (the parser
    /// closes what its API closes at the end); the stop reason, or `Err` when the terminal
    /// event itself makes the reply an error. Ignored for a body that ended early.
    fn finish(&mut self, reply: &mut ReplyBuilder) -> Result<StopReason, StreamError>;
    /// pi 1.6's text for a body that ended before the API's terminal event. No default: every
    /// API must say how its streams end early, so none can take a cut reply as complete.
    fn ended_early(&self) -> &'static str;
    /// True when the parser sends `start` itself, once the stream's first event has told it
    /// what the partial reply starts with (Anthropic's `message_start` carries the input
    /// tokens, which every later update then reports, as pi 1.6 does). A reply's first
    /// block starts it in any case.
    fn starts_reply(&self) -> bool {
        false
    }
    /// What turns the body into events: SSE unless the API frames its stream otherwise.
    fn decoder(&self) -> Box<dyn EventDecoder> {
        Box::new(SseParser::new())
    }
}

/// The text of a non-2xx reply, worded as the API's own client words it.
pub type ErrorText = fn(&StatusFailure) -> String;

/// Completes a request just before it is sent, after the payload hook has had the body: adds
/// what only a credential provider knows (a SigV4 signature over the final body, a fresh
/// OAuth access token). `Err`'s text is what the reply fails with.
pub trait Authorize: Send + Sync + std::fmt::Debug {
    /// Authorizes `request` in place.
    fn authorize<'a>(
        &'a self,
        request: &'a mut HttpRequest,
    ) -> BoxFuture<'a, Result<(), AuthorizeError>>;
}

/// Why the cloud credentials of a request could not be had or applied; each provider's text
/// says what to set or run.
#[derive(Debug, thiserror::Error)]
pub enum AuthorizeError {
    /// Amazon Bedrock's signing or AWS credential chain.
    #[error(transparent)]
    Bedrock(#[from] crate::providers::bedrock::BedrockAuthError),
    /// Google Vertex AI's Application Default Credentials.
    #[error(transparent)]
    Vertex(#[from] crate::providers::vertex::VertexError),
}

pub use crate::api::Api;

/// Resolves the key (options, then environment) and fits the output cap (the caller's, else
/// the model's) into the context window, as pi 1.6 does ([`crate::output_cap`]).
pub fn resolve_options(
    model: &Model,
    context: &Context,
    mut options: StreamOptions,
) -> Result<StreamOptions, ProviderError> {
    if options.api_key.as_deref().is_none_or(str::is_empty) {
        options.api_key = crate::api_key::env_api_key(&model.provider);
    }
    let needs_key = Api::parse(&model.api).is_none_or(Api::needs_key);
    if options.api_key.is_none() && needs_key {
        return Err(ProviderError::NoApiKey(model.provider.clone()));
    }
    let cap = options.max_tokens.unwrap_or(model.max_tokens);
    options.max_tokens = Some(crate::output_cap::clamp_to_context(model, context, cap));
    Ok(options)
}

/// Starts a call. Errors only when no stream can exist (no key, unknown API); every later
/// failure arrives as the stream's terminal `error` event. Must run inside a tokio runtime.
pub fn stream(
    model: &Model,
    context: &Context,
    options: StreamOptions,
) -> Result<AssistantStream, ProviderError> {
    let api = Api::parse(&model.api).ok_or_else(|| ProviderError::UnsupportedApi {
        api: model.api.clone(),
        model: model.id.clone(),
    })?;
    if !api.is_served() {
        return Err(not_served(api, model));
    }
    let options = resolve_options(model, context, options)?;
    let routed = copilot_route(model, options.api_key.as_deref());
    let model = routed.as_ref().unwrap_or(model);
    let (sink, stream) = AssistantStream::channel();
    let reply = ReplyBuilder::new(model, sink, options.cancel.clone());
    let control = CallControl {
        cancel: options.cancel.clone(),
        timeout: options.timeout,
        idle_timeout: options.idle_timeout,
        hooks: options.hooks.clone(),
        key: options.api_key.clone(),
        provider: model.provider.clone(),
        max_retries: options.max_retries,
        max_retry_delay_ms: options.max_retry_delay_ms,
        authorize: None,
    };
    match api {
        Api::AnthropicMessages => spawn(
            anthropic::build_request(model, context, &options),
            anthropic::Parser::new(model).for_context(context, &options),
            |f| anthropic::error_message(f.status, &f.body),
            reply,
            control,
        ),
        Api::OpenAiCompletions if azure::is_azure(&model.provider) => {
            match azure::completions_model(model) {
                Ok((routed, deployment)) => {
                    let mut request = openai_completions::build_request(&routed, context, &options);
                    request.body["model"] = serde_json::json!(deployment);
                    spawn(
                        request,
                        openai_completions::Parser::new(model),
                        azure::error_message,
                        reply,
                        control,
                    )
                }
                Err(e) => reply.fail(e.to_string()),
            }
        }
        Api::OpenAiCompletions => spawn(
            openai_completions::build_request(model, context, &options),
            openai_completions::Parser::new(model),
            |f| openai_completions::error_message(f.status, &f.body),
            reply,
            control,
        ),
        Api::OpenAiResponses => spawn(
            openai_responses::build_request(model, context, &options),
            openai_responses::Parser::new(model),
            |f| openai_responses::error_message(f.status, &f.body),
            reply,
            control,
        ),
        Api::OpenAiCodexResponses => spawn(
            openai_codex::build_request(model, context, &options)?,
            openai_responses::Parser::new(model),
            |f| openai_codex::error_message(f.status, &f.body),
            reply,
            control,
        ),
        Api::GoogleGenerativeAi => spawn(
            google::build_request(model, context, &options),
            google::Parser::new(model),
            |f| google::error_message(f.status, &f.body),
            reply,
            control,
        ),
        Api::GoogleVertex => match vertex::prepare(model, context, &options) {
            Ok((request, authorize)) => spawn(
                request,
                google::Parser::new(model),
                |f| google::error_message(f.status, &f.body),
                reply,
                CallControl {
                    authorize,
                    ..control
                },
            ),
            Err(e) => reply.fail(e.to_string()),
        },
        Api::BedrockConverseStream => {
            let (request, authorize) = bedrock::prepare(model, context, &options);
            spawn(
                request,
                bedrock::Parser::new(model),
                bedrock::error_message,
                reply,
                CallControl {
                    authorize: Some(authorize),
                    ..control
                },
            )
        }
        Api::AzureOpenAiResponses => match azure::build_request(model, context, &options) {
            Ok(request) => spawn(
                request,
                openai_responses::Parser::new(model),
                azure::error_message,
                reply,
                control,
            ),
            Err(e) => reply.fail(e.to_string()),
        },
        Api::MistralConversations => spawn(
            mistral::build_request(model, context, &options),
            mistral::Parser::new(model),
            mistral::error_message,
            reply,
            control,
        ),
        Api::PiMessages => return Err(not_served(api, model)),
    }
    Ok(stream)
}

/// The refusal of a model whose API rho does not speak yet (before any key is looked for, so
/// the message says what is really missing).
fn not_served(api: Api, model: &Model) -> ProviderError {
    ProviderError::ApiNotServed(api.not_served_message(&model.provider, &model.id))
}

/// What controls one HTTP exchange besides its request: abort, timeout, hooks.
#[derive(Debug, Clone, Default)]
pub struct CallControl {
    /// Abort signal.
    pub cancel: CancellationToken,
    /// Whole-request timeout.
    pub timeout: Option<Duration>,
    /// Longest wait for headers or the next event (`None`: the default).
    pub idle_timeout: Option<Duration>,
    /// Payload and response hooks.
    pub hooks: crate::options::RequestHooks,
    /// The key the request carries (for [`crate::options::RequestHooks::on_unauthorized`]).
    pub key: Option<String>,
    /// The provider, for the text of a failed re-authentication.
    pub provider: String,
    /// `retry.provider.maxRetries`: how often a request that failed before its stream
    /// started is sent again.
    pub max_retries: u32,
    /// `retry.provider.maxRetryDelayMs` (`None`: 60 s; 0: no limit).
    pub max_retry_delay_ms: Option<u64>,
    /// Cloud credentials applied just before sending (after the payload hook).
    pub authorize: Option<Arc<dyn Authorize>>,
}

use crate::providers::*;

/// A GitHub Copilot model as the OAuth token routes it: the token names the API host of the
/// account (`proxy-ep`), which wins over the catalog's. `None` for every other call.
fn copilot_route(model: &Model, key: Option<&str>) -> Option<Model> {
    if model.provider != "github-copilot" {
        return None;
    }
    let base = crate::oauth::copilot_base_url(key?)?;
    let mut routed = model.clone();
    routed.base_url = base;
    Some(routed)
}

fn spawn<P: WireParser + 'static>(
    request: HttpRequest,
    parser: P,
    error_message: ErrorText,
    reply: ReplyBuilder,
    control: CallControl,
) {
    tokio::spawn(drive(request, parser, error_message, reply, control));
}

/// Sends `request` and folds the reply into `reply` with `parser`.
pub async fn drive<P: WireParser>(
    mut request: HttpRequest,
    parser: P,
    error_message: ErrorText,
    reply: ReplyBuilder,
    control: CallControl,
) {
    let idle = control
        .idle_timeout
        .unwrap_or(crate::options::DEFAULT_IDLE_TIMEOUT);
    let cancel = control.cancel.clone();
    if let Some(hook) = &control.hooks.before_headers {
        request.headers = hook(std::mem::take(&mut request.headers)).await;
    }
    if let Some(hook) = &control.hooks.before_request {
        request.body = hook(request.body).await;
    }
    let resp = match send_authorized(&mut request, &control, idle, error_message).await {
        Ok(r) => r,
        Err(text) => return reply.fail(text),
    };
    let mut decoder = parser.decoder();
    let mut fold = Fold::new(parser, reply);
    let hook = control.hooks.on_stream_event.clone();
    let read = fold_events(resp, &cancel, idle, &mut *decoder, &mut fold, hook).await;
    fold.conclude(
        read.map_err(|f| failure_message(f, error_message)),
        decoder.no_events(),
    );
}

/// Folds the events of `resp`'s body until the parser has its terminal event or the body
/// ends; `hook` sees each event's JSON first, awaited, in stream order (pi's
/// `provider_stream_event`: a slow handler delays the stream).
async fn fold_events<P: WireParser>(
    resp: reqwest::Response,
    cancel: &CancellationToken,
    idle: Duration,
    decoder: &mut dyn EventDecoder,
    fold: &mut Fold<P>,
    hook: Option<crate::options::StreamEventHook>,
) -> Result<(), HttpFailure> {
    let mut reader = http::event_reader(resp, idle);
    let mut events = Vec::new();
    while reader.next(cancel, decoder, &mut events).await? {
        for event in events.drain(..) {
            if let Some(hook) = &hook {
                if let Ok(data) = serde_json::from_str(&event.data) {
                    tokio::select! {
                        biased;
                        _ = cancel.cancelled() => return Err(HttpFailure::Aborted),
                        _ = hook(data) => {}
                    }
                }
            }
            if !fold.event(event) {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// Sends `request`; when the provider rejects its key (401) and the caller can refresh it, sends
/// it once more with the fresh key. A second 401 tells the user to log in again.
async fn send_authorized(
    request: &mut HttpRequest,
    control: &CallControl,
    idle: Duration,
    error_message: ErrorText,
    // `Err` is the failed reply's `errorMessage`, worded per API as pi words it: the wire text.
) -> Result<reqwest::Response, String> {
    let first = match post(request, control, idle, error_message).await {
        Ok(r) => return Ok(r),
        Err(HttpFailure::Status(f)) if f.status == 401 => f,
        Err(f) => return Err(failure_message(f, error_message)),
    };
    let (Some(hook), Some(key)) = (&control.hooks.on_unauthorized, &control.key) else {
        return Err(error_message(&first));
    };
    let fresh = match hook(key.clone()).await? {
        Some(fresh) if fresh != *key => fresh,
        _ => return Err(error_message(&first)),
    };
    request.replace_key(key, &fresh);
    match post(request, control, idle, error_message).await {
        Ok(r) => Ok(r),
        Err(HttpFailure::Status(f)) if f.status == 401 => Err(format!(
            "{} {}",
            error_message(&f),
            crate::auth::oauth_failed_message(&control.provider)
        )),
        Err(f) => Err(failure_message(f, error_message)),
    }
}

/// Authorizes `request` (when the API signs) and sends it, and again up to
/// `retry.provider.maxRetries` times when it fails before its stream starts in a way worth
/// retrying (pi 1.6's `retryProviderRequest`): so exactly `1 + maxRetries` requests at most.
/// The wait is the server's (refused when longer than `retry.provider.maxRetryDelayMs`) or a
/// jittered back-off; an abort ends it at once. An authorization that fails or is aborted
/// ends the call before anything is sent.
async fn post(
    request: &mut HttpRequest,
    control: &CallControl,
    idle: Duration,
    error_message: ErrorText,
) -> Result<reqwest::Response, HttpFailure> {
    let mut retry = 0;
    loop {
        if let Some(authorize) = &control.authorize {
            tokio::select! {
                biased;
                _ = control.cancel.cancelled() => return Err(HttpFailure::Aborted),
                done = authorize.authorize(request) => done.map_err(HttpFailure::Authorize)?,
            }
        }
        let sent = http::post_json(
            &request.url,
            &request.headers,
            &request.body,
            &control.cancel,
            http::Timeouts {
                overall: control.timeout,
                idle,
            },
            control.hooks.after_response.as_ref(),
        )
        .await;
        let failure = match sent {
            Err(f) if retry < control.max_retries && f.is_retryable() => f,
            other => return other,
        };
        let hint = match &failure {
            HttpFailure::Status(f) => f.retry_after(),
            _ => None,
        };
        let max = control.max_retry_delay_ms.unwrap_or(60_000);
        let text = failure_message(failure, error_message);
        let wait = match crate::retry::client_retry_delay(retry, hint, max, jitter(), &text) {
            crate::retry::ClientRetry::After(wait) => wait,
            crate::retry::ClientRetry::TooLong(text) => return Err(HttpFailure::RetryDelay(text)),
        };
        tokio::select! {
            _ = control.cancel.cancelled() => return Err(HttpFailure::Aborted),
            _ = tokio::time::sleep(wait) => {}
        }
        retry += 1;
    }
}

/// A random number in `[0, 1)` for the back-off's jitter.
fn jitter() -> f64 {
    let mut bytes = [0u8; 4];
    match getrandom::getrandom(&mut bytes) {
        Ok(()) => f64::from(u32::from_le_bytes(bytes)) / (f64::from(u32::MAX) + 1.0),
        Err(_) => 0.0,
    }
}

/// Runs `parser` over an in-memory response body, exactly as [`drive`] does after a 2xx
/// status: `start`, events per decoded event, then the terminal event. For benchmarks and for
/// tests that need no HTTP.
pub fn drive_bytes<'a, P: WireParser>(
    chunks: impl IntoIterator<Item = &'a [u8]>,
    parser: P,
    reply: ReplyBuilder,
) {
    let mut decoder = parser.decoder();
    let mut fold = Fold::new(parser, reply);
    let mut on_event = |event: SseEvent| {
        fold.event(event);
    };
    for chunk in chunks {
        decoder.feed(chunk, &mut on_event);
    }
    decoder.finish(&mut on_event);
    fold.conclude(Ok(()), decoder.no_events());
}

fn failure_message(f: HttpFailure, error_message: ErrorText) -> String {
    match f {
        HttpFailure::Status(status) => error_message(&status),
        other => other.to_string(),
    }
}

/// The OpenAI-style error text: `<status> <body.error.message>`, the raw text for a non-JSON
/// body, `<status> status code (no body)` for an empty one (providers spec §3.0).
pub fn openai_style_error(status: u16, body: &str) -> String {
    if body.trim().is_empty() {
        return format!("{status} status code (no body)");
    }
    match serde_json::from_str::<serde_json::Value>(body) {
        Ok(v) => match v.pointer("/error/message").and_then(|m| m.as_str()) {
            Some(m) => format!("{status} {m}"),
            None if v.get("error").is_some() => format!("{status} {}", v["error"]),
            None => format!("{status} status code (no body)"),
        },
        Err(_) => format!("{status} {body}"),
    }
}

/// `text` without the whitespace between JSON tokens, keys kept in their original order (a
/// round trip through `serde_json::Value` would reorder them and no longer match the SDKs'
/// error texts, which the overflow patterns are written against); `None` when `text` is not
/// valid JSON.
pub fn compact_json(text: &str) -> Option<String> {
    serde_json::from_str::<serde::de::IgnoredAny>(text).ok()?;
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    for c in text.chars() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
        } else if c == '"' {
            in_string = true;
            out.push(c);
        } else if !c.is_whitespace() {
            out.push(c);
        }
    }
    Some(out)
}

/// `text` cut at `max` characters, as pi 1.6 cuts a provider's error body: the first `max`
/// characters, then `... [truncated <n> chars]`.
pub fn truncate_error_text(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((at, _)) => {
            let rest = text[at..].chars().count();
            format!("{}... [truncated {rest} chars]", &text[..at])
        }
        None => text.to_string(),
    }
}
