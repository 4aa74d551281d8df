//! Lenient parsing of tool-call argument JSON while it streams (providers spec §3.0).
//!
//! Order: strict parse; repair (escape raw control characters and lone backslashes inside
//! strings) then strict; lenient parse of the incomplete prefix; lenient parse of the
//! repaired text; otherwise `{}`. The result is always a JSON object.

use serde_json::{Map, Value};

/// Parses possibly incomplete or slightly broken JSON into an object (never fails).
pub fn parse_partial_json(text: &str) -> Value {
    if text.trim().is_empty() {
        return empty();
    }
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return object_or_empty(v);
    }
    let repaired = repair_json(text);
    if let Ok(v) = serde_json::from_str::<Value>(&repaired) {
        return object_or_empty(v);
    }
    if let Some(v) = Lenient::parse(text) {
        return object_or_empty(v);
    }
    if let Some(v) = Lenient::parse(&repaired) {
        return object_or_empty(v);
    }
    empty()
}

fn empty() -> Value {
    Value::Object(Map::new())
}

fn object_or_empty(v: Value) -> Value {
    if v.is_object() {
        v
    } else {
        empty()
    }
}

/// Escapes raw control characters inside string literals and doubles backslashes that do not
/// start a valid escape.
pub fn repair_json(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut in_string = false;
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if !in_string {
            if c == '"' {
                in_string = true;
            }
            out.push(c);
            i += 1;
            continue;
        }
        match c {
            '"' => {
                in_string = false;
                out.push(c);
            }
            '\\' => {
                let next = chars.get(i + 1).copied();
                let valid = match next {
                    Some('"' | '\\' | '/' | 'b' | 'f' | 'n' | 'r' | 't') => true,
                    Some('u') => {
                        chars.len() >= i + 6
                            && chars[i + 2..i + 6].iter().all(|h| h.is_ascii_hexdigit())
                    }
                    _ => false,
                };
                if valid {
                    out.push('\\');
                    out.push(next.unwrap_or_default());
                    i += 2;
                    continue;
                }
                out.push_str("\\\\");
            }
            '\u{08}' => out.push_str("\\b"),
            '\u{0c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
        i += 1;
    }
    out
}

/// A recursive-descent parser that accepts a truncated prefix: open strings, arrays and
/// objects are closed, partial literals completed, partial numbers kept, dangling keys dropped.
struct Lenient<'a> {
    b: &'a [u8],
    i: usize,
}

/// Why a value could not be produced.
enum Fail {
    /// Input ended before anything usable.
    Eof,
    /// Not JSON.
    Invalid,
}

impl<'a> Lenient<'a> {
    fn parse(text: &'a str) -> Option<Value> {
        let mut p = Lenient {
            b: text.as_bytes(),
            i: 0,
        };
        p.value().ok()
    }

    fn at_end(&self) -> bool {
        self.i >= self.b.len()
    }

    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn value(&mut self) -> Result<Value, Fail> {
        self.ws();
        let Some(&c) = self.b.get(self.i) else {
            return Err(Fail::Eof);
        };
        match c {
            b'{' => self.object(),
            b'[' => self.array(),
            b'"' => self.string().map(Value::String),
            b't' => self.literal("true", Value::Bool(true)),
            b'f' => self.literal("false", Value::Bool(false)),
            b'n' => self.literal("null", Value::Null),
            b'-' | b'0'..=b'9' => self.number(),
            _ => Err(Fail::Invalid),
        }
    }

    fn literal(&mut self, word: &str, v: Value) -> Result<Value, Fail> {
        let rest = &self.b[self.i..];
        let n = rest.len().min(word.len());
        if rest[..n] != word.as_bytes()[..n] {
            return Err(Fail::Invalid);
        }
        self.i += n;
        Ok(v)
    }

    fn number(&mut self) -> Result<Value, Fail> {
        let start = self.i;
        while self.i < self.b.len()
            && matches!(
                self.b[self.i],
                b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'
            )
        {
            self.i += 1;
        }
        let mut s = std::str::from_utf8(&self.b[start..self.i]).map_err(|_| Fail::Invalid)?;
        while !s.is_empty() {
            if let Ok(v) = serde_json::from_str::<Value>(s) {
                return Ok(v);
            }
            if !self.at_end() {
                return Err(Fail::Invalid);
            }
            s = &s[..s.len() - 1];
        }
        Err(Fail::Eof)
    }

    fn string(&mut self) -> Result<String, Fail> {
        self.i += 1;
        let mut out: Vec<u8> = Vec::new();
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'"' => {
                    self.i += 1;
                    return String::from_utf8(out).map_err(|_| Fail::Invalid);
                }
                b'\\' => {
                    let Some(&e) = self.b.get(self.i + 1) else {
                        self.i = self.b.len();
                        break;
                    };
                    let simple = match e {
                        b'"' => Some(b'"'),
                        b'\\' => Some(b'\\'),
                        b'/' => Some(b'/'),
                        b'b' => Some(8),
                        b'f' => Some(12),
                        b'n' => Some(b'\n'),
                        b'r' => Some(b'\r'),
                        b't' => Some(b'\t'),
                        _ => None,
                    };
                    if let Some(s) = simple {
                        out.push(s);
                        self.i += 2;
                        continue;
                    }
                    if e != b'u' {
                        return Err(Fail::Invalid);
                    }
                    let hex = self.b.get(self.i + 2..self.i + 6);
                    let Some(hex) = hex else {
                        self.i = self.b.len();
                        break;
                    };
                    let code = std::str::from_utf8(hex)
                        .ok()
                        .and_then(|h| u32::from_str_radix(h, 16).ok())
                        .ok_or(Fail::Invalid)?;
                    let ch = char::from_u32(code).unwrap_or('\u{fffd}');
                    let mut tmp = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut tmp).as_bytes());
                    self.i += 6;
                }
                c if c < 0x20 => return Err(Fail::Invalid),
                c => {
                    out.push(c);
                    self.i += 1;
                }
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    fn array(&mut self) -> Result<Value, Fail> {
        self.i += 1;
        let mut items = Vec::new();
        loop {
            self.ws();
            match self.b.get(self.i) {
                None => return Ok(Value::Array(items)),
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                _ => {}
            }
            match self.value() {
                Ok(v) => items.push(v),
                Err(Fail::Eof) => return Ok(Value::Array(items)),
                Err(Fail::Invalid) => return Err(Fail::Invalid),
            }
            self.ws();
            match self.b.get(self.i) {
                None => return Ok(Value::Array(items)),
                Some(b',') => self.i += 1,
                Some(b']') => {
                    self.i += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(Fail::Invalid),
            }
        }
    }

    fn object(&mut self) -> Result<Value, Fail> {
        self.i += 1;
        let mut map = Map::new();
        loop {
            self.ws();
            match self.b.get(self.i) {
                None => return Ok(Value::Object(map)),
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(map));
                }
                Some(b'"') => {}
                _ => return Err(Fail::Invalid),
            }
            let key = self.string()?;
            if self.at_end() {
                return Ok(Value::Object(map));
            }
            self.ws();
            match self.b.get(self.i) {
                None => return Ok(Value::Object(map)),
                Some(b':') => self.i += 1,
                _ => return Err(Fail::Invalid),
            }
            match self.value() {
                Ok(v) => {
                    map.insert(key, v);
                }
                Err(Fail::Eof) => return Ok(Value::Object(map)),
                Err(Fail::Invalid) => return Err(Fail::Invalid),
            }
            self.ws();
            match self.b.get(self.i) {
                None => return Ok(Value::Object(map)),
                Some(b',') => self.i += 1,
                Some(b'}') => {
                    self.i += 1;
                    return Ok(Value::Object(map));
                }
                _ => return Err(Fail::Invalid),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn spec_examples() {
        assert_eq!(parse_partial_json(r#"{"pa"#), json!({}));
        assert_eq!(
            parse_partial_json(r#"{"path": "src/ma"#),
            json!({"path": "src/ma"})
        );
        assert_eq!(parse_partial_json(r#"{"b": tr"#), json!({"b": true}));
        assert_eq!(parse_partial_json(r#"{"a": [1, 2"#), json!({"a": [1, 2]}));
    }

    #[test]
    fn empty_and_whitespace_give_empty_object() {
        assert_eq!(parse_partial_json(""), json!({}));
        assert_eq!(parse_partial_json("  \n"), json!({}));
    }

    #[test]
    fn complete_json_parses_strictly() {
        assert_eq!(
            parse_partial_json(r#"{"a":{"b":[null,false]}}"#),
            json!({"a":{"b":[null,false]}})
        );
    }

    #[test]
    fn repairs_raw_newlines_and_bad_backslashes() {
        assert_eq!(
            parse_partial_json("{\"s\": \"a\nb\"}"),
            json!({"s": "a\nb"})
        );
        assert_eq!(
            parse_partial_json(r#"{"p": "C:\dir"}"#),
            json!({"p": "C:\\dir"})
        );
    }

    #[test]
    fn partial_numbers_nested_and_dangling_keys() {
        assert_eq!(parse_partial_json(r#"{"n": 12"#), json!({"n": 12}));
        assert_eq!(parse_partial_json(r#"{"n": 1."#), json!({"n": 1}));
        assert_eq!(
            parse_partial_json(r#"{"a": {"b": "c"#),
            json!({"a": {"b": "c"}})
        );
        assert_eq!(parse_partial_json(r#"{"a": 1, "b""#), json!({"a": 1}));
        assert_eq!(parse_partial_json(r#"{"a": 1, "b": "#), json!({"a": 1}));
        assert_eq!(parse_partial_json(r#"{"s": "x\"#), json!({"s": "x"}));
        assert_eq!(parse_partial_json(r#"{"s": "\u00e"#), json!({"s": ""}));
    }

    #[test]
    fn garbage_and_non_objects_give_empty_object() {
        assert_eq!(parse_partial_json("not json"), json!({}));
        assert_eq!(parse_partial_json("[1,2]"), json!({}));
        assert_eq!(parse_partial_json(r#"{"a": }"#), json!({}));
    }
}
