//! Checks on an event stream as a client reads it.

use serde_json::Value;

/// Checks the nesting of agent runs, turns and messages (every `agent_start` has its
/// `agent_end`, every `turn_start` its `turn_end` inside a run, every `message_start` its
/// `message_end`, updates only inside a message); returns the ended assistant messages.
pub fn assert_well_formed(lines: &[Value]) -> Vec<Value> {
    let (mut in_agent, mut in_turn, mut in_message) = (false, false, false);
    let mut assistants = Vec::new();
    for line in lines {
        let open = |flag: &mut bool, what: &str| {
            assert!(!*flag, "{what} while one is open: {lines:#?}");
            *flag = true;
        };
        match line["type"].as_str() {
            Some("agent_start") => open(&mut in_agent, "agent_start"),
            Some("agent_end") => {
                assert!(in_agent && !in_turn, "unbalanced agent_end: {lines:#?}");
                in_agent = false;
            }
            Some("turn_start") => {
                assert!(in_agent, "turn_start outside a run: {lines:#?}");
                open(&mut in_turn, "turn_start");
            }
            Some("turn_end") => {
                assert!(in_turn && !in_message, "unbalanced turn_end: {lines:#?}");
                in_turn = false;
            }
            Some("message_start") => open(&mut in_message, "message_start"),
            Some("message_update") => assert!(in_message, "update outside a message: {lines:#?}"),
            Some("message_end") => {
                assert!(in_message, "message_end without a start: {lines:#?}");
                in_message = false;
                if line["message"]["role"] == "assistant" {
                    assistants.push(line["message"].clone());
                }
            }
            _ => {}
        }
    }
    assert!(
        !in_agent && !in_turn && !in_message,
        "left open: {lines:#?}"
    );
    assistants
}
