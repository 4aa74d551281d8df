//! OpenRouter's personal catalog (pi 1.6's `personalizeOpenRouterCatalog`): the chat models
//! the key may use, with the key's context sizes, output limits and prices, from OpenRouter's
//! OpenAI-style model list `GET <baseUrl>/models/user` (`{"data": [{"id", "context_length",
//! "top_provider", "pricing"}, ...]}`). Image and classifier models pass unchanged.

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Map, Value};

use super::refresh::{read_json, Target};

/// pi's limit for the model list request.
const TIMEOUT: Duration = Duration::from_secs(15);

/// Why OpenRouter's model list could not narrow the catalog, in pi's words.
#[derive(Debug, thiserror::Error)]
pub enum PersonalError {
    /// The request did not complete.
    #[error("OpenRouter model list request failed: {0}")]
    Request(#[source] reqwest::Error),
    /// OpenRouter answered with a failure status.
    #[error("OpenRouter model list request failed: {0}")]
    Status(u16),
    /// The answer is not `{"data": [...]}`.
    #[error("Invalid OpenRouter model list response")]
    Invalid,
}

/// `catalog` (pi model JSON) narrowed to what `target`'s key may use; unchanged without a
/// key, or when the endpoint rejects the key or does not exist (a proxy as base URL).
pub async fn personalize(
    catalog: Vec<Value>,
    target: &Target,
) -> Result<Vec<Value>, PersonalError> {
    let Some(key) = target.key.as_deref().filter(|k| !k.is_empty()) else {
        return Ok(catalog);
    };
    let url = format!("{}/models/user", target.base_url.trim_end_matches('/'));
    let response = crate::http::client()
        .get(&url)
        .header("accept", "application/json")
        .header("authorization", format!("Bearer {key}"))
        .timeout(TIMEOUT)
        .send()
        .await
        .map_err(PersonalError::Request)?;
    match response.status().as_u16() {
        401 | 403 | 404 => return Ok(catalog),
        s if !(200..300).contains(&s) => return Err(PersonalError::Status(s)),
        _ => {}
    }
    let body = read_json(response)
        .await
        .map_err(|_| PersonalError::Invalid)?;
    let data = body
        .get("data")
        .and_then(Value::as_array)
        .ok_or(PersonalError::Invalid)?;
    let allowed: HashMap<&str, &Value> = data
        .iter()
        .filter_map(|e| Some((e.get("id")?.as_str()?, e)))
        .collect();
    Ok(catalog
        .into_iter()
        .filter_map(|model| {
            let chat = model.get("type").and_then(Value::as_str).unwrap_or("chat") == "chat";
            if !chat {
                return Some(model);
            }
            let id = model.get("id").and_then(Value::as_str)?;
            let entry = *allowed.get(id)?;
            Some(limited(model, entry))
        })
        .collect())
}

/// `model` with the key's limits and prices from its `/models/user` entry; a missing limit
/// (absent, null or 0) keeps the catalog's.
fn limited(mut model: Value, entry: &Value) -> Value {
    let positive = |v: Option<&Value>| v.and_then(Value::as_f64).filter(|n| *n > 0.0);
    let top = entry.get("top_provider");
    let context = positive(top.and_then(|t| t.get("context_length")))
        .or_else(|| positive(entry.get("context_length")));
    let max_tokens = positive(top.and_then(|t| t.get("max_completion_tokens")));
    if let Some(obj) = model.as_object_mut() {
        if let Some(n) = context {
            obj.insert("contextWindow".into(), json!(n as u64));
        }
        if let Some(n) = max_tokens {
            obj.insert("maxTokens".into(), json!(n as u64));
        }
        if let Some(pricing) = entry.get("pricing").filter(|p| !p.is_null()) {
            obj.insert("cost".into(), cost(pricing));
        }
    }
    model
}

/// OpenRouter's $/token prices as pi's $/1M: missing, invalid and negative base prices are 0;
/// prompt-length overrides become tiers (time-of-day ones are skipped, as in pi).
fn cost(pricing: &Value) -> Value {
    let rate = |v: Option<&Value>, fallback: f64| per_million(v).unwrap_or(fallback);
    let base = [
        rate(pricing.get("prompt"), 0.0),
        rate(pricing.get("completion"), 0.0),
        rate(pricing.get("input_cache_read"), 0.0),
        rate(pricing.get("input_cache_write"), 0.0),
    ];
    let mut cost = rates(base);
    let tiers: Vec<Value> = pricing
        .get("overrides")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|o| {
            ["utc_start", "utc_end", "utc_days"]
                .iter()
                .all(|k| o.get(k).is_none())
        })
        .filter_map(|o| {
            let above = o.get("min_prompt_tokens")?.as_u64()?;
            let mut tier = rates([
                rate(o.get("prompt"), base[0]),
                rate(o.get("completion"), base[1]),
                rate(o.get("input_cache_read"), base[2]),
                rate(o.get("input_cache_write"), base[3]),
            ]);
            tier.insert("inputTokensAbove".into(), json!(above));
            Some(Value::Object(tier))
        })
        .collect();
    if !tiers.is_empty() {
        cost.insert("tiers".into(), Value::Array(tiers));
    }
    Value::Object(cost)
}

fn rates([input, output, cache_read, cache_write]: [f64; 4]) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("input".into(), json!(input));
    map.insert("output".into(), json!(output));
    map.insert("cacheRead".into(), json!(cache_read));
    map.insert("cacheWrite".into(), json!(cache_write));
    map
}

/// One $/token price (a string or a number) as $/1M, rounded to six decimals as pi does;
/// `None` when missing, invalid or negative (OpenRouter's -1 for router models).
fn per_million(value: Option<&Value>) -> Option<f64> {
    let per_token = match value? {
        Value::String(s) => s.trim().parse::<f64>().ok()?,
        Value::Number(n) => n.as_f64()?,
        _ => return None,
    };
    (per_token >= 0.0).then(|| (per_token * 1_000_000.0 * 1e6).round() / 1e6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prices_limits_and_tiers_as_pi_reads_them() {
        let model = json!({"id": "a/b", "contextWindow": 1000, "maxTokens": 10,
                           "cost": {"input": 9, "output": 9, "cacheRead": 9, "cacheWrite": 9}});
        let entry = json!({"id": "a/b", "context_length": 4000,
            "top_provider": {"context_length": null, "max_completion_tokens": 0},
            "pricing": {"prompt": "0.000003", "completion": "0.000015", "input_cache_read": "-1",
                "overrides": [{"min_prompt_tokens": 200000, "prompt": "0.000006"},
                              {"min_prompt_tokens": 1, "prompt": "1", "utc_start": "22:00"}]}});
        let out = limited(model, &entry);
        assert_eq!(out["contextWindow"], 4000);
        assert_eq!(out["maxTokens"], 10, "0 keeps the catalog's");
        assert_eq!(
            out["cost"],
            json!({"input": 3.0, "output": 15.0, "cacheRead": 0.0, "cacheWrite": 0.0,
                   "tiers": [{"input": 6.0, "output": 15.0, "cacheRead": 0.0, "cacheWrite": 0.0,
                              "inputTokensAbove": 200000}]})
        );
        assert_eq!(per_million(Some(&json!(0.0000001))), Some(0.1));
        assert_eq!(per_million(Some(&json!("x"))), None);
    }
}
