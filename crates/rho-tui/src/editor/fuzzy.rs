//! Ranking for the completion popups: the crate's fuzzy match (query characters in order,
//! contiguous and word-start matches first), with shorter candidates winning ties.

/// Score of `candidate` for `query`, higher is better; `None` when it does not match. An
/// empty query scores everything 0, so the list keeps its order.
pub(crate) fn score(query: &str, candidate: &str) -> Option<i64> {
    if query.is_empty() {
        return Some(0);
    }
    let len = candidate.chars().count() as i64;
    crate::fuzzy::fuzzy_score(query, candidate).map(|s| s * 1000 - len)
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
