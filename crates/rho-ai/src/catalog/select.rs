//! Choosing models by user patterns (interfaces §6.5, §7): `--model`, `--models` /
//! `enabledModels` and the `--list-models [search]` filter and table.
//!
//! All functions take the model list to search (built-ins merged with models.json, already
//! filtered to authenticated models where the caller needs that).

use crate::model::{Model, ThinkingLevel};

use super::default_model_id;

/// A model chosen by a pattern, with the thinking level its `:<level>` suffix named.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelChoice {
    /// The model (a clone; fabricated ones exist only here).
    pub model: Model,
    /// Level from a trailing `:<level>`.
    pub thinking: Option<ThinkingLevel>,
    /// Set when the model was fabricated from the provider's default (unknown id).
    pub warning: Option<String>,
}

/// Splits a trailing `:<level>` off `pattern` when it names a valid level; otherwise the
/// colon is part of the id (e.g. OpenRouter's `:free`).
pub fn split_thinking_suffix(pattern: &str) -> (&str, Option<ThinkingLevel>) {
    if let Some((head, tail)) = pattern.rsplit_once(':') {
        if let Some(level) = ThinkingLevel::parse(&tail.to_ascii_lowercase()) {
            return (head, Some(level));
        }
    }
    (pattern, None)
}

/// Whether `id` is an "alias": ends in `-latest`, or does not end in a `-YYYYMMDD` date.
fn is_alias(id: &str) -> bool {
    if id.ends_with("-latest") {
        return true;
    }
    let bytes = id.as_bytes();
    let dated = bytes.len() > 9
        && bytes[bytes.len() - 9] == b'-'
        && bytes[bytes.len() - 8..].iter().all(u8::is_ascii_digit);
    !dated
}

/// Among `matches`, aliases beat dated ids; within the winning group the greatest id wins.
fn best<'a>(matches: impl Iterator<Item = &'a Model>) -> Option<&'a Model> {
    matches.max_by(|a, b| (is_alias(&a.id), a.id.as_str()).cmp(&(is_alias(&b.id), b.id.as_str())))
}

/// `--model` matching without the thinking suffix: exact `provider/id`, then exact `id`,
/// then a `provider/` prefix of a known provider narrowing the search, then case-insensitive
/// substring of id or name. `provider` (from `--provider`) restricts everything to it.
pub fn find_model<'a>(
    models: &'a [Model],
    provider: Option<&str>,
    pattern: &str,
) -> Option<&'a Model> {
    let lower = pattern.to_lowercase();
    let in_scope = |m: &&Model| provider.is_none_or(|p| m.provider.eq_ignore_ascii_case(p));
    let scoped = || models.iter().filter(in_scope);
    let canonical = |m: &&Model| format!("{}/{}", m.provider, m.id).to_lowercase() == lower;
    if let Some(m) = scoped().find(canonical) {
        return Some(m);
    }
    if let Some(m) = scoped().find(|m| m.id.to_lowercase() == lower) {
        return Some(m);
    }
    if provider.is_none() {
        if let Some((prefix, rest)) = pattern.split_once('/') {
            if is_known_provider(models, prefix) {
                return find_model(models, Some(prefix), rest);
            }
        }
    }
    best(
        scoped().filter(|m| {
            m.id.to_lowercase().contains(&lower) || m.name.to_lowercase().contains(&lower)
        }),
    )
}

fn is_known_provider(models: &[Model], name: &str) -> bool {
    super::is_builtin_provider(&name.to_lowercase())
        || models.iter().any(|m| m.provider.eq_ignore_ascii_case(name))
}

/// Resolves a `--model` value (with optional `--provider`). With a known provider but no
/// matching id, a model is fabricated by cloning that provider's default model under the
/// given id, with a warning (as pi does, so new vendor models work before the catalog knows
/// them). `None` when nothing matches and no provider is known.
pub fn resolve_model(
    models: &[Model],
    provider: Option<&str>,
    pattern: &str,
) -> Option<ModelChoice> {
    let (pattern, thinking) = split_thinking_suffix(pattern.trim());
    if let Some(model) = find_model(models, provider, pattern) {
        return Some(ModelChoice {
            model: model.clone(),
            thinking,
            warning: None,
        });
    }
    let (provider, id) = match provider {
        Some(p) => (p, pattern),
        None => pattern.split_once('/')?,
    };
    let template = provider_template(models, provider)?;
    let mut model = template.clone();
    model.id = id.to_string();
    model.name = id.to_string();
    let warning = Some(format!(
        "Model \"{id}\" not found for provider \"{}\"; using it with the settings of \"{}\".",
        template.provider, template.id
    ));
    Some(ModelChoice {
        model,
        thinking,
        warning,
    })
}

/// The provider's default model if listed, else its first model.
fn provider_template<'a>(models: &'a [Model], provider: &str) -> Option<&'a Model> {
    let own = || {
        models
            .iter()
            .filter(|m| m.provider.eq_ignore_ascii_case(provider))
    };
    let default = default_model_id(&provider.to_lowercase());
    own()
        .find(|m| Some(m.id.as_str()) == default)
        .or_else(|| own().next())
}

/// Case-insensitive glob: `*` any run, `?` one character, `[abc]`, `[a-z]`, `[!x]`/`[^x]`.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.to_lowercase().chars().collect();
    let t: Vec<char> = text.to_lowercase().chars().collect();
    glob_at(&p, &t)
}

fn glob_at(p: &[char], t: &[char]) -> bool {
    match p.first() {
        None => t.is_empty(),
        Some('*') => (0..=t.len()).any(|skip| glob_at(&p[1..], &t[skip..])),
        Some('?') => !t.is_empty() && glob_at(&p[1..], &t[1..]),
        Some('[') => match (class_end(p), t.first()) {
            (Some(end), Some(&c)) => {
                class_matches(&p[1..end], c) && glob_at(&p[end + 1..], &t[1..])
            }
            (Some(_), None) => false,
            (None, _) => t.first() == Some(&'[') && glob_at(&p[1..], &t[1..]),
        },
        Some(&c) => t.first() == Some(&c) && glob_at(&p[1..], &t[1..]),
    }
}

/// Index of the `]` closing the class that starts at `p[0]`.
fn class_end(p: &[char]) -> Option<usize> {
    let start = if matches!(p.get(1), Some('!' | '^')) {
        2
    } else {
        1
    };
    (start + 1..p.len()).find(|&i| p[i] == ']')
}

fn class_matches(class: &[char], c: char) -> bool {
    let (negated, class) = match class.first() {
        Some('!' | '^') => (true, &class[1..]),
        _ => (false, class),
    };
    let mut i = 0;
    let mut hit = false;
    while i < class.len() {
        if i + 2 < class.len() && class[i + 1] == '-' {
            hit |= class[i] <= c && c <= class[i + 2];
            i += 3;
        } else {
            hit |= class[i] == c;
            i += 1;
        }
    }
    hit != negated
}

/// `--models` / `enabledModels`: each pattern (comma-separated in the CLI, already split
/// here) selects models; patterns with `*`, `?` or `[` are globs against `provider/id` and
/// `id`, others use [`find_model`]. Returns the models in pattern order without duplicates,
/// and one warning per pattern that matched nothing.
pub fn scope_models(models: &[Model], patterns: &[&str]) -> (Vec<ModelChoice>, Vec<String>) {
    let mut chosen: Vec<ModelChoice> = Vec::new();
    let mut warnings = Vec::new();
    for raw in patterns.iter().map(|p| p.trim()).filter(|p| !p.is_empty()) {
        let (pattern, thinking) = split_thinking_suffix(raw);
        let found: Vec<&Model> = if pattern.contains(['*', '?', '[']) {
            models
                .iter()
                .filter(|m| {
                    glob_match(pattern, &format!("{}/{}", m.provider, m.id))
                        || glob_match(pattern, &m.id)
                })
                .collect()
        } else {
            find_model(models, None, pattern).into_iter().collect()
        };
        if found.is_empty() {
            warnings.push(format!("No models match pattern \"{raw}\""));
        }
        for model in found {
            let seen = chosen
                .iter()
                .any(|c| c.model.provider == model.provider && c.model.id == model.id);
            if !seen {
                chosen.push(ModelChoice {
                    model: model.clone(),
                    thinking,
                    warning: None,
                });
            }
        }
    }
    (chosen, warnings)
}

/// Whether every whitespace-separated token of `query` occurs in `text` as a
/// case-insensitive subsequence (the `--list-models` fuzzy filter).
pub fn fuzzy_matches(query: &str, text: &str) -> bool {
    let text = text.to_lowercase();
    query.split_whitespace().all(|token| {
        let mut rest = text.chars();
        token
            .to_lowercase()
            .chars()
            .all(|wanted| rest.by_ref().any(|c| c == wanted))
    })
}

/// The `--list-models` rows: models matching `search` on `"<provider> <id>"`, sorted by
/// provider then id as pi sorts them ([`locale_cmp`]).
pub fn list_models<'a>(
    models: impl IntoIterator<Item = &'a Model>,
    search: Option<&str>,
) -> Vec<&'a Model> {
    let mut out: Vec<&Model> = models
        .into_iter()
        .filter(|m| search.is_none_or(|q| fuzzy_matches(q, &format!("{} {}", m.provider, m.id))))
        .collect();
    out.sort_by_cached_key(|m| (collation_key(&m.provider), collation_key(&m.id)));
    out
}

/// The order of JavaScript's `localeCompare` (ICU's root collation, which pi's lists use) for
/// ids and names: punctuation before digits before letters, letters compared without case
/// first, then lower case before upper case at the first difference.
pub fn locale_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    collation_key(a).cmp(&collation_key(b))
}

/// What [`locale_cmp`] compares: the characters' weights, then where upper case stands, then
/// the text itself (so different texts never compare equal).
fn collation_key(s: &str) -> (Vec<u32>, Vec<bool>, String) {
    const PUNCTUATION: &str = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$";
    let weight = |c: char| -> u32 {
        if let Some(i) = PUNCTUATION.find(c) {
            100 + i as u32
        } else if c.is_ascii_digit() {
            200 + c as u32
        } else if c.is_ascii_alphabetic() {
            300 + c.to_ascii_lowercase() as u32
        } else {
            1000 + c as u32
        }
    };
    (
        s.chars().map(weight).collect(),
        s.chars().map(char::is_uppercase).collect(),
        s.to_string(),
    )
}

/// Token counts as `--list-models` prints them: `200K`, `1M`, `1.5M`, `131.1K`, `512`.
pub fn format_token_count(count: u64) -> String {
    let scaled = |value: f64, unit: &str| {
        if value.fract() == 0.0 {
            format!("{value}{unit}")
        } else {
            format!("{value:.1}{unit}")
        }
    };
    if count >= 1_000_000 {
        scaled(count as f64 / 1e6, "M")
    } else if count >= 1000 {
        scaled(count as f64 / 1e3, "K")
    } else {
        count.to_string()
    }
}

/// The `--list-models` table: columns `provider  model  context  max-out  thinking  images`,
/// two spaces apart, every column padded to its widest cell (the last too, as pi pads it).
pub fn list_models_table(models: &[&Model]) -> String {
    let yes_no = |b: bool| if b { "yes" } else { "no" }.to_string();
    let mut rows = vec![[
        "provider", "model", "context", "max-out", "thinking", "images",
    ]
    .map(String::from)];
    rows.extend(models.iter().map(|m| {
        [
            m.provider.clone(),
            m.id.clone(),
            format_token_count(m.context_window),
            format_token_count(m.max_tokens),
            yes_no(m.reasoning),
            yes_no(m.supports_images()),
        ]
    }));
    let widths: Vec<usize> = (0..6)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, cell)| format!("{cell:<w$}", w = widths[c]))
            .collect();
        out.push_str(&cells.join("  "));
        out.push('\n');
    }
    out
}

#[cfg(test)]
#[path = "select_tests.rs"]
mod tests;
