//! Amazon Bedrock's Converse stream (`bedrock-converse-stream`): `POST
//! /model/{model id}/converse-stream` with the Converse body ([`request`]), a binary AWS
//! event-stream reply ([`frames`], folded by [`Parser`]), and AWS credentials ([`auth`]):
//! a bearer token (`AWS_BEARER_TOKEN_BEDROCK` or a stored key) sent as is, else SigV4 with
//! the AWS credential chain, which starts on the first Bedrock request.
//!
//! The region and endpoint follow pi 1.6: the region of an inference-profile ARN, else
//! `AWS_REGION`, `AWS_DEFAULT_REGION`, the region of a standard endpoint in the model's
//! `baseUrl`, the profile's region when `AWS_PROFILE` is set, else `us-east-1`; the endpoint
//! is a models.json `baseUrl` that is not the standard host, else
//! `AWS_ENDPOINT_URL_BEDROCK_RUNTIME`, then `AWS_ENDPOINT_URL`, else the region's.

mod auth;
mod frames;
mod parser;
mod request;

use std::sync::Arc;

use serde_json::Value;

pub use auth::BedrockAuthError;
pub use frames::FrameDecoder;
pub use parser::Parser;

use crate::http::StatusFailure;
use crate::message::Context;
use crate::model::Model;
use crate::options::StreamOptions;
use crate::provider::{Authorize, HttpRequest};

/// The request (its URL is completed when it is authorized, once the region is known) and
/// the step that signs it.
pub fn prepare(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
) -> (HttpRequest, Arc<dyn Authorize>) {
    prepare_with(model, context, options, &|name| std::env::var(name).ok())
}

/// [`prepare`] over an explicit environment.
pub fn prepare_with(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
    env: &dyn Fn(&str) -> Option<String>,
) -> (HttpRequest, Arc<dyn Authorize>) {
    let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let mut headers: Vec<(String, String)> = Vec::new();
    let overrides = model.headers.iter().flatten().chain(&options.headers);
    // `host`, `authorization` and `x-amz-*` belong to the signature.
    headers.extend(
        overrides
            .filter(|(k, _)| !auth::is_reserved_header(k))
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    let request = HttpRequest {
        url: String::new(),
        headers,
        body: request::body(model, context, options, env),
    };
    let target = auth::Target::resolve(model, env);
    let skip_auth = set("AWS_BEDROCK_SKIP_AUTH").as_deref() == Some("1");
    let bearer = options
        .api_key
        .clone()
        .filter(|k| !k.trim().is_empty() && k != crate::auth::AUTHENTICATED_MARKER)
        .or_else(|| set("AWS_BEARER_TOKEN_BEDROCK"));
    let credentials = match (skip_auth, bearer) {
        (true, _) => auth::Credentials::Dummy,
        (false, Some(token)) => auth::Credentials::Bearer(token),
        (false, None) => auth::Credentials::Chain,
    };
    let path = format!("/model/{}/converse-stream", encode_label(&model.id));
    (
        request,
        Arc::new(auth::Signer::new(target, credentials, path)),
    )
}

/// A path label as the AWS clients encode it: everything but unreserved characters.
fn encode_label(label: &str) -> String {
    let mut out = String::with_capacity(label.len());
    for b in label.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The human-readable prefixes pi gives Bedrock's exceptions (its retry and overflow rules
/// match them: "Throttling error: Too many tokens" is not an overflow).
const PREFIXES: &[(&str, &str)] = &[
    ("InternalServerException", "Internal server error"),
    ("ModelStreamErrorException", "Model stream error"),
    ("ValidationException", "Validation error"),
    ("ThrottlingException", "Throttling error"),
    ("ServiceUnavailableException", "Service unavailable"),
];

/// Where pi points users whose model rejects the account's data retention mode.
const DATA_RETENTION_DOCS: &str =
    "https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html";

/// `<prefix>: <message>` for the exception `name` (its name when it has no prefix), with the
/// data-retention hint when the message is about that.
fn with_prefix(name: &str, message: &str) -> String {
    let prefix = PREFIXES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(name, |(_, p)| p);
    format!("{prefix}: {message}{}", retention_hint(message))
}

fn retention_hint(message: &str) -> String {
    if message.to_lowercase().contains("data retention mode") {
        format!(" See {DATA_RETENTION_DOCS} for supported data retention modes.")
    } else {
        String::new()
    }
}

/// How much of an error body is kept when it has no message.
const MAX_ERROR_BODY_CHARS: usize = 4000;

/// The error text for an HTTP failure, as pi 1.6 words Bedrock's: the exception (named by
/// the `x-amzn-errortype` header or the body's `__type`/`code`) with its prefix and the
/// body's `message`; a body without a message is shown raw after the status.
pub fn error_message(failure: &StatusFailure) -> String {
    let body = failure.body.trim();
    let json = serde_json::from_str::<Value>(body).ok();
    let field = |k: &str| json.as_ref()?.get(k)?.as_str().map(str::to_string);
    let kind = failure
        .header("x-amzn-errortype")
        .map(|t| t.split(':').next().unwrap_or(t).to_string())
        .or_else(|| field("__type").map(|t| t.rsplit('#').next().unwrap_or(&t).to_string()))
        .or_else(|| field("code"))
        .filter(|k| !k.is_empty());
    let message = field("message").or_else(|| field("Message"));
    let core = match message {
        Some(m) => m,
        None if body.is_empty() => format!("{}: status code (no body)", failure.status),
        None => format!(
            "{}: {}",
            failure.status,
            crate::provider::truncate_error_text(body, MAX_ERROR_BODY_CHARS)
        ),
    };
    match kind {
        Some(kind) => with_prefix(&kind, &core),
        None => format!("{core}{}", retention_hint(&core)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(status: u16, kind: Option<&str>, body: &str) -> StatusFailure {
        StatusFailure {
            status,
            body: body.into(),
            headers: kind
                .map(|k| vec![("x-amzn-errortype".to_string(), k.to_string())])
                .unwrap_or_default(),
        }
    }

    #[test]
    fn http_errors_are_worded_as_pi_words_them() {
        let overflow = failure(
            400,
            Some("ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"),
            r#"{"message":"Input is too long for requested model."}"#,
        );
        assert_eq!(
            error_message(&overflow),
            "Validation error: Input is too long for requested model."
        );
        let throttled = failure(
            429,
            None,
            r#"{"__type":"x#ThrottlingException","message":"Too many tokens, please wait before trying again."}"#,
        );
        assert_eq!(
            error_message(&throttled),
            "Throttling error: Too many tokens, please wait before trying again."
        );
        let denied = failure(
            403,
            Some("AccessDeniedException"),
            r#"{"Message":"no access"}"#,
        );
        assert_eq!(error_message(&denied), "AccessDeniedException: no access");
        let gateway = failure(403, None, "<html>Forbidden</html>");
        assert_eq!(error_message(&gateway), "403: <html>Forbidden</html>");
        let retention = failure(
            400,
            Some("ValidationException"),
            r#"{"message":"data retention mode 'default' is not available for this model"}"#,
        );
        assert!(error_message(&retention).ends_with(
            "See https://docs.aws.amazon.com/bedrock/latest/userguide/data-retention.html for supported data retention modes."
        ));
    }

    #[test]
    fn model_ids_are_encoded_as_path_labels() {
        assert_eq!(
            encode_label("arn:aws:bedrock:us-east-1:123:inference-profile/us.anthropic.claude"),
            "arn%3Aaws%3Abedrock%3Aus-east-1%3A123%3Ainference-profile%2Fus.anthropic.claude"
        );
        assert_eq!(
            encode_label("amazon.nova-pro-v1:0"),
            "amazon.nova-pro-v1%3A0"
        );
    }
}
