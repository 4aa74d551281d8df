//! How full the context is, as the session reports it (COMP-21): unknown right after a
//! compaction, because the kept replies' usage measured the larger context before it.

use rho_agent::AgentMessage;
pub use rho_protocol::rpc::ContextUsage;

use super::entry::{last_compaction_index, PathEntry};
use super::tokens::{assistant_usage, context_tokens, estimate_context_tokens};

/// Whether the newest trustworthy reply after the branch's latest compaction reports a
/// non-zero usage (true when the branch has no compaction).
fn usage_known(path: &[PathEntry]) -> bool {
    let Some(ci) = last_compaction_index(path) else {
        return true;
    };
    path[ci + 1..]
        .iter()
        .rev()
        .filter_map(|e| e.as_message())
        .find_map(assistant_usage)
        .is_some_and(|u| context_tokens(u) > 0)
}

/// The context usage of the agent's `messages` on branch `path` in a window of
/// `context_window` tokens; `None` when the window is unknown (0).
pub fn context_usage<M: std::borrow::Borrow<AgentMessage>>(
    path: &[PathEntry],
    messages: &[M],
    context_window: u64,
) -> Option<ContextUsage> {
    if context_window == 0 {
        return None;
    }
    if !usage_known(path) {
        return Some(ContextUsage {
            tokens: None,
            context_window,
            percent: None,
        });
    }
    let tokens = estimate_context_tokens(messages).tokens;
    Some(ContextUsage {
        tokens: Some(tokens),
        context_window,
        percent: Some(tokens as f64 / context_window as f64 * 100.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::context_messages;
    use crate::test_support::*;
    use serde_json::json;

    fn usage_of(path: &[PathEntry]) -> Option<ContextUsage> {
        let msgs: Vec<AgentMessage> = context_messages(path)
            .into_iter()
            .map(|m| m.into_owned())
            .collect();
        context_usage(path, &msgs, 1_000)
    }

    #[test]
    fn known_without_compaction() {
        let path = vec![msg("u", user("hi")), msg("a", assistant("ok", 250))];
        let u = usage_of(&path).expect("window known");
        assert_eq!(u.tokens, Some(250));
        assert_eq!(u.percent, Some(25.0));
        assert_eq!(context_usage::<AgentMessage>(&path, &[], 0), None);
    }

    #[test]
    fn comp_21_unknown_after_compaction_until_a_new_reply() {
        let mut path = vec![
            msg("u", user("hi")),
            msg("a", assistant("ok", 900)),
            compaction_entry("c", "S", "u", json!({})),
        ];
        let u = usage_of(&path).expect("window known");
        assert_eq!((u.tokens, u.percent), (None, None));
        assert_eq!(
            serde_json::to_value(u).expect("serializes"),
            json!({"tokens": null, "contextWindow": 1000, "percent": null})
        );
        path.push(msg("u2", user("more")));
        path.push(msg("e", error_assistant("x", 0)));
        assert_eq!(usage_of(&path).expect("known window").tokens, None);
        path.push(msg("a2", assistant("ok", 300)));
        assert_eq!(usage_of(&path).expect("known window").tokens, Some(300));
    }
}
