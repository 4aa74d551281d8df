//! Case-insensitive fuzzy matching, for the dialogs' type-to-filter and the editor's completion: every query character must
//! appear in order (a subsequence); matches that are contiguous, at the start of the text or at
//! word starts rank higher, so `son4` finds `claude-sonnet-4` and `sonnet` ranks `sonnet-…`
//! before `claude-sonnet`.

/// Score of `query` against `text`, or `None` when some whitespace-separated query word is not a
/// subsequence of `text`. Higher is better; an empty query matches everything with score 0.
pub fn fuzzy_score(query: &str, text: &str) -> Option<i64> {
    let hay: Vec<char> = text.to_lowercase().chars().collect();
    query
        .split_whitespace()
        .map(|word| word_score(&word.to_lowercase().chars().collect::<Vec<_>>(), &hay))
        .sum()
}

/// Indices of `texts` matching `query`, best first; equal scores keep their original order.
pub fn fuzzy_rank<'a>(query: &str, texts: impl IntoIterator<Item = &'a str>) -> Vec<usize> {
    let mut scored: Vec<(usize, i64)> = texts
        .into_iter()
        .enumerate()
        .filter_map(|(i, t)| fuzzy_score(query, t).map(|s| (i, s)))
        .collect();
    scored.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    scored.into_iter().map(|(i, _)| i).collect()
}

fn is_word_start(hay: &[char], i: usize) -> bool {
    i == 0 || !hay[i - 1].is_alphanumeric()
}

/// Greedy left-to-right subsequence match with bonuses, plus a bonus when the word occurs as a
/// substring (so a contiguous occurrence later in the text beats a scattered early one).
fn word_score(word: &[char], hay: &[char]) -> Option<i64> {
    let mut score = 0i64;
    let mut pos = 0;
    let mut prev: Option<usize> = None;
    for &c in word {
        let found = hay[pos..].iter().position(|&h| h == c)? + pos;
        score += 1;
        if prev.is_some_and(|p| p + 1 == found) {
            score += 5;
        }
        if is_word_start(hay, found) {
            score += 3;
        }
        prev = Some(found);
        pos = found + 1;
    }
    if let Some(at) = find_sub(hay, word) {
        score += if at == 0 { 30 } else { 20 };
        if is_word_start(hay, at) {
            score += 5;
        }
    }
    Some(score)
}

fn find_sub(hay: &[char], word: &[char]) -> Option<usize> {
    if word.is_empty() || word.len() > hay.len() {
        return None;
    }
    hay.windows(word.len()).position(|w| w == word)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsequence_is_required_and_case_is_ignored() {
        assert!(fuzzy_score("SON4", "claude-sonnet-4").is_some());
        assert!(fuzzy_score("4son", "claude-sonnet-4").is_none());
        assert_eq!(fuzzy_score("", "anything"), Some(0));
        assert!(fuzzy_score("gpt mini", "gpt-4o-mini").is_some());
        assert!(fuzzy_score("gpt maxi", "gpt-4o-mini").is_none());
    }

    #[test]
    fn prefix_and_contiguous_matches_rank_first() {
        let texts = ["claude-sonnet", "s-o-n-n-e-t", "sonnet-4"];
        assert_eq!(fuzzy_rank("sonnet", texts), vec![2, 0, 1]);
    }
}
