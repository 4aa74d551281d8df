//! Fuzzy matching for the completion popups: the query's characters must appear in order
//! (case-insensitively); prefix matches rank above substring matches, which rank above
//! scattered ones, and shorter candidates win ties.

/// Score of `candidate` for `query`, higher is better; `None` when it does not match.
pub(crate) fn score(query: &str, candidate: &str) -> Option<i64> {
    if query.is_empty() {
        return Some(0);
    }
    let q = query.to_lowercase();
    let c = candidate.to_lowercase();
    let len = c.chars().count() as i64;
    if c.starts_with(&q) {
        return Some(3000 - len);
    }
    if let Some(at) = c.find(&q) {
        let boundary = c[..at]
            .chars()
            .next_back()
            .is_some_and(|p| !p.is_alphanumeric());
        return Some(2000 - len - at as i64 + if boundary { 200 } else { 0 });
    }
    subsequence(&q, &c).map(|s| 1000 + s - len)
}

/// Scattered match: consecutive characters and characters after a separator earn points.
fn subsequence(q: &str, c: &str) -> Option<i64> {
    let mut want = q.chars().peekable();
    let mut points = 0;
    let mut prev_matched = false;
    let mut prev: Option<char> = None;
    for ch in c.chars() {
        let Some(&w) = want.peek() else { break };
        if ch == w {
            want.next();
            points += if prev_matched { 5 } else { 1 };
            if prev.is_none_or(|p| !p.is_alphanumeric()) {
                points += 3;
            }
            prev_matched = true;
        } else {
            prev_matched = false;
        }
        prev = Some(ch);
    }
    want.peek().is_none().then_some(points)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subsequences_match_case_insensitively() {
        assert!(score("mdl", "model").is_some());
        assert!(score("MOD", "model").is_some());
        assert!(score("ldm", "model").is_none());
        assert_eq!(score("", "anything"), Some(0));
    }

    #[test]
    fn prefix_beats_substring_beats_scattered() {
        let prefix = score("se", "session").unwrap();
        let inner = score("se", "close").unwrap();
        let scattered = score("se", "share").unwrap();
        assert!(
            prefix > inner && inner > scattered,
            "{prefix} {inner} {scattered}"
        );
    }

    #[test]
    fn shorter_candidates_win_ties() {
        assert!(score("co", "copy").unwrap() > score("co", "compact").unwrap());
    }
}
