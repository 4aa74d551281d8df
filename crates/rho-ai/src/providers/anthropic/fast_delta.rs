//! A fast path for the per-token event. Anthropic sends every `content_block_delta` in one
//! fixed compact shape:
//! `{"type":"content_block_delta","index":N,"delta":{"type":"K","F":"V"}}`.
//! Recognising that shape directly is several times cheaper than a general JSON decode, and
//! a token stream is mostly these events. Anything that deviates in the least (whitespace,
//! key order, extra fields) returns `None`, and the caller decodes it with serde instead, so
//! this never changes what is accepted, only how fast.

use std::borrow::Cow;

const PREFIX: &str = "{\"type\":\"content_block_delta\",\"index\":";
const DELTA: &str = ",\"delta\":{\"type\":\"";

/// A recognised delta: the block index, the delta type and the value of its one field.
#[derive(Debug, PartialEq)]
pub(super) struct FastDelta<'a> {
    /// Anthropic block index.
    pub index: u64,
    /// `text_delta`, `thinking_delta`, `input_json_delta` or `signature_delta`.
    pub kind: &'a str,
    /// The field's string value, unescaped.
    pub value: Cow<'a, str>,
}

/// Recognises the canonical compact shape; `None` for anything else.
pub(super) fn parse(data: &str) -> Option<FastDelta<'_>> {
    let rest = data.strip_prefix(PREFIX)?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let index = rest.get(..digits)?.parse().ok()?;
    let rest = rest[digits..].strip_prefix(DELTA)?;
    let (kind, rest) = rest.split_once('"')?;
    let field = match kind {
        "text_delta" => ",\"text\":",
        "thinking_delta" => ",\"thinking\":",
        "input_json_delta" => ",\"partial_json\":",
        "signature_delta" => ",\"signature\":",
        _ => return None,
    };
    let literal = rest.strip_prefix(field)?;
    let len = string_literal_len(literal)?;
    if &literal[len..] != "}}" {
        return None;
    }
    let quoted = &literal[..len];
    let inner = &quoted[1..len - 1];
    let value = if inner.contains('\\') {
        Cow::Owned(serde_json::from_str::<String>(quoted).ok()?)
    } else {
        Cow::Borrowed(inner)
    };
    Some(FastDelta { index, kind, value })
}

/// Length in bytes of the JSON string literal at the start of `s`, quotes included.
fn string_literal_len(s: &str) -> Option<usize> {
    let bytes = s.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    let mut i = 1;
    loop {
        match bytes.get(i)? {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_each_delta_kind() {
        let d = parse(r#"{"type":"content_block_delta","index":12,"delta":{"type":"text_delta","text":"Hello! "}}"#)
            .expect("canonical");
        assert_eq!(
            d,
            FastDelta {
                index: 12,
                kind: "text_delta",
                value: Cow::Borrowed("Hello! ")
            }
        );
        assert!(matches!(d.value, Cow::Borrowed(_)));
        let j = parse(r#"{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}"#)
            .expect("canonical");
        assert_eq!((j.kind, j.value.as_ref()), ("input_json_delta", ""));
        let s = parse(r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"c2ln"}}"#)
            .expect("canonical");
        assert_eq!((s.kind, s.value.as_ref()), ("signature_delta", "c2ln"));
    }

    #[test]
    fn unescapes_like_serde() {
        let data = r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"a \"q\" \\ \n \u00e9 \ud83d\ude00"}}"#;
        let d = parse(data).expect("canonical");
        assert_eq!(d.value, "a \"q\" \\ \n é 😀");
        let data = r#"{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"src/ma"}}"#;
        assert_eq!(parse(data).expect("canonical").value, "{\"path\": \"src/ma");
    }

    #[test]
    fn anything_else_falls_back() {
        for data in [
            r#"{"type": "content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"index":0,"type":"content_block_delta","delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x","extra":1}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","thinking":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{}}}"#,
            r#"{"type":"content_block_delta","index":,"delta":{"type":"text_delta","text":"x"}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x\"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"\x"}}"#,
        ] {
            assert_eq!(parse(data), None, "{data}");
        }
    }
}
