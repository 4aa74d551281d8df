//! The threshold side of the compaction check after a reply (COMP-5, COMP-11). Pure: the
//! session layer supplies the reply, the agent state and the latest compaction's time; the
//! overflow side (COMP-6..10) needs the provider's overflow patterns and lives with them.

use rho_agent::AgentMessage;
use rho_ai::{AssistantMessage, Model, StopReason};

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
pub fn threshold_tokens<M: std::borrow::Borrow<AgentMessage>>(
    reply: &AssistantMessage,
    state: &[M],
    latest_compaction_timestamp: Option<i64>,
) -> Option<u64> {
    if reply.stop_reason != StopReason::Error {
        return Some(context_tokens(&reply.usage));
    }
    let estimate = estimate_context_tokens(state);
    let anchor = state.get(estimate.last_usage_index?)?;
    if is_stale(anchor.borrow().timestamp(), latest_compaction_timestamp) {
        return None;
    }
    Some(estimate.tokens)
}

/// Where the check runs (COMP-4): after a run, or before sending a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckPoint {
    /// After `agent_end`: aborted replies are skipped.
    PostRun,
    /// Before a prompt is sent: aborted replies count too.
    PrePrompt,
}

/// The threshold check of rho's post-run chain (decisions D2, D3; COMP-3, COMP-5, COMP-11),
/// guards in order: disabled → no; aborted reply after a run → no; reply from another
/// provider/model than `current` → no (D3: rho skips both branches for such replies);
/// stale reply → no; otherwise COMP-3 on the COMP-11 tokens with `current`'s window.
pub fn threshold_check<M: std::borrow::Borrow<AgentMessage>>(
    reply: &AssistantMessage,
    state: &[M],
    latest_compaction_timestamp: Option<i64>,
    settings: &CompactionSettings,
    current: &Model,
    point: CheckPoint,
) -> bool {
    if !settings.enabled
        || (point == CheckPoint::PostRun && reply.stop_reason == StopReason::Aborted)
        || reply.provider != current.provider
        || reply.model != current.id
        || is_stale(reply.timestamp, latest_compaction_timestamp)
    {
        return false;
    }
    threshold_tokens(reply, state, latest_compaction_timestamp)
        .is_some_and(|tokens| settings.should_compact(tokens, current.context_window))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_support::*;

    fn reply(m: &AgentMessage) -> &AssistantMessage {
        m.as_assistant().expect("assistant")
    }

    /// The model the test_support assistants come from, with a 128k window.
    fn current() -> Model {
        let mut m = model();
        m.id = "m".into();
        m
    }

    fn check(reply: &AssistantMessage, state: &[AgentMessage], compaction: Option<i64>) -> bool {
        let s = CompactionSettings::default();
        threshold_check(
            reply,
            state,
            compaction,
            &s,
            &current(),
            CheckPoint::PostRun,
        )
    }

    #[test]
    fn successful_reply_uses_its_own_usage() {
        let a = assistant("ok", 120_000);
        assert_eq!(
            threshold_tokens::<AgentMessage>(reply(&a), &[], None),
            Some(120_000)
        );
        assert!(check(reply(&a), &[], None));
        let small = assistant("ok", 1_000);
        assert!(!check(reply(&small), &[], None));
    }

    #[test]
    fn comp_11_error_reply_is_estimated_from_the_state() {
        let big = assistant("done", 115_000);
        let err = error_assistant("", 0);
        let state = vec![user("go"), big, user(&chars(4_000)), err.clone()];
        // 115000 + 1000 (user) + 0 (empty error text) = 116000 > 111616.
        assert_eq!(threshold_tokens(reply(&err), &state, None), Some(116_000));
        assert!(check(reply(&err), &state, None));
    }

    #[test]
    fn error_reply_without_any_usage_never_compacts() {
        let err = error_assistant("", 0);
        let state = vec![user(&chars(1_000_000)), err.clone()];
        assert_eq!(threshold_tokens(reply(&err), &state, None), None);
    }

    #[test]
    fn comp_5_stale_messages_are_skipped() {
        // test_support assistants carry timestamp 2.
        let a = assistant("ok", 500_000);
        assert!(!check(reply(&a), &[], Some(2)));
        assert!(check(reply(&a), &[], Some(1)));
        let err = error_assistant("", 0);
        let mut fresh_err = err.clone();
        if let AgentMessage::Assistant(e) = &mut fresh_err {
            e.timestamp = 50;
        }
        let state = vec![a.clone(), fresh_err.clone()];
        // The anchoring assistant (ts 2) predates the compaction (ts 10).
        assert_eq!(threshold_tokens(reply(&fresh_err), &state, Some(10)), None);
    }

    #[test]
    fn comp_4_and_post_5_guards_disabled_aborted_and_other_model() {
        let a = assistant("ok", 500_000);
        let mut aborted = a.clone();
        if let AgentMessage::Assistant(x) = &mut aborted {
            x.stop_reason = StopReason::Aborted;
        }
        let s = CompactionSettings::default();
        let cur = current();
        assert!(!check(reply(&aborted), &[], None));
        assert!(threshold_check::<AgentMessage>(
            reply(&aborted),
            &[],
            None,
            &s,
            &cur,
            CheckPoint::PrePrompt
        ));
        let off = CompactionSettings {
            enabled: false,
            ..s
        };
        assert!(!threshold_check::<AgentMessage>(
            reply(&a),
            &[],
            None,
            &off,
            &cur,
            CheckPoint::PrePrompt
        ));
        let mut other = cur.clone();
        other.id = "another-model".into();
        assert!(!threshold_check::<AgentMessage>(
            reply(&a),
            &[],
            None,
            &s,
            &other,
            CheckPoint::PostRun
        ));
        other = cur.clone();
        other.provider = "openai".into();
        assert!(!threshold_check::<AgentMessage>(
            reply(&a),
            &[],
            None,
            &s,
            &other,
            CheckPoint::PostRun
        ));
    }

    #[test]
    fn comp_12_uses_the_current_models_window() {
        let a = assistant("ok", 100_000);
        let s = CompactionSettings::default();
        let mut cur = current();
        assert!(!threshold_check::<AgentMessage>(
            reply(&a),
            &[],
            None,
            &s,
            &cur,
            CheckPoint::PostRun
        ));
        cur.context_window = 110_000;
        assert!(threshold_check::<AgentMessage>(
            reply(&a),
            &[],
            None,
            &s,
            &cur,
            CheckPoint::PostRun
        ));
    }
}
