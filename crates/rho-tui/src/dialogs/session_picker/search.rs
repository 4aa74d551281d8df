//! Which sessions the `/resume` list shows and in what order, as pi's session search decides:
//! the named-only filter, then the query (`re:<pattern>` a case-insensitive regex; otherwise
//! words, where `"a phrase"` must appear as written), then the sort (threaded: sessions under
//! the session they were forked from; recent: newest first; fuzzy: best match first).
//!
//! A word matches a session when it appears in its name (best), its id, first message or
//! folder, or, failing those, as a fuzzy subsequence of its name or folder (worst). pi also
//! searches every message of each session; rho's session listing reads the first message
//! only, so later messages are not searched.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use rho_protocol::session::SessionSummary;

use crate::fuzzy::fuzzy_score;

/// How the list is ordered (Ctrl+S cycles them in this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SortMode {
    /// Forks under the session they came from, each level newest activity first.
    Threaded,
    /// Newest first.
    Recent,
    /// Best match first (pi's "relevance", shown as "Fuzzy").
    Fuzzy,
}

impl SortMode {
    /// The next mode.
    pub fn next(self) -> Self {
        match self {
            SortMode::Threaded => SortMode::Recent,
            SortMode::Recent => SortMode::Fuzzy,
            SortMode::Fuzzy => SortMode::Threaded,
        }
    }

    /// pi's label.
    pub fn label(self) -> &'static str {
        match self {
            SortMode::Threaded => "Threaded",
            SortMode::Recent => "Recent",
            SortMode::Fuzzy => "Fuzzy",
        }
    }
}

/// One row of the list: a session and where it sits in the threaded view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    /// Index into the sessions given.
    pub index: usize,
    /// Nesting under the session it was forked from (0: a root).
    pub depth: usize,
    /// The last child of its parent.
    pub is_last: bool,
    /// For each ancestor level below the root, whether its branch continues below this row.
    pub continues: Vec<bool>,
}

impl Row {
    fn flat(index: usize) -> Self {
        Row {
            index,
            depth: 0,
            is_last: true,
            continues: Vec::new(),
        }
    }

    /// The tree glyphs before the row's text (`│  ├─ `).
    pub fn prefix(&self) -> String {
        if self.depth == 0 {
            return String::new();
        }
        let mut out: String = self
            .continues
            .iter()
            .map(|&c| if c { "│  " } else { "   " })
            .collect();
        out.push_str(if self.is_last { "└─ " } else { "├─ " });
        out
    }
}

/// Whether a session has a (non-blank) name.
pub fn is_named(s: &SessionSummary) -> bool {
    s.name.as_deref().is_some_and(|n| !n.trim().is_empty())
}

/// A parsed query.
enum Query {
    Words(Vec<Word>),
    Regex(regex::Regex),
    /// `re:` with a pattern that does not compile (or none): nothing matches.
    BadRegex,
}

enum Word {
    Fuzzy(String),
    Phrase(String),
}

fn parse(query: &str) -> Query {
    let trimmed = query.trim();
    if let Some(pattern) = trimmed.strip_prefix("re:") {
        let pattern = pattern.trim();
        return match regex::RegexBuilder::new(pattern)
            .case_insensitive(true)
            .build()
        {
            Ok(re) if !pattern.is_empty() => Query::Regex(re),
            _ => Query::BadRegex,
        };
    }
    let mut words = Vec::new();
    let mut buf = String::new();
    let mut quoted = false;
    let flush = |buf: &mut String, words: &mut Vec<Word>, phrase: bool| {
        let v = buf.trim().to_string();
        buf.clear();
        if !v.is_empty() {
            words.push(if phrase {
                Word::Phrase(v)
            } else {
                Word::Fuzzy(v)
            });
        }
    };
    for c in trimmed.chars() {
        if c == '"' {
            flush(&mut buf, &mut words, quoted);
            quoted = !quoted;
        } else if !quoted && c.is_whitespace() {
            flush(&mut buf, &mut words, false);
        } else {
            buf.push(c);
        }
    }
    if quoted {
        // An unclosed quote: plain words, as pi falls back.
        let words = trimmed
            .split_whitespace()
            .map(|w| Word::Fuzzy(w.to_string()))
            .collect();
        return Query::Words(words);
    }
    flush(&mut buf, &mut words, false);
    Query::Words(words)
}

/// Match tiers, best first; a tier always beats any score inside a worse tier.
const TIER: i64 = 1_000_000;

fn collapse(s: &str) -> String {
    s.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// A session's cost for one word (lower is better), `None` when it does not match.
fn word_cost(s: &SessionSummary, word: &Word) -> Option<i64> {
    let (value, phrase) = match word {
        Word::Fuzzy(v) => (v.to_lowercase(), false),
        Word::Phrase(v) => (collapse(v), true),
    };
    let norm = |t: &str| {
        if phrase {
            collapse(t)
        } else {
            t.to_lowercase()
        }
    };
    let name = s.name.as_deref().unwrap_or("");
    if norm(name).contains(&value) {
        return Some(-fuzzy_score(&value, name).unwrap_or(0));
    }
    let first = s.first_message.as_deref().unwrap_or("");
    if [s.header.id.as_str(), first, s.header.cwd.as_str()]
        .iter()
        .any(|t| norm(t).contains(&value))
    {
        return Some(TIER);
    }
    if phrase {
        return None;
    }
    [name, s.header.cwd.as_str()]
        .iter()
        .filter_map(|t| fuzzy_score(&value, t))
        .max()
        .map(|best| 2 * TIER - best)
}

/// A session's cost for the whole query, `None` when it does not match.
fn cost(s: &SessionSummary, query: &Query) -> Option<i64> {
    match query {
        Query::BadRegex => None,
        Query::Regex(re) => {
            if s.name.as_deref().is_some_and(|n| re.is_match(n)) {
                return Some(0);
            }
            let first = s.first_message.as_deref().unwrap_or("");
            [s.header.id.as_str(), first, s.header.cwd.as_str()]
                .iter()
                .any(|t| re.is_match(t))
                .then_some(TIER)
        }
        Query::Words(words) => words.iter().map(|w| word_cost(s, w)).sum(),
    }
}

/// The rows to show for `sessions` (newest first, as listed).
pub fn rows(
    sessions: &[SessionSummary],
    query: &str,
    sort: SortMode,
    named_only: bool,
) -> Vec<Row> {
    let shown: Vec<usize> = (0..sessions.len())
        .filter(|&i| !named_only || is_named(&sessions[i]))
        .collect();
    if query.trim().is_empty() {
        return match sort {
            SortMode::Threaded => threaded(sessions, &shown),
            _ => shown.into_iter().map(Row::flat).collect(),
        };
    }
    let query = parse(query);
    let mut scored: Vec<(usize, i64)> = shown
        .into_iter()
        .filter_map(|i| cost(&sessions[i], &query).map(|c| (i, c)))
        .collect();
    if sort != SortMode::Recent {
        scored.sort_by(|a, b| {
            a.1.cmp(&b.1)
                .then(sessions[b.0].modified_ms.cmp(&sessions[a.0].modified_ms))
        });
    }
    scored.into_iter().map(|(i, _)| Row::flat(i)).collect()
}

/// The threaded view: each session under the one it was forked from (when listed), siblings
/// and roots ordered by the newest activity in their subtree.
fn threaded(sessions: &[SessionSummary], shown: &[usize]) -> Vec<Row> {
    let by_path: HashMap<&Path, usize> = shown
        .iter()
        .map(|&i| (sessions[i].path.as_path(), i))
        .collect();
    let mut children: HashMap<Option<usize>, Vec<usize>> = HashMap::new();
    for &i in shown {
        let parent = sessions[i]
            .header
            .parent_session
            .as_deref()
            .map(PathBuf::from)
            .and_then(|p| by_path.get(p.as_path()).copied())
            .filter(|&p| p != i);
        children.entry(parent).or_default().push(i);
    }
    let mut latest: HashMap<usize, i64> = HashMap::new();
    for &i in shown {
        latest_activity(i, sessions, &children, &mut latest, 0);
    }
    for kids in children.values_mut() {
        kids.sort_by_key(|i| std::cmp::Reverse(latest.get(i).copied().unwrap_or(0)));
    }
    let mut out = Vec::with_capacity(shown.len());
    let roots = children.get(&None).cloned().unwrap_or_default();
    let mut stack: Vec<(usize, usize, bool, Vec<bool>)> = roots
        .iter()
        .enumerate()
        .rev()
        .map(|(k, &i)| (i, 0, k + 1 == roots.len(), Vec::new()))
        .collect();
    let mut seen = std::collections::HashSet::new();
    while let Some((i, depth, is_last, continues)) = stack.pop() {
        if !seen.insert(i) {
            continue;
        }
        out.push(Row {
            index: i,
            depth,
            is_last,
            continues: continues.clone(),
        });
        let kids = children.get(&Some(i)).cloned().unwrap_or_default();
        for (k, &child) in kids.iter().enumerate().rev() {
            let mut next = continues.clone();
            // Only levels below a root draw a continuation line.
            next.push(depth > 0 && !is_last);
            stack.push((child, depth + 1, k + 1 == kids.len(), next));
        }
    }
    out
}

/// The newest activity in `i`'s subtree (its own time, or a fork's).
fn latest_activity(
    i: usize,
    sessions: &[SessionSummary],
    children: &HashMap<Option<usize>, Vec<usize>>,
    memo: &mut HashMap<usize, i64>,
    depth: usize,
) -> i64 {
    if let Some(&t) = memo.get(&i) {
        return t;
    }
    let mut t = sessions[i].modified_ms;
    // A cycle of parents cannot nest deeper than there are sessions.
    if depth <= sessions.len() {
        for &child in children
            .get(&Some(i))
            .map(Vec::as_slice)
            .unwrap_or_default()
        {
            t = t.max(latest_activity(child, sessions, children, memo, depth + 1));
        }
    }
    memo.insert(i, t);
    t
}
