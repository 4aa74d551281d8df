//! Frontmatter of skill and template files: an optional block between a leading `---` line and
//! the next `\n---`, holding simple YAML `key: value` pairs.
//!
//! Only the scalar subset these files use is read (plain, quoted, and `|`/`>` block scalars);
//! nested maps such as `metadata` are skipped rather than misread.

use std::collections::BTreeMap;

/// A parsed file: its frontmatter fields and the trimmed body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Document {
    /// Top-level scalar fields.
    pub fields: BTreeMap<String, String>,
    /// The text after the frontmatter, trimmed.
    pub body: String,
}

impl Document {
    /// A field's value, `None` if absent.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(String::as_str)
    }

    /// A boolean field (`true`/`false`, case-insensitive).
    pub fn get_bool(&self, key: &str) -> bool {
        self.get(key)
            .is_some_and(|v| v.eq_ignore_ascii_case("true"))
    }
}

/// Splits `text` into frontmatter and body (line ends normalised to `\n` first).
pub fn parse(text: &str) -> Document {
    let text = text.replace("\r\n", "\n").replace('\r', "\n");
    if !text.starts_with("---") {
        return Document {
            fields: BTreeMap::new(),
            body: text.trim().to_string(),
        };
    }
    let Some(end) = text[3..].find("\n---").map(|p| p + 3) else {
        return Document {
            fields: BTreeMap::new(),
            body: text.trim().to_string(),
        };
    };
    let yaml = text[3..end].trim_start_matches(|c| c != '\n');
    let rest = &text[end + 4..];
    let body = match rest.find('\n') {
        Some(p) => &rest[p + 1..],
        None => "",
    };
    Document {
        fields: parse_yaml_scalars(yaml),
        body: body.trim().to_string(),
    }
}

/// Reads top-level `key: value` pairs; block scalars (`|`, `>`) gather their indented lines.
fn parse_yaml_scalars(yaml: &str) -> BTreeMap<String, String> {
    let mut fields = BTreeMap::new();
    let lines: Vec<&str> = yaml.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i];
        i += 1;
        if line.starts_with([' ', '\t', '#']) || line.trim().is_empty() {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim().to_string();
        let value = value.trim();
        if value.starts_with('|') || value.starts_with('>') {
            let folded = value.starts_with('>');
            let mut block = Vec::new();
            while i < lines.len()
                && (lines[i].starts_with([' ', '\t']) || lines[i].trim().is_empty())
            {
                block.push(lines[i].trim());
                i += 1;
            }
            let joined = if folded {
                block.join(" ")
            } else {
                block.join("\n")
            };
            fields.insert(key, joined.trim().to_string());
        } else if !value.is_empty() {
            fields.insert(key, unquote(value));
        }
    }
    fields
}

fn unquote(v: &str) -> String {
    let stripped = |q: char| v.len() >= 2 && v.starts_with(q) && v.ends_with(q);
    if stripped('"') {
        v[1..v.len() - 1].replace("\\\"", "\"").replace("\\n", "\n")
    } else if stripped('\'') {
        v[1..v.len() - 1].replace("''", "'")
    } else {
        v.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sk_7_crlf_frontmatter_is_removed_and_body_trimmed() {
        let d = parse(
            "---\r\nname: dbg\r\ndescription: \"Debug it\"\r\n---\r\n## Steps\r\nDo it.\r\n\r\n",
        );
        assert_eq!(d.get("name"), Some("dbg"));
        assert_eq!(d.get("description"), Some("Debug it"));
        assert_eq!(d.body, "## Steps\nDo it.");
    }

    #[test]
    fn no_frontmatter_means_whole_text_is_body() {
        let d = parse("\nplain text\n");
        assert!(d.fields.is_empty());
        assert_eq!(d.body, "plain text");
        let unterminated = parse("---\nname: x\nno end");
        assert!(unterminated.fields.is_empty());
    }

    #[test]
    fn block_scalars_nested_maps_and_booleans() {
        let d = parse("---\ndescription: |\n  line one\n  line two\nmetadata:\n  author: me\ndisable-model-invocation: true\nx: 'it''s'\n---\nbody");
        assert_eq!(d.get("description"), Some("line one\nline two"));
        assert_eq!(d.get("metadata"), None);
        assert_eq!(d.get("author"), None);
        assert!(d.get_bool("disable-model-invocation"));
        assert_eq!(d.get("x"), Some("it's"));
    }
}
