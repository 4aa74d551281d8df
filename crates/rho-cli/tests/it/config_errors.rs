//! Issue 17 #6: configuration mistakes are named, not silent or misleading: a malformed
//! auth.json entry is ignored with a warning naming the file and the entry (models.json's
//! `apiKey` still works), and an agent dir that is a file stops rho with the path and the fix.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use common::{reply, stderr, stdout, Sandbox};

#[tokio::test]
async fn a_malformed_auth_entry_warns_and_does_not_hide_the_models_json_key() {
    let sb = Sandbox::new().await;
    let auth = sb.agent.path().join("auth.json");
    std::fs::write(&auth, r#"{"mock": {"type": "api_key", "key": 42}}"#).expect("auth.json");
    sb.server.push(reply("keyed"));
    let out = sb.rho(&["-p", "--no-session", "hi"], None).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    assert_eq!(stdout(&out), "keyed\n");
    let req = &sb.server.requests()[0];
    assert_eq!(req.header("authorization"), Some("Bearer test-key"));
    assert!(
        err.contains(&format!("{}: entry \"mock\"", auth.display())),
        "names file and entry: {err}"
    );
    assert!(err.contains("\"key\" must be a string"), "says why: {err}");
}

#[tokio::test]
async fn an_agent_dir_that_is_a_file_is_named_with_the_fix() {
    let sb = Sandbox::new().await;
    let file = sb.cwd.join("not-a-dir");
    std::fs::write(&file, "x").expect("file");
    let out = sb
        .command(&["-p", "--no-session", "hi"])
        .env("RHO_CODING_AGENT_DIR", &file)
        .output()
        .await
        .expect("rho runs");
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(!err.contains("Unknown provider"), "{err}");
    assert!(
        err.contains(&format!("{} is a file, not a directory", file.display())),
        "{err}"
    );
    assert!(
        err.contains("RHO_CODING_AGENT_DIR"),
        "says what to do: {err}"
    );
    assert!(sb.server.requests().is_empty());
}

#[tokio::test]
async fn an_unknown_rpc_dialect_flag_stops_rho_and_a_bad_setting_warns() {
    let sb = Sandbox::new().await;
    let out = sb
        .rho(
            &["--mode", "json", "--rpc-dialect", "2", "--no-session", "hi"],
            None,
        )
        .await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "stderr: {err}");
    assert!(
        err.contains("--rpc-dialect: unknown RPC dialect \"2\""),
        "{err}"
    );
    assert!(sb.server.requests().is_empty());

    std::fs::write(
        sb.agent.path().join("settings.json"),
        r#"{"rpcDialect": "ultra"}"#,
    )
    .expect("settings");
    sb.server.push(reply("fine"));
    let out = sb.rho(&["-p", "--no-session", "hi"], None).await;
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    assert_eq!(stdout(&out), "fine\n");
    assert!(
        err.contains("settings.json rpcDialect: unknown RPC dialect \"ultra\""),
        "{err}"
    );
}
