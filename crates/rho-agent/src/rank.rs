//! Ranking tools for a search query (BM25 over names, descriptions and parameters), shared by
//! MCP's `tool_search` and codemode's `searchTools()`.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

const STOP_WORDS: [&str; 21] = [
    "a", "an", "and", "are", "as", "at", "be", "by", "for", "from", "in", "is", "it", "of", "on",
    "or", "that", "the", "this", "to", "with",
];

/// What ranking reads of a tool.
#[derive(Debug, Clone, Copy)]
pub struct RankDoc<'a> {
    pub name: &'a str,
    pub description: &'a str,
    pub parameters: &'a Value,
}

/// Lower-case words split at identifier boundaries, without stop words, naively singular.
pub fn tokenize(text: &str) -> Vec<String> {
    let mut spaced = String::new();
    let mut prev: Option<char> = None;
    for c in text.chars() {
        if c.is_uppercase() && prev.is_some_and(|p| p.is_lowercase() || p.is_ascii_digit()) {
            spaced.push(' ');
        }
        spaced.push(c);
        prev = Some(c);
    }
    spaced
        .to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !STOP_WORDS.contains(w))
        .map(stem)
        .collect()
}

fn stem(w: &str) -> String {
    let n = w.len();
    if n > 4 && w.ends_with("ies") {
        return format!("{}y", &w[..n - 3]);
    }
    if n > 4
        && ["ches", "shes", "sses", "xes", "zes"]
            .iter()
            .any(|s| w.ends_with(s))
    {
        return w[..n - 2].to_string();
    }
    if n > 3 && w.ends_with('s') && !w.ends_with("ss") {
        return w[..n - 1].to_string();
    }
    w.to_string()
}

/// BM25 over descriptions and parameter names, with name matches weighted 3x; a query that
/// is a tool's name wins. Returns indexes into `tools`, best first.
pub fn rank(query: &str, tools: &[RankDoc<'_>], limit: usize) -> Vec<usize> {
    let terms: HashSet<String> = tokenize(query).into_iter().collect();
    if terms.is_empty() || tools.is_empty() {
        return Vec::new();
    }
    let docs: Vec<(HashSet<String>, HashMap<String, usize>, usize)> = tools
        .iter()
        .map(|t| {
            let mut counts = HashMap::new();
            let words = tokenize(&format!("{} {}", t.description, schema_words(t.parameters)));
            for w in &words {
                *counts.entry(w.clone()).or_insert(0) += 1;
            }
            (tokenize(t.name).into_iter().collect(), counts, words.len())
        })
        .collect();
    let avg = (docs.iter().map(|d| d.2).sum::<usize>() as f64 / docs.len() as f64).max(1.0);
    let exact = query
        .trim()
        .to_lowercase()
        .replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', "_");
    let mut scored: Vec<(bool, usize, f64, usize)> = Vec::new();
    for (i, (names, counts, len)) in docs.iter().enumerate() {
        let norm = 1.2 * (1.0 - 0.75 + 0.75 * *len as f64 / avg);
        let (mut score, mut covered) = (0.0, 0);
        for term in &terms {
            let df = docs
                .iter()
                .filter(|d| d.0.contains(term) || d.1.contains_key(term))
                .count() as f64;
            let idf = (1.0 + (docs.len() as f64 - df + 0.5) / (df + 0.5)).ln();
            let count = *counts.get(term).unwrap_or(&0) as f64;
            let weight =
                if names.contains(term) { 3.0 } else { 0.0 } + count * 2.2 / (count + norm);
            if weight > 0.0 {
                covered += 1;
            }
            score += idf * weight;
        }
        let name = tools[i].name.to_lowercase();
        let is_exact = name == exact || name.ends_with(&format!("__{exact}"));
        if score > 0.0 || is_exact {
            scored.push((is_exact, covered, score, i));
        }
    }
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(b.2.total_cmp(&a.2)));
    scored.into_iter().take(limit).map(|s| s.3).collect()
}

fn schema_words(schema: &Value) -> String {
    let mut parts = Vec::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, p) in props {
            parts.push(name.clone());
            if let Some(d) = p.get("description").and_then(Value::as_str) {
                parts.push(d.to_string());
            }
        }
    }
    parts.join(" ")
}
