//! Issue 17 #8 through the binary: with a sessions folder that cannot be written the prompt
//! still runs, the RPC client gets one error notice (pi's `notify` UI request with
//! `notifyType: "error"`), and once the folder is usable every entry reaches the file.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;
use crate::support;

use serde_json::{json, Value};
use support::{reply, Rpc, Start};

fn is_save_notice(v: &Value) -> bool {
    v["type"] == "extension_ui_request"
        && v["method"] == "notify"
        && v["notifyType"] == "error"
        && v["message"]
            .as_str()
            .is_some_and(|m| m.contains("not being saved"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unwritable_sessions_folder_is_reported_once_and_nothing_is_lost() {
    let home = tempfile::tempdir().expect("tempdir");
    let blocker = home.path().join("sessions");
    std::fs::write(&blocker, "a file where the sessions folder should be").expect("blocker");
    let mut rpc = Rpc::start_with(Start {
        with_sessions: true,
        home: Some(home),
        ..Start::default()
    })
    .await;
    rpc.server.push(reply("first answer"));
    assert_eq!(rpc.prompt_ok("p1", "first question").await, "first answer");
    let notice = rpc.wait(is_save_notice).await;
    assert!(
        notice["message"]
            .as_str()
            .is_some_and(|m| m.contains(&blocker.display().to_string())),
        "names the path: {notice}"
    );
    rpc.server.push(reply("second answer"));
    assert_eq!(
        rpc.prompt_ok("p2", "second question").await,
        "second answer"
    );

    std::fs::remove_file(&blocker).expect("unblock");
    rpc.server.push(reply("third answer"));
    rpc.prompt_ok("p3", "third question").await;
    let notices = rpc.seen.iter().filter(|v| is_save_notice(v)).count();
    assert_eq!(notices, 1, "one notice for the whole failure");
    let state = rpc.call(json!({"id": "s", "type": "get_state"})).await;
    let file = state["data"]["sessionFile"]
        .as_str()
        .expect("file")
        .to_string();
    let text = std::fs::read_to_string(&file).expect("written once the folder exists");
    for needle in [
        "first question",
        "first answer",
        "second question",
        "second answer",
        "third answer",
    ] {
        assert!(text.contains(needle), "{needle} saved");
    }
}

#[tokio::test]
async fn print_mode_warns_once_on_stderr_and_still_answers() {
    let sb = common::Sandbox::new().await;
    std::fs::write(sb.agent.path().join("sessions"), "not a folder").expect("blocker");
    sb.server.push(common::reply("answered"));
    let out = sb.rho(&["-p", "hi"], None).await;
    let err = common::stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(common::stdout(&out), "answered\n");
    assert_eq!(
        err.matches("Warning: The session is not being saved")
            .count(),
        1,
        "{err}"
    );
}
