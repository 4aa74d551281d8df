//! Comparing JSON written by different programs: JavaScript has one number type, so pi writes
//! a whole-number cost as `0` where Rust's `f64` writes `0.0`. Both mean the same number.

use serde_json::Value;

/// `value` with every number turned into an `f64`, so `0` and `0.0` compare equal.
pub fn numbers_as_f64(value: &Value) -> Value {
    match value {
        Value::Number(n) => n
            .as_f64()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| value.clone(), Value::Number),
        Value::Array(items) => Value::Array(items.iter().map(numbers_as_f64).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.clone(), numbers_as_f64(v)))
                .collect(),
        ),
        other => other.clone(),
    }
}

/// The tool names an OpenAI Chat Completions request body offers (`tools[].function.name`),
/// in order; none when the body has no tools.
pub fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Asserts `a` and `b` are the same JSON, numbers compared by value.
#[track_caller]
pub fn assert_same_json(a: &Value, b: &Value, context: &str) {
    assert_eq!(numbers_as_f64(a), numbers_as_f64(b), "{context}");
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn integers_and_floats_of_one_value_compare_equal() {
        assert_same_json(&json!({"a": [0, 1.5]}), &json!({"a": [0.0, 1.5]}), "same");
        assert_ne!(
            numbers_as_f64(&json!({"a": 1})),
            numbers_as_f64(&json!({"a": 1.5}))
        );
    }
}
