use serde_json::json;

use super::*;

fn ns(name: &str, description: Option<&str>) -> Namespace {
    Namespace {
        name: name.into(),
        aliases: Vec::new(),
        description: description.map(str::to_string),
        instructions: None,
    }
}

fn tool<'a>(name: &'a str, namespace: Option<&'a Namespace>) -> Listed<'a> {
    Listed {
        name,
        description: "Does a thing.",
        parameters: json!({"type": "object", "properties": {"x": {"type": "string"}}, "required": ["x"]}),
        output_schema: None,
        namespace,
        guidelines: Vec::new(),
    }
}

#[test]
fn declared_tools_say_what_a_script_call_resolves_to() {
    let bash = json!({"type": "object", "properties": {
        "output": {"type": "string"}, "truncated": {"type": "boolean"},
        "full_output_path": {"type": "string"}, "exit_code": {"type": "number"},
        "wall_time_seconds": {"type": "number"}
    }, "required": ["output", "truncated", "exit_code", "wall_time_seconds"]});
    assert_eq!(
        script_note("bash", "Run it. ", Some(&bash)),
        "Run it.\n\nCodemode: `tools.bash(args)` resolves to `{ output, truncated, full_output_path?, exit_code, wall_time_seconds }`."
    );
    assert_eq!(
        script_note("mcp__a-b__c", "Read.", None),
        "Read.\n\nCodemode: `tools.mcp__a_b__c(args)` resolves to a string."
    );
    let nested = json!({"type": "object", "properties": {
        "kind": {"const": "start"},
        "meta": {"$ref": "#/$defs/Meta"}
    }, "$defs": {"Meta": {"type": "object", "properties": {"id": {"type": "string"}}, "required": ["id"]}}});
    assert_eq!(
        script_note("t", "T.", Some(&nested)),
        "T.\n\nCodemode: `tools.t(args)` resolves to `{ kind?: \"start\", meta?: { id } }`."
    );
    let union = json!({"anyOf": [
        {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]},
        {"type": "object", "properties": {"b": {"type": "number"}}}
    ]});
    assert_eq!(
        script_note("u", "U.", Some(&union)),
        "U.\n\nCodemode: `tools.u(args)` resolves to `{ a } | { b? }`."
    );
    assert_eq!(
        script_note(
            "n",
            "N.",
            Some(&json!({"type": "array", "items": {"type": "number"}}))
        ),
        "N.\n\nCodemode: `tools.n(args)` resolves to `Array<number>`."
    );
}

#[test]
fn without_listed_tools_the_description_is_the_plain_one() {
    assert_eq!(description(&[], DEFAULT_INLINE_BUDGET), DESCRIPTION);
}

#[test]
fn listed_tools_are_grouped_by_namespace_with_their_declarations() {
    let docs = ns("mcp__docs", Some("Project docs"));
    let mut read = tool("read", None);
    read.guidelines = vec!["Use read first.".into(), " ".into()];
    let listed = [tool("mcp__docs__search", Some(&docs)), read];
    let text = description(&listed, DEFAULT_INLINE_BUDGET);
    let tail = text
        .strip_prefix(DESCRIPTION)
        .expect("starts with the description");
    assert_eq!(
        tail,
        "\n\nNested tools:\n\n### `read`\nDoes a thing.\n\n- Use read first.\n\ncodemode tool declaration:\n```ts\ndeclare const tools: { read(args: { x: string; }): Promise<string>; };\n```\n\n## mcp__docs\nProject docs\n\n### `mcp__docs__search`\nDoes a thing.\n\ncodemode tool declaration:\n```ts\ndeclare const tools: { mcp__docs__search(args: { x: string; }): Promise<string>; };\n```"
    );
}

#[test]
fn the_budget_shows_every_namespace_before_any_is_complete() {
    let a = ns("mcp__a", None);
    let b = ns("mcp__b", None);
    let listed = [
        tool("mcp__a__one", Some(&a)),
        tool("mcp__a__two", Some(&a)),
        tool("mcp__b__one", Some(&b)),
    ];
    let cost = section(&listed[0]).len().div_ceil(CHARS_PER_TOKEN);
    // Room for two sections: one per namespace.
    let text = description(&listed, cost * 2 + 1);
    assert!(
        text.contains("## mcp__a (some tools not listed)\n\n### `mcp__a__one`"),
        "{text}"
    );
    assert!(!text.contains("### `mcp__a__two`"), "{text}");
    assert!(text.contains("## mcp__b\n\n### `mcp__b__one`"), "{text}");
    // Budget 0 lists only the namespaces.
    let text = description(&listed, 0);
    assert!(
        text.ends_with(
            "Nested tools:\n\n## mcp__a (tools not listed)\n\n## mcp__b (tools not listed)"
        ),
        "{text}"
    );
}
