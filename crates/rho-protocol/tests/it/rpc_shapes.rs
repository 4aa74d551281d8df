//! The RPC types encode in pi's field order, byte for byte (serde_json's preserve_order keeps
//! struct order), and read back.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_protocol::rpc::{
    LastAssistantText, Response, SessionState, SessionStats, SessionStatsReply, UiRequest,
    UiRequestKind,
};
use rho_protocol::ThinkingLevel;
use serde_json::{json, Value};

#[test]
fn envelopes_omit_what_is_unset() {
    let ok: Response = Response::success(Some(json!("q1")), "abort", None);
    assert_eq!(
        serde_json::to_string(&ok).expect("encodes"),
        r#"{"id":"q1","type":"response","command":"abort","success":true}"#
    );
    let failed: Response = Response::failure(None, "parse", "Failed".into());
    let line = serde_json::to_string(&failed).expect("encodes");
    assert_eq!(
        line,
        r#"{"type":"response","command":"parse","success":false,"error":"Failed"}"#
    );
    let back: Response = serde_json::from_str(&line).expect("parses");
    assert_eq!(back, failed);
}

#[test]
fn get_state_keeps_pis_order() {
    let state = SessionState {
        model: None,
        thinking_level: ThinkingLevel::Off,
        is_streaming: false,
        is_compacting: false,
        steering_mode: "one-at-a-time".into(),
        follow_up_mode: "all".into(),
        session_file: Some("/s.jsonl".into()),
        session_id: "abc".into(),
        session_name: None,
        auto_compaction_enabled: true,
        message_count: 2,
        pending_message_count: 0,
        mcp_servers: None,
    };
    assert_eq!(
        serde_json::to_string(&state).expect("encodes"),
        r#"{"thinkingLevel":"off","isStreaming":false,"isCompacting":false,"steeringMode":"one-at-a-time","followUpMode":"all","sessionFile":"/s.jsonl","sessionId":"abc","autoCompactionEnabled":true,"messageCount":2,"pendingMessageCount":0}"#
    );
}

#[test]
fn stats_put_the_session_after_the_totals() {
    let reply = SessionStatsReply {
        stats: SessionStats::default(),
        session_file: None,
        session_id: "abc".into(),
        context_usage: None,
    };
    let v = serde_json::to_value(&reply).expect("encodes");
    let keys: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "userMessages",
            "assistantMessages",
            "toolCalls",
            "toolResults",
            "totalMessages",
            "tokens",
            "cost",
            "sessionId"
        ]
    );
    let none = LastAssistantText { text: None };
    assert_eq!(serde_json::to_value(none).expect("encodes"), json!({}));
}

#[test]
fn ui_requests_carry_method_and_fields_after_the_id() {
    let line = |kind| serde_json::to_string(&UiRequest::new("u1".into(), kind)).expect("encodes");
    assert_eq!(
        line(UiRequestKind::Notify {
            message: "hi".into(),
            notify_type: None
        }),
        r#"{"type":"extension_ui_request","id":"u1","method":"notify","message":"hi"}"#
    );
    assert_eq!(
        line(UiRequestKind::SetStatus {
            status_key: "k".into(),
            status_text: Some("t".into())
        }),
        r#"{"type":"extension_ui_request","id":"u1","method":"setStatus","statusKey":"k","statusText":"t"}"#
    );
    assert_eq!(
        line(UiRequestKind::SetEditorText { text: "x".into() }),
        r#"{"type":"extension_ui_request","id":"u1","method":"set_editor_text","text":"x"}"#
    );
    let back: UiRequest = serde_json::from_str(
        r#"{"type":"extension_ui_request","id":"u2","method":"select","title":"T","options":["a"]}"#,
    )
    .expect("parses");
    assert_eq!(
        back.request,
        UiRequestKind::Select {
            title: "T".into(),
            options: vec!["a".into()],
            timeout: None,
        }
    );
    let _: Value = serde_json::to_value(back).expect("encodes");
}
