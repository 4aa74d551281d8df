//! Tool-argument validation against the JSON-Schema subset tools use (`type`, `properties`,
//! `required`, `enum`, `const`, `items`, `minimum`/`maximum`, `minLength`/`maxLength`,
//! `additionalProperties`, `anyOf`), with pi's lenient coercion and error text
//! (interfaces spec §8): numeric strings become numbers, `"true"`/`"false"` booleans, `null`
//! the type's zero value, and each problem is reported as `  - <path>: <message>`.

use serde_json::{Map, Number, Value};

/// One validation problem: where (`root`, `path`, `edits/0/oldText`) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Issue {
    /// Slash-separated location; `root` for the top level.
    pub path: String,
    /// AJV-style message (`must be string`, `must have required property 'path'`).
    pub message: String,
}

/// Coerces `args` in place and validates them against `schema`. Returns every problem found.
pub fn validate(schema: &Value, args: &mut Value) -> Result<(), Vec<Issue>> {
    let mut issues = Vec::new();
    check(schema, args, "", &mut issues);
    if issues.is_empty() {
        Ok(())
    } else {
        Err(issues)
    }
}

/// The text the model receives for invalid arguments (pi's wording).
pub fn format_validation_error(tool_name: &str, issues: &[Issue], received: &Value) -> String {
    let lines: Vec<String> = issues
        .iter()
        .map(|i| format!("  - {}: {}", i.path, i.message))
        .collect();
    let pretty = serde_json::to_string_pretty(received).unwrap_or_else(|_| received.to_string());
    format!(
        "Validation failed for tool \"{tool_name}\":\n{}\n\nReceived arguments:\n{pretty}",
        lines.join("\n")
    )
}

fn issue(path: &str, message: String, issues: &mut Vec<Issue>) {
    let path = if path.is_empty() { "root" } else { path };
    issues.push(Issue {
        path: path.to_string(),
        message,
    });
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}/{key}")
    }
}

fn types_of(schema: &Value) -> Vec<&str> {
    match schema.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

fn check(schema: &Value, value: &mut Value, path: &str, issues: &mut Vec<Issue>) {
    let Some(obj) = schema.as_object() else {
        return;
    };
    if let Some(Value::Array(options)) = obj.get("anyOf") {
        check_any_of(options, value, path, issues);
    }
    let types = types_of(schema);
    if !types.is_empty() && !types.iter().any(|t| matches_type(t, value)) {
        match types.iter().find_map(|t| coerce(t, value)) {
            Some(coerced) => *value = coerced,
            None => {
                return issue(path, format!("must be {}", types.join(",")), issues);
            }
        }
    }
    if let Some(c) = obj.get("const") {
        if c != value {
            issue(path, "must be equal to constant".into(), issues);
        }
    }
    if let Some(Value::Array(allowed)) = obj.get("enum") {
        if !allowed.contains(value) {
            issue(
                path,
                "must be equal to one of the allowed values".into(),
                issues,
            );
        }
    }
    match value {
        Value::Number(n) => check_number(obj, n, path, issues),
        Value::String(s) => check_string(obj, s, path, issues),
        Value::Array(items) => {
            if let Some(item_schema) = obj.get("items") {
                for (i, item) in items.iter_mut().enumerate() {
                    check(item_schema, item, &join(path, &i.to_string()), issues);
                }
            }
        }
        Value::Object(map) => check_object(obj, map, path, issues),
        _ => {}
    }
}

fn check_any_of(options: &[Value], value: &mut Value, path: &str, issues: &mut Vec<Issue>) {
    for option in options {
        let mut candidate = value.clone();
        let mut scratch = Vec::new();
        check(option, &mut candidate, path, &mut scratch);
        if scratch.is_empty() {
            *value = candidate;
            return;
        }
    }
    issue(path, "must match a schema in anyOf".into(), issues);
}

fn check_object(
    schema: &Map<String, Value>,
    map: &mut Map<String, Value>,
    path: &str,
    issues: &mut Vec<Issue>,
) {
    let props = schema.get("properties").and_then(Value::as_object);
    if let Some(Value::Array(required)) = schema.get("required") {
        for key in required.iter().filter_map(Value::as_str) {
            if !map.contains_key(key) {
                let at = if path.is_empty() { key } else { path };
                issues.push(Issue {
                    path: at.to_string(),
                    message: format!("must have required property '{key}'"),
                });
            }
        }
    }
    if let Some(props) = props {
        for (key, sub) in props {
            if let Some(v) = map.get_mut(key) {
                check(sub, v, &join(path, key), issues);
            }
        }
    }
    match schema.get("additionalProperties") {
        Some(Value::Bool(false))
            if map
                .keys()
                .any(|k| !props.is_some_and(|p| p.contains_key(k))) =>
        {
            issue(path, "must NOT have additional properties".into(), issues);
        }
        Some(extra @ Value::Object(_)) => {
            for (key, v) in map.iter_mut() {
                if !props.is_some_and(|p| p.contains_key(key)) {
                    check(extra, v, &join(path, key), issues);
                }
            }
        }
        _ => {}
    }
}

fn check_number(schema: &Map<String, Value>, n: &Number, path: &str, issues: &mut Vec<Issue>) {
    let Some(x) = n.as_f64() else { return };
    if let Some(min) = schema.get("minimum").and_then(Value::as_f64) {
        if x < min {
            issue(path, format!("must be >= {}", schema["minimum"]), issues);
        }
    }
    if let Some(max) = schema.get("maximum").and_then(Value::as_f64) {
        if x > max {
            issue(path, format!("must be <= {}", schema["maximum"]), issues);
        }
    }
}

fn check_string(schema: &Map<String, Value>, s: &str, path: &str, issues: &mut Vec<Issue>) {
    let len = s.chars().count() as u64;
    if let Some(min) = schema.get("minLength").and_then(Value::as_u64) {
        if len < min {
            issue(
                path,
                format!("must NOT have fewer than {min} characters"),
                issues,
            );
        }
    }
    if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
        if len > max {
            issue(
                path,
                format!("must NOT have more than {max} characters"),
                issues,
            );
        }
    }
}

fn matches_type(t: &str, v: &Value) -> bool {
    match t {
        "string" => v.is_string(),
        "number" => v.is_number(),
        "integer" => v.as_f64().is_some_and(|x| x.fract() == 0.0),
        "boolean" => v.is_boolean(),
        "object" => v.is_object(),
        "array" => v.is_array(),
        "null" => v.is_null(),
        _ => true,
    }
}

/// The lenient coercions pi's validator applies; `None` when `v` cannot become a `t`.
fn coerce(t: &str, v: &Value) -> Option<Value> {
    match (t, v) {
        ("number" | "integer", Value::Null) => Some(Value::from(0)),
        ("number", Value::String(s)) => number_from(s),
        ("integer", Value::String(s)) => number_from(s).filter(|n| matches_type("integer", n)),
        ("number" | "integer", Value::Bool(b)) => Some(Value::from(u8::from(*b))),
        ("boolean", Value::String(s)) if s == "true" => Some(Value::Bool(true)),
        ("boolean", Value::String(s)) if s == "false" => Some(Value::Bool(false)),
        ("boolean", Value::Null) => Some(Value::Bool(false)),
        ("string", Value::Null) => Some(Value::String(String::new())),
        ("string", Value::Number(n)) => Some(Value::String(n.to_string())),
        ("string", Value::Bool(b)) => Some(Value::String(b.to_string())),
        _ => None,
    }
}

fn number_from(s: &str) -> Option<Value> {
    let t = s.trim();
    if t.is_empty() {
        return None;
    }
    if let Ok(i) = t.parse::<i64>() {
        return Some(Value::from(i));
    }
    t.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .and_then(Number::from_f64)
        .map(Value::Number)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn edit_schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "limit": {"type": "number", "minimum": 1, "maximum": 10},
                "mode": {"type": "string", "enum": ["a", "b"]},
                "flag": {"type": "boolean"},
                "edits": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"oldText": {"type": "string"}, "newText": {"type": "string"}},
                    "required": ["oldText", "newText"],
                    "additionalProperties": false
                }}
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }

    fn issues(args: Value) -> Vec<String> {
        let mut args = args;
        match validate(&edit_schema(), &mut args) {
            Ok(()) => Vec::new(),
            Err(v) => v
                .into_iter()
                .map(|i| format!("{}: {}", i.path, i.message))
                .collect(),
        }
    }

    #[test]
    fn valid_arguments_pass() {
        assert!(issues(
            json!({"path": "a", "limit": 3, "edits": [{"oldText": "x", "newText": "y"}]})
        )
        .is_empty());
    }

    #[test]
    fn missing_required_and_wrong_types_are_reported_with_paths() {
        assert_eq!(
            issues(json!({"limit": [], "edits": [{"oldText": 1}]})),
            vec![
                "path: must have required property 'path'",
                "limit: must be number",
                "edits/0: must have required property 'newText'",
            ]
        );
    }

    #[test]
    fn bounds_enum_and_additional_properties() {
        assert_eq!(
            issues(json!({"path": "p", "limit": 11, "mode": "c", "zzz": 1})),
            vec![
                "limit: must be <= 10",
                "mode: must be equal to one of the allowed values",
                "root: must NOT have additional properties",
            ]
        );
        assert_eq!(
            issues(json!({"path": "p", "limit": 0})),
            vec!["limit: must be >= 1"]
        );
    }

    #[test]
    fn lenient_coercion_rewrites_arguments() {
        let mut args = json!({"path": 7, "limit": "4", "flag": "true"});
        validate(&edit_schema(), &mut args).expect("coercible");
        assert_eq!(args, json!({"path": "7", "limit": 4, "flag": true}));
        let mut bad = json!({"path": "p", "limit": "four"});
        assert!(validate(&edit_schema(), &mut bad).is_err());
    }

    #[test]
    fn error_text_matches_pi() {
        let received = json!({"x": 1});
        let text = format_validation_error(
            "read",
            &[Issue {
                path: "path".into(),
                message: "must have required property 'path'".into(),
            }],
            &received,
        );
        assert_eq!(
            text,
            "Validation failed for tool \"read\":\n  - path: must have required property 'path'\n\nReceived arguments:\n{\n  \"x\": 1\n}"
        );
    }

    #[test]
    fn integer_and_any_of() {
        let schema = json!({"anyOf": [{"type": "integer"}, {"type": "string", "enum": ["all"]}]});
        let mut ok = json!("all");
        assert!(validate(&schema, &mut ok).is_ok());
        let mut n = json!(2.5);
        assert!(validate(&schema, &mut n).is_err());
    }
}
