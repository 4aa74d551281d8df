//! The ChatGPT backend's Responses endpoint (`openai-codex-responses`): what a ChatGPT
//! Plus/Pro subscription (a Codex OAuth login) calls. The body is the Responses body with
//! Codex's settings, sent to `{baseUrl}/codex/responses` with the account id the token names;
//! the reply is the Responses event stream, parsed by [`super::openai_responses::Parser`].

use serde_json::{json, Value};

use crate::message::Context;
use crate::model::Model;
use crate::options::StreamOptions;
use crate::provider::{HttpRequest, ProviderError};

/// The Responses API rejects fewer output tokens than this.
const MIN_OUTPUT_TOKENS: u64 = 16;

/// `{baseUrl}/codex/responses`, also when the base already ends in `/codex`.
fn url(base: &str) -> String {
    let base = base.trim_end_matches('/');
    if base.ends_with("/codex/responses") {
        base.to_string()
    } else if base.ends_with("/codex") {
        format!("{base}/responses")
    } else {
        format!("{base}/codex/responses")
    }
}

/// Builds the request; fails when the key is not a ChatGPT token (no account id in it).
pub fn build_request(
    model: &Model,
    context: &Context,
    options: &StreamOptions,
) -> Result<HttpRequest, ProviderError> {
    let key = options.api_key.as_deref().unwrap_or_default();
    let account = crate::oauth::codex_account_id(key)
        .ok_or_else(|| ProviderError::BadKey("Failed to extract accountId from token".into()))?;
    let mut request =
        super::openai_responses::build_request_without_sampling(model, context, options);
    request.url = url(&model.base_url);
    let session = request
        .body
        .get("prompt_cache_key")
        .and_then(Value::as_str)
        .map(str::to_string);
    let mut headers = vec![("originator".to_string(), "rho".to_string())];
    headers.extend(
        model
            .headers
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.clone())),
    );
    headers.extend(options.headers.iter().map(|(k, v)| (k.clone(), v.clone())));
    let mut fixed = vec![
        ("authorization", format!("Bearer {key}")),
        ("chatgpt-account-id", account),
        ("OpenAI-Beta", "responses=experimental".to_string()),
        ("accept", "text/event-stream".to_string()),
    ];
    if let Some(session) = session {
        fixed.push(("session-id", session.clone()));
        fixed.push(("x-client-request-id", session));
    }
    headers.extend(fixed.into_iter().map(|(k, v)| (k.to_string(), v)));
    request.headers = headers;
    if let Value::Object(body) = &mut request.body {
        body.remove("prompt_cache_retention");
        body.insert("text".into(), json!({"verbosity": "low"}));
        body.insert("include".into(), json!(["reasoning.encrypted_content"]));
        body.insert("tool_choice".into(), json!("auto"));
        body.insert("parallel_tool_calls".into(), json!(true));
        if let Some(n) = body.get("max_output_tokens").and_then(Value::as_u64) {
            body.insert("max_output_tokens".into(), json!(n.max(MIN_OUTPUT_TOKENS)));
        }
        for tool in body
            .get_mut("tools")
            .and_then(Value::as_array_mut)
            .into_iter()
            .flatten()
        {
            if let Value::Object(t) = tool {
                t.remove("strict");
            }
        }
    }
    Ok(request)
}

/// The error text: a usage limit in words, else OpenAI's style.
pub fn error_message(status: u16, body: &str) -> String {
    let parsed: Value = serde_json::from_str(body).unwrap_or(Value::Null);
    let error = parsed.get("error").unwrap_or(&Value::Null);
    let code = ["code", "type"]
        .iter()
        .find_map(|k| error.get(*k).and_then(Value::as_str))
        .unwrap_or_default();
    let limited = status == 429
        || [
            "usage_limit_reached",
            "usage_not_included",
            "rate_limit_exceeded",
        ]
        .iter()
        .any(|c| code.contains(c));
    if !limited || error.is_null() {
        return crate::provider::openai_style_error(status, body);
    }
    let plan = error
        .get("plan_type")
        .and_then(Value::as_str)
        .map(|p| format!(" ({} plan)", p.to_lowercase()))
        .unwrap_or_default();
    let when = error
        .get("resets_at")
        .and_then(Value::as_f64)
        .map(|at| {
            let mins = ((at * 1000.0 - crate::now_ms() as f64) / 60_000.0)
                .round()
                .max(0.0);
            format!(" Try again in ~{mins} min.")
        })
        .unwrap_or_default();
    format!("{status} You have hit your ChatGPT usage limit{plan}.{when}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::Engine;

    fn token(account: &str) -> String {
        let payload = json!({"https://api.openai.com/auth": {"chatgpt_account_id": account}});
        let b64 = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(payload.to_string());
        format!("h.{b64}.s")
    }

    fn model() -> Model {
        crate::catalog::builtin_model("openai-codex", "gpt-6.2-sol")
            .cloned()
            .expect("catalog model")
    }

    #[test]
    fn urls_end_in_codex_responses() {
        assert_eq!(
            url("https://chatgpt.com/backend-api"),
            "https://chatgpt.com/backend-api/codex/responses"
        );
        assert_eq!(url("http://h/codex/"), "http://h/codex/responses");
        assert_eq!(url("http://h/codex/responses"), "http://h/codex/responses");
    }

    #[test]
    fn requests_carry_the_account_and_codex_settings() {
        let context = Context {
            system_prompt: Some("be brief".into()),
            messages: vec![crate::Message::User(crate::UserMessage {
                content: crate::UserContent::Text("hi".into()),
                timestamp: 0,
            })],
            tools: vec![crate::Tool {
                name: "read".into(),
                description: "reads".into(),
                parameters: json!({"type": "object"}),
            }],
        };
        let options = StreamOptions {
            api_key: Some(token("acc-9")),
            max_tokens: Some(4),
            session_id: Some("sess-1".into()),
            ..Default::default()
        };
        let req = build_request(&model(), &context, &options).unwrap();
        assert_eq!(req.url, "https://chatgpt.com/backend-api/codex/responses");
        let header = |n: &str| {
            req.headers
                .iter()
                .rev()
                .find(|(k, _)| k.eq_ignore_ascii_case(n))
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(header("chatgpt-account-id"), Some("acc-9"));
        assert_eq!(header("session-id"), Some("sess-1"));
        assert_eq!(header("OpenAI-Beta"), Some("responses=experimental"));
        assert!(header("authorization").is_some_and(|a| a.starts_with("Bearer h.")));
        assert_eq!(req.body["store"], false);
        assert_eq!(req.body["max_output_tokens"], 16);
        assert_eq!(req.body["text"]["verbosity"], "low");
        assert_eq!(req.body["input"][0]["content"], "be brief");
        assert!(req.body["tools"][0].get("strict").is_none());
        let bad = StreamOptions {
            api_key: Some("sk-plain".into()),
            ..Default::default()
        };
        let err = build_request(&model(), &context, &bad).unwrap_err();
        assert_eq!(err.to_string(), "Failed to extract accountId from token");
    }

    #[test]
    fn usage_limits_are_said_in_words() {
        let body = r#"{"error":{"code":"usage_limit_reached","plan_type":"PLUS"}}"#;
        assert_eq!(
            error_message(429, body),
            "429 You have hit your ChatGPT usage limit (plus plan)."
        );
        assert_eq!(
            error_message(400, r#"{"error":{"message":"bad"}}"#),
            "400 bad"
        );
    }
}
