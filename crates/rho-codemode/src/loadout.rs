//! How the `codemode` tool presents the other tools while it is active (pi 1.6's
//! `prepareLoadout`, settings `codemode.mode` and `codemode.inlineBudget`):
//! - `on` (default): each declared tool's description gains a note on how scripts call it and
//!   what the call resolves to; the codemode description lists the callable tools that are not
//!   declared (none in rho: those are MCP tools with `codemode`/`deferred` exposure, which are
//!   never listed, so the description stays the same while servers connect).
//! - `only`: the declared tools are hidden from the model and listed in the codemode
//!   description instead, with their TypeScript declarations grouped by namespace, within
//!   `inlineBudget` estimated tokens (characters / 4).

use serde_json::Value;

use crate::declare::{identifier, sample, ts_type};
use crate::tool::{Namespace, DESCRIPTION};

/// pi's default `codemode.inlineBudget`, in estimated tokens.
pub const DEFAULT_INLINE_BUDGET: usize = 3000;
const CHARS_PER_TOKEN: usize = 4;

/// `codemode.mode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    #[default]
    On,
    Only,
}

/// The settings that shape the presentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Presentation {
    pub mode: Mode,
    pub inline_budget: usize,
}

impl Default for Presentation {
    fn default() -> Self {
        Presentation {
            mode: Mode::On,
            inline_budget: DEFAULT_INLINE_BUDGET,
        }
    }
}

/// A tool the codemode description may list.
pub struct Listed<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub parameters: Value,
    pub output_schema: Option<&'a Value>,
    pub namespace: Option<&'a Namespace>,
    /// Its prompt guidelines: the system prompt only has them for declared tools.
    pub guidelines: Vec<String>,
}

/// A tool's description followed by its prompt guidelines as bullets.
pub fn with_guidelines(description: &str, guidelines: &[String]) -> String {
    let bullets: Vec<String> = guidelines
        .iter()
        .map(|g| g.trim())
        .filter(|g| !g.is_empty())
        .map(|g| format!("- {g}"))
        .collect();
    if bullets.is_empty() {
        description.to_string()
    } else {
        format!("{}\n\n{}", description.trim(), bullets.join("\n"))
    }
}

struct Entry {
    name: String,
    section: String,
    cost: usize,
}

struct Group<'a> {
    namespace: Option<&'a Namespace>,
    entries: Vec<Entry>,
}

/// `### \`id\` (\`raw name\`)` and the tool's description and declaration.
fn section(tool: &Listed<'_>) -> String {
    let id = identifier(tool.name);
    let heading = if id == tool.name {
        format!("### `{id}`")
    } else {
        format!("### `{id}` (`{}`)", tool.name)
    };
    let description = with_guidelines(tool.description, &tool.guidelines);
    let body = sample(
        tool.name,
        &description,
        &tool.parameters,
        tool.output_schema,
    );
    format!("{heading}\n{}", body.trim())
}

/// The codemode description listing `listed` within `budget` estimated tokens.
pub fn description(listed: &[Listed<'_>], budget: usize) -> String {
    if listed.is_empty() {
        return DESCRIPTION.to_string();
    }
    let mut groups: Vec<Group<'_>> = vec![Group {
        namespace: None,
        entries: Vec::new(),
    }];
    for tool in listed {
        let s = section(tool);
        let entry = Entry {
            name: tool.name.to_string(),
            cost: s.encode_utf16().count().div_ceil(CHARS_PER_TOKEN),
            section: s,
        };
        let key = tool.namespace.map(|n| n.name.as_str());
        match groups
            .iter_mut()
            .find(|g| g.namespace.map(|n| n.name.as_str()) == key)
        {
            Some(g) => g.entries.push(entry),
            None => groups.push(Group {
                namespace: tool.namespace,
                entries: vec![entry],
            }),
        }
    }
    groups[1..].sort_by(|a, b| {
        let name = |g: &Group<'_>| g.namespace.map(|n| n.name.clone());
        name(a).cmp(&name(b))
    });
    let shown = select(&groups, budget);
    let mut parts = vec!["Nested tools:".to_string()];
    for g in &groups {
        let visible: Vec<&Entry> = g
            .entries
            .iter()
            .filter(|e| shown.contains(&e.name))
            .collect();
        if let Some(ns) = g.namespace {
            let listing = if visible.len() == g.entries.len() {
                ""
            } else if visible.is_empty() {
                " (tools not listed)"
            } else {
                " (some tools not listed)"
            };
            let about = ns
                .description
                .as_deref()
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(|d| format!("\n{d}"))
                .unwrap_or_default();
            parts.push(format!("## {}{listing}{about}", ns.name));
        }
        parts.extend(visible.iter().map(|e| e.section.clone()));
    }
    format!("{DESCRIPTION}\n\n{}", parts.join("\n\n"))
}

/// The tools whose sections fit `budget`: in each round every group (tools without a
/// namespace first, then namespaces by name) places its cheapest remaining tool; a group whose
/// next tool does not fit drops out while the others go on, so every namespace shows before
/// any is complete.
fn select(groups: &[Group<'_>], budget: usize) -> Vec<String> {
    let mut queues: Vec<Vec<&Entry>> = groups
        .iter()
        .map(|g| {
            // Cheapest last (ties in listing order), so `pop` takes the next one.
            let mut q: Vec<&Entry> = g.entries.iter().collect();
            q.sort_by_key(|e| e.cost);
            q.reverse();
            q
        })
        .filter(|q| !q.is_empty())
        .collect();
    let mut shown = Vec::new();
    let mut remaining = budget;
    while !queues.is_empty() {
        queues.retain_mut(|q| {
            let Some(next) = q.last() else { return false };
            if next.cost > remaining {
                return false;
            }
            remaining -= next.cost;
            shown.push(next.name.clone());
            q.pop();
            !q.is_empty()
        });
    }
    shown
}

/// The note a declared tool's description gains in `on` mode: how scripts call it and what
/// the call resolves to.
pub fn script_note(name: &str, description: &str, output_schema: Option<&Value>) -> String {
    format!(
        "{}\n\nCodemode: `tools.{}(args)` resolves to {}.",
        description.trim(),
        identifier(name),
        describe_output(name, output_schema)
    )
}

/// What a call resolves to, in one line: `a string`, an object's field names, the type when it
/// fits a line, or a pointer to `describeTool()`.
fn describe_output(name: &str, schema: Option<&Value>) -> String {
    let Some(schema) = schema else {
        return "a string".into();
    };
    let ty = ts_type(schema, schema, 0);
    if ty == "string" {
        return "a string".into();
    }
    if let Some(fields) = fields(schema, schema, 1).or_else(|| union_fields(schema, schema)) {
        return format!("`{fields}`");
    }
    if !ty.contains('\n') {
        return format!("`{ty}`");
    }
    format!(
        "a value; `await describeTool({})` shows its type",
        Value::String(name.into())
    )
}

/// The subschema a local `$ref` chain names, or `schema` itself.
fn follow<'a>(schema: &'a Value, root: &'a Value) -> &'a Value {
    let mut current = schema;
    for _ in 0..16 {
        let Some(target) = current
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix('#'))
            .and_then(|p| root.pointer(p))
        else {
            break;
        };
        current = target;
    }
    current
}

/// `{ output, exit_code, full_output_path? }`, with the fields of object fields `depth`
/// levels deep and the value of `const` fields.
fn fields(schema: &Value, root: &Value, depth: usize) -> Option<String> {
    let s = follow(schema, root);
    if s.get("type").and_then(Value::as_str) != Some("object") {
        return None;
    }
    let props = s.get("properties")?.as_object()?;
    let required: Vec<&str> = s
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let list: Vec<String> = props
        .iter()
        .map(|(name, field)| {
            let optional = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            let nested = match follow(field, root).get("const") {
                Some(c) => Some(c.to_string()),
                None if depth > 0 => fields(field, root, depth - 1),
                None => None,
            };
            match nested {
                Some(n) => format!("{name}{optional}: {n}"),
                None => format!("{name}{optional}"),
            }
        })
        .collect();
    Some(format!("{{ {} }}", list.join(", ")))
}

/// The field names of each object variant of an `anyOf`/`oneOf`, joined by `|`.
fn union_fields(schema: &Value, root: &Value) -> Option<String> {
    let s = follow(schema, root);
    let variants = s.get("anyOf").or(s.get("oneOf"))?.as_array()?;
    if variants.is_empty() {
        return None;
    }
    let described: Option<Vec<String>> = variants.iter().map(|v| fields(v, root, 0)).collect();
    described.map(|d| d.join(" | "))
}

#[cfg(test)]
mod tests;
