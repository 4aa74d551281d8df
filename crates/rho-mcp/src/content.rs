//! MCP results as model content: text and images pass through, embedded text resources become
//! text, image resources images, other binaries a temp file whose path the model gets,
//! resource links name `read_mcp_resource`; a result without content becomes its
//! `structuredContent` as JSON. Works on the wire JSON so every protocol version maps the same.

use base64::Engine as _;
use rho_ai::{ContentBlock, ImageContent};
use serde_json::Value;

use crate::limit::save_temp;

/// Model content of one server's content blocks.
pub fn to_model_content(server: &str, blocks: &[Value]) -> Vec<ContentBlock> {
    blocks.iter().map(|b| block(server, b)).collect()
}

/// Model content of a `CallToolResult` (as JSON).
pub fn result_content(server: &str, tool: &str, result: &Value) -> Vec<ContentBlock> {
    let blocks = result
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let mut out = to_model_content(server, &blocks);
    if out.is_empty() {
        if let Some(s) = result.get("structuredContent") {
            out.push(ContentBlock::text(
                serde_json::to_string_pretty(s).unwrap_or_default(),
            ));
        }
    }
    let is_error = result.get("isError").and_then(Value::as_bool) == Some(true);
    if is_error
        && !out
            .iter()
            .any(|b| matches!(b, ContentBlock::Text(t) if !t.text.is_empty()))
    {
        out.push(ContentBlock::text(format!(
            "MCP tool {server}/{tool} returned an error"
        )));
    }
    out
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn block(server: &str, b: &Value) -> ContentBlock {
    match str_of(b, "type") {
        Some("text") => ContentBlock::text(str_of(b, "text").unwrap_or_default()),
        Some("image") => image(b),
        Some("audio") => ContentBlock::text(format!(
            "[audio {} omitted]",
            str_of(b, "mimeType").unwrap_or_default()
        )),
        Some("resource_link") => {
            let uri = str_of(b, "uri").unwrap_or_default();
            let title = str_of(b, "title").or(str_of(b, "name")).unwrap_or_default();
            let mut details: Vec<String> = str_of(b, "mimeType")
                .into_iter()
                .map(str::to_string)
                .collect();
            if let Some(size) = b.get("size").and_then(Value::as_u64) {
                details.push(format!("{size} bytes"));
            }
            let details = if details.is_empty() {
                String::new()
            } else {
                format!(" ({})", details.join(", "))
            };
            let description = str_of(b, "description")
                .map(|d| format!(": {d}"))
                .unwrap_or_default();
            ContentBlock::text(format!(
                "[Resource {uri} \"{title}\"{details}{description}. Read it with read_mcp_resource (server \"{server}\")]"
            ))
        }
        Some("resource") => resource_contents(b.get("resource").unwrap_or(&Value::Null)),
        other => ContentBlock::text(format!(
            "[unsupported MCP content {}]",
            other.unwrap_or("?")
        )),
    }
}

fn image(b: &Value) -> ContentBlock {
    ContentBlock::Image(ImageContent {
        data: str_of(b, "data").unwrap_or_default().to_string(),
        mime_type: str_of(b, "mimeType").unwrap_or("image/png").to_string(),
    })
}

/// One `TextResourceContents` or `BlobResourceContents`.
pub fn resource_contents(r: &Value) -> ContentBlock {
    if let Some(text) = str_of(r, "text") {
        return ContentBlock::text(text);
    }
    let uri = str_of(r, "uri").unwrap_or_default();
    let mime = str_of(r, "mimeType");
    let blob = str_of(r, "blob").unwrap_or_default();
    if mime.is_some_and(|m| m.starts_with("image/")) {
        return ContentBlock::Image(ImageContent {
            data: blob.to_string(),
            mime_type: mime.unwrap_or_default().to_string(),
        });
    }
    let Ok(data) = base64::engine::general_purpose::STANDARD.decode(blob) else {
        return ContentBlock::text(format!("[Binary resource {uri} could not be decoded]"));
    };
    if mime.is_some_and(is_text_mime) {
        return ContentBlock::text(String::from_utf8_lossy(&data));
    }
    let kind = format!("{}, {} bytes", mime.unwrap_or("unknown type"), data.len());
    match save_temp(&data, extension_of(uri)) {
        Ok(path) => ContentBlock::text(format!(
            "[Binary resource {uri} ({kind}) saved to {}]",
            path.display()
        )),
        Err(e) => ContentBlock::text(format!(
            "[Binary resource {uri} ({kind}) could not be saved: {e}]"
        )),
    }
}

fn is_text_mime(mime: &str) -> bool {
    let t = mime
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_ascii_lowercase();
    t.starts_with("text/") || t == "application/json" || t.ends_with("+json") || t.ends_with("+xml")
}

fn extension_of(uri: &str) -> &str {
    let path = uri.split(['?', '#']).next().unwrap_or_default();
    match path.rfind('.') {
        Some(i)
            if path.len() - i <= 9
                && path[i + 1..].chars().all(|c| c.is_ascii_alphanumeric())
                && !path[i..].contains('/') =>
        {
            &path[i..]
        }
        _ => ".bin",
    }
}
