//! Sets one top-level key in the text of a JSON object while leaving the rest of the text as
//! the user wrote it: key order, indentation, spacing and untouched values stay (issue 18.7).
//! Only a value's own text is replaced, or a member appended in the file's style.

use serde_json::Value;

/// One top-level member: where its key starts and where its value's text lies.
struct Member {
    key: String,
    key_start: usize,
    value: std::ops::Range<usize>,
}

/// The top-level object: its members and the position of its closing brace.
struct Object {
    open: usize,
    close: usize,
    members: Vec<Member>,
}

/// `text` with top-level `key` set to `value`, or `None` when `text` is not one JSON object
/// (the caller then writes the whole file anew).
pub fn set_top_level(text: &str, key: &str, value: &Value) -> Option<String> {
    let object = scan_object(text.as_bytes())?;
    let bytes = text.as_bytes();
    if let Some(m) = object.members.iter().find(|m| m.key == key) {
        let indent = indentation(text, m.key_start);
        let rendered = render(value, indent)?;
        return Some(format!(
            "{}{rendered}{}",
            &text[..m.value.start],
            &text[m.value.end..]
        ));
    }
    let key_json = serde_json::to_string(key).ok()?;
    let Some(last) = object.members.last() else {
        let rendered = render(value, "  ")?;
        return Some(format!(
            "{}{{\n  {key_json}: {rendered}\n}}{}",
            &text[..object.open],
            &text[object.close + 1..]
        ));
    };
    let multiline = bytes[object.open..last.key_start].contains(&b'\n');
    let member = if multiline {
        let indent = indentation(text, last.key_start);
        format!(",\n{indent}{key_json}: {}", render(value, indent)?)
    } else {
        let separator = if text[..last.key_start].ends_with(' ') {
            ", "
        } else {
            ","
        };
        let colon = if text[last.key_start..last.value.start].contains(": ") {
            ": "
        } else {
            ":"
        };
        format!(
            "{separator}{key_json}{colon}{}",
            serde_json::to_string(value).ok()?
        )
    };
    Some(format!(
        "{}{member}{}",
        &text[..last.value.end],
        &text[last.value.end..]
    ))
}

/// The value pretty-printed, its later lines indented to sit under a member at `indent`.
fn render(value: &Value, indent: &str) -> Option<String> {
    let pretty = serde_json::to_string_pretty(value).ok()?;
    Some(pretty.replace('\n', &format!("\n{indent}")))
}

/// The spaces and tabs before `at` on its line.
fn indentation(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let lead = &text[line_start..at];
    let end = lead
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(lead.len());
    &lead[..end]
}

fn scan_object(b: &[u8]) -> Option<Object> {
    let open = skip_ws(b, 0);
    if b.get(open) != Some(&b'{') {
        return None;
    }
    let mut members = Vec::new();
    let mut i = skip_ws(b, open + 1);
    if b.get(i) == Some(&b'}') {
        return trailing_ws_only(b, i).then_some(Object {
            open,
            close: i,
            members,
        });
    }
    loop {
        let key_start = i;
        let key_end = skip_string(b, i)?;
        let key: String = serde_json::from_slice(&b[key_start..key_end]).ok()?;
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let value_start = skip_ws(b, i + 1);
        let value_end = skip_value(b, value_start)?;
        members.push(Member {
            key,
            key_start,
            value: value_start..value_end,
        });
        i = skip_ws(b, value_end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => {
                return trailing_ws_only(b, i).then_some(Object {
                    open,
                    close: i,
                    members,
                })
            }
            _ => return None,
        }
    }
}

fn trailing_ws_only(b: &[u8], close: usize) -> bool {
    skip_ws(b, close + 1) == b.len()
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// The end (exclusive) of the string starting at `i`.
fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let mut j = i + 1;
    loop {
        match b.get(j)? {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
}

/// The end (exclusive) of the value starting at `i`.
fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            loop {
                match b.get(j)? {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
        }
        _ => {
            let mut j = i;
            while b
                .get(j)
                .is_some_and(|c| !matches!(c, b',' | b'}' | b']') && !c.is_ascii_whitespace())
            {
                j += 1;
            }
            (j > i).then_some(j)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compact_files_stay_compact() {
        let out = set_top_level(r#"{"b":1,"a":2}"#, "c", &json!([1, 2])).expect("object");
        assert_eq!(out, r#"{"b":1,"a":2,"c":[1,2]}"#);
        let out = set_top_level(r#"{"b": 1, "a": 2}"#, "a", &json!("x")).expect("object");
        assert_eq!(out, r#"{"b": 1, "a": "x"}"#);
    }

    #[test]
    fn empty_objects_and_strings_with_braces() {
        assert_eq!(
            set_top_level("{}\n", "k", &json!(true)).expect("object"),
            "{\n  \"k\": true\n}\n"
        );
        let text = "{\n\t\"x\": \"}{\\\"\",\n\t\"y\": 0\n}";
        assert_eq!(
            set_top_level(text, "y", &json!(5)).expect("object"),
            "{\n\t\"x\": \"}{\\\"\",\n\t\"y\": 5\n}"
        );
    }

    #[test]
    fn anything_but_one_object_is_left_to_the_caller() {
        for text in ["[1]", "{\"a\":1} x", "{\"a\" 1}", "", "{\"a\":"] {
            assert_eq!(set_top_level(text, "a", &json!(1)), None, "{text}");
        }
    }
}
