use serde_json::json;

use super::*;
use crate::extension::{Content, PROTOCOL_VERSION};

fn line<T: Serialize>(msg: &T) -> String {
    let mut buf = Vec::new();
    encode_line(msg, &mut buf).expect("encodes");
    String::from_utf8(buf).expect("utf8")
}

#[test]
fn rho_lines_are_one_tagged_object_each() {
    let hello: ToExtension = ToExtension::Hello(Hello {
        protocol_version: PROTOCOL_VERSION,
        cwd: "/w".into(),
        has_ui: true,
        flags: Map::from_iter([("v".to_string(), json!(true))]),
        mode: None,
        project_trusted: None,
    });
    assert_eq!(
        line(&hello),
        "{\"type\":\"hello\",\"protocolVersion\":1,\"cwd\":\"/w\",\"hasUI\":true,\"flags\":{\"v\":true}}\n"
    );
    let event = ToExtension::Event {
        id: 7,
        event: json!({"type": "agent_start"}),
    };
    assert_eq!(
        line(&event),
        "{\"type\":\"event\",\"id\":7,\"event\":{\"type\":\"agent_start\"}}\n"
    );
    let tool: ToExtension = ToExtension::Tool {
        id: 1,
        name: "t".into(),
        tool_call_id: "c1".into(),
        args: json!({"a": 1}),
    };
    assert_eq!(
        serde_json::to_value(tool).expect("encodes"),
        json!({"type": "tool", "id": 1, "name": "t", "toolCallId": "c1", "args": {"a": 1}})
    );
    let reply: ToExtension = ToExtension::Reply {
        id: 3,
        result: None,
        error: Some("no".into()),
    };
    assert_eq!(
        line(&reply),
        "{\"type\":\"reply\",\"id\":3,\"error\":\"no\"}\n"
    );
}

#[test]
fn rho_lines_parse_on_the_extension_side() {
    let m: ToExtension = serde_json::from_str(
        r#"{"type":"hello","protocolVersion":1,"cwd":"/w","hasUI":true,"flags":{"v":true}}"#,
    )
    .expect("parses");
    let ToExtension::Hello(h) = m else {
        panic!("hello expected, got {m:?}")
    };
    assert!(h.has_ui);
    assert_eq!(h.flags["v"], true);
    let m: ToExtension = serde_json::from_str(
        r#"{"type":"tool","id":2,"name":"t","toolCallId":"c1","args":{"a":1}}"#,
    )
    .expect("parses");
    assert!(matches!(m, ToExtension::Tool { id: 2, ref tool_call_id, .. } if tool_call_id == "c1"));
    let m: ToExtension =
        serde_json::from_str(r#"{"type":"reply","id":5,"error":"bad"}"#).expect("parses");
    assert!(matches!(
        m,
        ToExtension::Reply {
            id: 5,
            error: Some(_),
            ..
        }
    ));
    let m: ToExtension = serde_json::from_str(r#"{"type":"future_thing","x":1}"#).expect("parses");
    assert!(matches!(m, ToExtension::Unknown));
}

/// The lines that follow a start-up project trust decision: `trust` for every extension asked,
/// `load` for the pi host that takes the trusted project's own extensions.
#[test]
fn trust_and_load_lines_match_the_documented_shapes() {
    let line = |m: &ToExtension| serde_json::to_string(m).expect("encodes");
    assert_eq!(
        line(&ToExtension::Trust {
            project_trusted: true
        }),
        r#"{"type":"trust","projectTrusted":true}"#
    );
    let load = ToExtension::Load {
        id: 3,
        paths: vec!["/p/b.ts".into()],
        order: vec!["/p/b.ts".into(), "/u/a.ts".into()],
    };
    assert_eq!(
        line(&load),
        r#"{"type":"load","id":3,"paths":["/p/b.ts"],"order":["/p/b.ts","/u/a.ts"]}"#
    );
}

#[test]
fn extension_lines_match_the_documented_shapes() {
    let reg = Registration {
        name: "guard".into(),
        events: vec!["tool_call".into()],
        ..Registration::default()
    };
    let v = serde_json::to_value(FromExtension::<ToolResult>::Register(Box::new(reg)))
        .expect("encodes");
    assert_eq!(
        v,
        json!({"type": "register", "name": "guard", "events": ["tool_call"], "commands": [],
               "tools": [], "flags": [], "shortcuts": []})
    );
    let result: FromExtension = FromExtension::Result {
        id: 3,
        result: Some(Value::Null),
        error: None,
    };
    assert_eq!(
        line(&result),
        "{\"type\":\"result\",\"id\":3,\"result\":null}\n"
    );
    let failed: FromExtension = FromExtension::Result {
        id: 4,
        result: None,
        error: Some("no".into()),
    };
    assert_eq!(
        line(&failed),
        "{\"type\":\"result\",\"id\":4,\"error\":\"no\"}\n"
    );
    let call: FromExtension = FromExtension::Call {
        id: 1,
        method: "get_state".into(),
        params: json!({}),
    };
    assert_eq!(
        line(&call),
        "{\"type\":\"call\",\"id\":1,\"method\":\"get_state\",\"params\":{}}\n"
    );
    let update: FromExtension = FromExtension::ToolUpdate {
        id: 2,
        partial: ToolResult::text("50%"),
    };
    assert_eq!(
        line(&update),
        "{\"type\":\"tool_update\",\"id\":2,\"partial\":{\"content\":[{\"type\":\"text\",\"text\":\"50%\"}]}}\n"
    );
}

#[test]
fn extension_lines_parse_on_rhos_side() {
    let m: FromExtension =
        serde_json::from_str(r#"{"type":"result","id":2,"result":{"action":"handled"}}"#)
            .expect("parses");
    assert!(matches!(
        m,
        FromExtension::Result {
            id: 2,
            error: None,
            result: Some(_),
        }
    ));
    let m: FromExtension = serde_json::from_str(
        r#"{"type":"tool_update","id":4,"partial":{"content":[{"type":"text","text":"50%"}]}}"#,
    )
    .expect("parses");
    let FromExtension::ToolUpdate { id: 4, partial } = m else {
        panic!("tool_update expected, got {m:?}")
    };
    assert_eq!(partial.content, [Content::text("50%")]);
    let m: FromExtension =
        serde_json::from_str(r#"{"type":"call","id":1,"method":"get_state"}"#).expect("parses");
    assert!(matches!(
        m,
        FromExtension::Call {
            id: 1,
            params: Value::Null,
            ..
        }
    ));
    assert!(serde_json::from_str::<FromExtension>(r#"{"type":"bogus"}"#).is_err());
}

#[test]
fn registration_fills_defaults() {
    let r: Registration = serde_json::from_value(json!({
        "name": "x",
        "tools": [{"name": "t", "description": "d"}]
    }))
    .expect("parses");
    assert_eq!(r.tools[0].parameters["type"], "object");
    assert!(r.events.is_empty());
}

/// The sign-in's lines as the pi host writes and reads them (docs/extensions.md).
#[test]
fn sign_in_requests_and_calls_have_pis_field_names() {
    use crate::extension::calls::{
        LoginChoice, LoginNotice, LoginPrompt, OAuthNotify, OAuthPrompt,
    };
    let login: ToExtension = ToExtension::OauthLogin {
        id: 4,
        provider: "gitlab-duo".into(),
    };
    assert_eq!(
        line(&login),
        "{\"type\":\"oauth_login\",\"id\":4,\"provider\":\"gitlab-duo\"}\n"
    );
    let key: ToExtension = ToExtension::OauthApiKey {
        id: 5,
        provider: "p".into(),
        credentials: json!({"type": "oauth", "access": "a"}),
    };
    assert_eq!(
        serde_json::to_value(key).expect("encodes")["type"],
        "oauth_api_key"
    );
    let notify: OAuthNotify = serde_json::from_value(json!({
        "request": 4,
        "notice": {"type": "device_code", "userCode": "AB-12", "verificationUri": "https://x/d"}
    }))
    .expect("parses");
    assert_eq!(
        notify.notice,
        LoginNotice::DeviceCode {
            user_code: "AB-12".into(),
            verification_uri: "https://x/d".into()
        }
    );
    let url: OAuthNotify = serde_json::from_value(json!({
        "request": 4, "notice": {"type": "auth_url", "url": "https://x/a"}
    }))
    .expect("instructions are optional");
    assert!(matches!(
        url.notice,
        LoginNotice::AuthUrl {
            instructions: None,
            ..
        }
    ));
    let select: OAuthPrompt = serde_json::from_value(json!({
        "request": 4,
        "prompt": {"type": "select", "message": "How?", "options": [{"id": "b", "label": "Browser"}]}
    }))
    .expect("parses");
    assert_eq!(
        select.prompt,
        LoginPrompt::Select {
            message: "How?".into(),
            options: vec![LoginChoice {
                id: "b".into(),
                label: "Browser".into()
            }]
        }
    );
}
