//! The JSON dialect models.json is written in: `//` line comments (and `/* */` blocks) and
//! trailing commas are tolerated.
//!
//! Comments and trailing commas are blanked to spaces (newlines kept), so serde_json's
//! line/column in syntax errors still point into the user's file.

/// `text` with comments and trailing commas replaced by whitespace.
pub fn strip(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len());
    let mut i = 0;
    let mut in_string = false;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            out.push(b);
            if b == b'\\' && i + 1 < bytes.len() {
                out.push(bytes[i + 1]);
                i += 2;
                continue;
            }
            in_string = b != b'"';
            i += 1;
            continue;
        }
        match (b, bytes.get(i + 1)) {
            (b'"', _) => {
                in_string = true;
                out.push(b);
                i += 1;
            }
            (b'/', Some(b'/')) => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    out.push(b' ');
                    i += 1;
                }
            }
            (b'/', Some(b'*')) => {
                let end = find(bytes, i + 2, b"*/").map_or(bytes.len(), |e| e + 2);
                blank(&mut out, &bytes[i..end]);
                i = end;
            }
            (b',', _) if closes_next(bytes, i + 1) => {
                out.push(b' ');
                i += 1;
            }
            _ => {
                out.push(b);
                i += 1;
            }
        }
    }
    // Only ASCII bytes at ASCII positions were blanked, so the bytes stay UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Whether the next significant byte after `from` (skipping whitespace and comments) is a
/// closing bracket.
fn closes_next(bytes: &[u8], mut from: usize) -> bool {
    while from < bytes.len() {
        match (bytes[from], bytes.get(from + 1)) {
            (b' ' | b'\t' | b'\n' | b'\r', _) => from += 1,
            (b'/', Some(b'/')) => {
                from = find(bytes, from, b"\n").unwrap_or(bytes.len());
            }
            (b'/', Some(b'*')) => {
                from = find(bytes, from + 2, b"*/").map_or(bytes.len(), |e| e + 2);
            }
            (b'}' | b']', _) => return true,
            _ => return false,
        }
    }
    false
}

fn find(bytes: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    bytes
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// Pushes spaces for `span`, keeping its newlines.
fn blank(out: &mut Vec<u8>, span: &[u8]) {
    out.extend(span.iter().map(|&b| if b == b'\n' { b'\n' } else { b' ' }));
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};

    fn parse(text: &str) -> Value {
        serde_json::from_str(&strip(text)).expect("valid after stripping")
    }

    #[test]
    fn comments_and_trailing_commas() {
        let text = r#"{
  // local models
  "providers": {
    "ollama": {
      "baseUrl": "http://localhost:11434/v1", // trailing comment
      "note": "a // not a comment, and \"quoted\" /* nor this */",
      "models": [ { "id": "llama" }, /* block */ ],
    },
  },
}"#;
        assert_eq!(
            parse(text),
            json!({"providers": {"ollama": {
                "baseUrl": "http://localhost:11434/v1",
                "note": "a // not a comment, and \"quoted\" /* nor this */",
                "models": [{"id": "llama"}]
            }}})
        );
    }

    #[test]
    fn positions_survive_and_real_errors_remain() {
        let text = "{\n // c\n \"a\": 1,\n \"b\": }";
        let stripped = strip(text);
        assert_eq!(stripped.len(), text.len());
        let err = serde_json::from_str::<Value>(&stripped).expect_err("missing value");
        assert_eq!(err.line(), 4);
        // A comma before a value is not trailing.
        assert!(serde_json::from_str::<Value>(&strip("[1,,2]")).is_err());
    }
}
