//! The threshold side of the compaction check after a reply (COMP-5, COMP-11). Pure: the
//! session layer supplies the reply, the agent state and the latest compaction's time; the
//! overflow side (COMP-6..10) needs the provider's overflow patterns and lives with them.

use rho_agent::AgentMessage;
use rho_ai::{AssistantMessage, StopReason};

use super::settings::CompactionSettings;
use super::tokens::{context_tokens, estimate_context_tokens};

/// COMP-5: a message at or before the latest compaction on the branch is stale (its usage
/// describes the context before that compaction).
pub fn is_stale(message_timestamp: i64, latest_compaction_timestamp: Option<i64>) -> bool {
    latest_compaction_timestamp.is_some_and(|c| message_timestamp <= c)
}

/// COMP-11: the context tokens the threshold rule looks at for `reply`. For an error reply
/// the agent state is estimated (usage of the last assistant that is neither error nor
/// aborted, plus ⌈chars/4⌉ of every later message); `None` when no such assistant exists or
/// it is stale. Otherwise COMP-2 of the reply's own usage.
pub fn threshold_tokens(
    reply: &AssistantMessage,
    state: &[AgentMessage],
    latest_compaction_timestamp: Option<i64>,
) -> Option<u64> {
    if reply.stop_reason != StopReason::Error {
        return Some(context_tokens(&reply.usage));
    }
    let estimate = estimate_context_tokens(state);
    let anchor = state.get(estimate.last_usage_index?)?;
    if is_stale(anchor.timestamp(), latest_compaction_timestamp) {
        return None;
    }
    Some(estimate.tokens)
}

/// COMP-3 + COMP-11: whether `reply` calls for a threshold compaction in a window of
/// `context_window` tokens. Stale replies (COMP-5) never do.
pub fn needs_threshold_compaction(
    reply: &AssistantMessage,
    state: &[AgentMessage],
    latest_compaction_timestamp: Option<i64>,
    settings: &CompactionSettings,
    context_window: u64,
) -> bool {
    if !settings.enabled || is_stale(reply.timestamp, latest_compaction_timestamp) {
        return false;
    }
    threshold_tokens(reply, state, latest_compaction_timestamp)
        .is_some_and(|tokens| settings.should_compact(tokens, context_window))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compaction::test_support::*;

    fn reply(m: &AgentMessage) -> &AssistantMessage {
        m.as_assistant().expect("assistant")
    }

    #[test]
    fn successful_reply_uses_its_own_usage() {
        let a = assistant("ok", 120_000);
        let s = CompactionSettings::default();
        assert_eq!(threshold_tokens(reply(&a), &[], None), Some(120_000));
        assert!(needs_threshold_compaction(
            reply(&a),
            &[],
            None,
            &s,
            128_000
        ));
        let small = assistant("ok", 1_000);
        assert!(!needs_threshold_compaction(
            reply(&small),
            &[],
            None,
            &s,
            128_000
        ));
    }

    #[test]
    fn error_reply_is_estimated_from_the_state() {
        let big = assistant("done", 115_000);
        let err = error_assistant("", 0);
        let state = vec![user("go"), big, user(&chars(4_000)), err.clone()];
        // 115000 + 1000 (user) + 0 (empty error text) = 116000 > 111616.
        assert_eq!(threshold_tokens(reply(&err), &state, None), Some(116_000));
        let s = CompactionSettings::default();
        assert!(needs_threshold_compaction(
            reply(&err),
            &state,
            None,
            &s,
            128_000
        ));
    }

    #[test]
    fn error_reply_without_any_usage_never_compacts() {
        let err = error_assistant("", 0);
        let state = vec![user(&chars(1_000_000)), err.clone()];
        assert_eq!(threshold_tokens(reply(&err), &state, None), None);
    }

    #[test]
    fn stale_messages_are_skipped() {
        // test_support assistants carry timestamp 2.
        let a = assistant("ok", 500_000);
        let s = CompactionSettings::default();
        assert!(!needs_threshold_compaction(
            reply(&a),
            &[],
            Some(2),
            &s,
            128_000
        ));
        assert!(needs_threshold_compaction(
            reply(&a),
            &[],
            Some(1),
            &s,
            128_000
        ));
        let err = error_assistant("", 0);
        let mut fresh_err = err.clone();
        if let AgentMessage::Assistant(e) = &mut fresh_err {
            e.timestamp = 50;
        }
        let state = vec![a.clone(), fresh_err.clone()];
        // The anchoring assistant (ts 2) predates the compaction (ts 10).
        assert_eq!(threshold_tokens(reply(&fresh_err), &state, Some(10)), None);
    }
}
