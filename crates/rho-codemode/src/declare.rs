//! Tools as scripts see them: the script identifier of a tool name, and a TypeScript declaration
//! rendered from the tool's JSON Schemas (what `describeTool()` and `ALL_TOOLS` give, and the
//! `codemode` description lists). Property descriptions become `//` comments; constraints the
//! type cannot say (`@integer`, `@minimum`, `@default`) follow as tags.

use serde_json::Value;

/// The identifier a script uses for a tool: characters not valid in a JavaScript identifier
/// become `_` (`mcp__dev-radius__search` is `mcp__dev_radius__search`).
pub fn identifier(name: &str) -> String {
    let id: String = name
        .chars()
        .enumerate()
        .map(|(i, c)| {
            let valid =
                c.is_ascii_alphabetic() || c == '_' || c == '$' || (i > 0 && c.is_ascii_digit());
            if valid {
                c
            } else {
                '_'
            }
        })
        .collect();
    if id.is_empty() {
        "_".into()
    } else {
        id
    }
}

/// A tool's description followed by its declaration.
pub fn sample(name: &str, description: &str, input: &Value, output: Option<&Value>) -> String {
    let output = output.map_or_else(|| "string".to_string(), |o| ts_type(o, o, 0));
    format!(
        "{}\n\ncodemode tool declaration:\n```ts\ndeclare const tools: {{ {}(args: {}): Promise<{output}>; }};\n```",
        description.trim(),
        identifier(name),
        ts_type(input, input, 0)
    )
}

/// The TypeScript type of `schema`; local `$ref`s resolve against `root` (one level).
pub fn ts_type(schema: &Value, root: &Value, depth: usize) -> String {
    if depth > 8 {
        return "unknown".into();
    }
    let Some(obj) = schema.as_object() else {
        return if schema == &Value::Bool(false) {
            "never"
        } else {
            "unknown"
        }
        .into();
    };
    if let Some(target) = obj
        .get("$ref")
        .and_then(Value::as_str)
        .and_then(|r| r.strip_prefix('#'))
        .and_then(|pointer| root.pointer(pointer))
    {
        return ts_type(target, root, depth + 1);
    }
    if let Some(c) = obj.get("const") {
        return c.to_string();
    }
    if let Some(values) = obj.get("enum").and_then(Value::as_array) {
        return values
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join(" | ");
    }
    if let Some(variants) = obj
        .get("anyOf")
        .or(obj.get("oneOf"))
        .and_then(Value::as_array)
    {
        let parts: Vec<String> = variants
            .iter()
            .map(|v| ts_type(v, root, depth + 1))
            .collect();
        return parts.join(" | ");
    }
    match obj.get("type") {
        Some(Value::Array(types)) => types
            .iter()
            .map(|t| {
                let mut single = obj.clone();
                single.insert("type".into(), t.clone());
                ts_type(&Value::Object(single), root, depth + 1)
            })
            .collect::<Vec<_>>()
            .join(" | "),
        Some(Value::String(t)) => match t.as_str() {
            "string" => "string".into(),
            "number" | "integer" => "number".into(),
            "boolean" => "boolean".into(),
            "null" => "null".into(),
            "array" => match obj.get("items") {
                Some(items) => format!("Array<{}>", ts_type(items, root, depth + 1)),
                None => "unknown[]".into(),
            },
            _ => object_type(obj, root, depth),
        },
        _ if obj.contains_key("properties") => object_type(obj, root, depth),
        _ => "unknown".into(),
    }
}

/// pi's object rendering: properties sorted by name, on one line unless one has a comment;
/// nested members are indented under their parent.
fn object_type(obj: &serde_json::Map<String, Value>, root: &Value, depth: usize) -> String {
    let empty = serde_json::Map::new();
    let props = obj
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let required: Vec<&str> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let mut names: Vec<&String> = props.keys().collect();
    names.sort();
    let mut members: Vec<String> = names
        .iter()
        .map(|name| {
            let key = if identifier(name) == **name {
                name.to_string()
            } else {
                Value::String(name.to_string()).to_string()
            };
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!(
                "{key}{optional}: {};",
                ts_type(&props[*name], root, depth + 1)
            )
        })
        .collect();
    match obj.get("additionalProperties") {
        Some(Value::Bool(false)) => {}
        Some(Value::Bool(true)) => members.push("[key: string]: unknown;".into()),
        Some(other) => members.push(format!(
            "[key: string]: {};",
            ts_type(other, root, depth + 1)
        )),
        None if names.is_empty() => members.push("[key: string]: unknown;".into()),
        None => {}
    }
    if members.is_empty() {
        return "{}".into();
    }
    let comments: Vec<Vec<String>> = names.iter().map(|n| notes(&props[*n])).collect();
    if comments.iter().all(Vec::is_empty) {
        return format!("{{ {} }}", members.join(" "));
    }
    let mut lines = vec!["{".to_string()];
    for (i, member) in members.iter().enumerate() {
        for line in comments.get(i).into_iter().flatten() {
            lines.push(format!("  // {line}"));
        }
        lines.push(format!("  {}", member.replace('\n', "\n  ")));
    }
    lines.push("}".into());
    lines.join("\n")
}

/// A property's description lines and the constraints its type does not show.
fn notes(prop: &Value) -> Vec<String> {
    let mut lines: Vec<String> = prop
        .get("description")
        .and_then(Value::as_str)
        .map(|d| {
            d.lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let mut tags = Vec::new();
    if prop.get("type").and_then(Value::as_str) == Some("integer") {
        tags.push("@integer".to_string());
    }
    for key in [
        "minimum",
        "maximum",
        "minLength",
        "maxLength",
        "pattern",
        "default",
    ] {
        if let Some(v) = prop.get(key) {
            tags.push(format!("@{key} {v}"));
        }
    }
    if !tags.is_empty() {
        lines.push(tags.join(" "));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn identifiers_replace_invalid_characters() {
        assert_eq!(
            identifier("mcp__dev-radius__search"),
            "mcp__dev_radius__search"
        );
        assert_eq!(identifier("9lives"), "_lives");
        assert_eq!(identifier(""), "_");
    }

    /// The expected texts are what pi 1.6's `renderToolSample` gives for the same schemas.
    #[test]
    fn declarations_show_arguments_comments_and_results() {
        let input = json!({"type": "object", "properties": {
            "message": {"type": "string", "description": "Message to echo"},
            "n": {"type": "integer", "minimum": 1, "default": 3},
            "mode": {"enum": ["a", "b"]},
            "tags": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "object", "properties": {"deep": {"type": "string", "description": "line one\nline two"}}}
        }, "required": ["message"]});
        assert_eq!(
            sample("mcp__s__echo", "Echoes back", &input, None),
            "Echoes back\n\ncodemode tool declaration:\n```ts\ndeclare const tools: { mcp__s__echo(args: {\n  // Message to echo\n  message: string;\n  mode?: \"a\" | \"b\";\n  // @integer @minimum 1 @default 3\n  n?: number;\n  opts?: {\n    // line one\n    // line two\n    deep?: string;\n  };\n  tags?: Array<string>;\n}): Promise<string>; };\n```"
        );
        let output = json!({"type": "object", "properties": {"content": {"type": "array"}, "isError": {"type": "boolean"}}, "required": ["content"]});
        assert_eq!(
            sample("x", "X", &json!({"type": "object", "properties": {}}), Some(&output)),
            "X\n\ncodemode tool declaration:\n```ts\ndeclare const tools: { x(args: { [key: string]: unknown; }): Promise<{ content: unknown[]; isError?: boolean; }>; };\n```"
        );
    }
}
