//! The slash commands that copy, import, share, reload and scope: driven through the
//! [`Harness`] like the rest of the loop's tests.

use std::sync::Arc;

use rho_core::agent_session::{ReloadReport, StaticCredentials};
use rho_testkit::scripted::{ScriptedProvider, ScriptedReply};
use rho_tui::input::KeyCode;
use rho_tui::Input;

use super::Harness;

/// A harness whose session is a file in `<tempdir>/sessions`.
fn persisted(provider: &ScriptedProvider) -> Harness {
    Harness::configured(provider, 120, |c| {
        let dir = c.cwd.join("sessions");
        let cwd = c.cwd.to_string_lossy().into_owned();
        c.session = rho_session::SessionManager::create(&dir, &cwd);
    })
}

#[tokio::test]
async fn changelog_shows_rhos_own_changelog() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::new(&provider);
    h.keys(Input::typed("/changelog\n"));
    let screen = h.screen();
    assert!(screen.contains("[changelog]"), "{screen}");
    assert!(screen.contains("Unreleased"), "{screen}");
}

#[tokio::test]
async fn clone_continues_in_a_new_file_with_the_same_conversation() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("first answer"));
    let mut h = persisted(&provider);
    h.keys(Input::typed("/clone\n"));
    assert!(h.screen().contains("Nothing to clone yet"));
    h.keys(Input::typed("question\n"));
    h.until_event("agent_end").await;
    let before = h
        .session
        .with_session(|s| s.path().map(|p| p.to_path_buf()));
    h.keys(Input::typed("/clone\n"));
    h.next_msg().await;
    let screen = h.screen();
    assert!(screen.contains("Cloned to new session"), "{screen}");
    assert!(screen.contains("first answer"), "{screen}");
    let after = h
        .session
        .with_session(|s| s.path().map(|p| p.to_path_buf()));
    assert_ne!(before, after);
    let after = after.expect("a file");
    assert!(std::fs::read_to_string(after)
        .expect("written")
        .contains("first answer"));
}

#[tokio::test]
async fn import_asks_then_continues_the_file_with_its_id() {
    let provider = ScriptedProvider::new();
    let mut h = persisted(&provider);
    let cwd = h.session.cwd().to_string_lossy().into_owned();
    let source = h.session.cwd().join("shared.jsonl");
    let lines = [
        format!(r#"{{"type":"session","version":3,"id":"imported-1","timestamp":"2025-03-01T09:15:00.120Z","cwd":"{cwd}"}}"#),
        r#"{"type":"message","id":"a2","parentId":null,"timestamp":"2025-03-01T09:15:02.481Z","message":{"role":"user","content":[{"type":"text","text":"an imported question"}],"timestamp":1740820502481}}"#.to_string(),
    ];
    std::fs::write(&source, lines.join("\n") + "\n").expect("write");
    h.keys(Input::typed("/import\n"));
    assert!(h.screen().contains("Usage: /import <path.jsonl>"));
    h.keys(Input::typed("/import shared.jsonl\n"));
    assert!(h.screen().contains("Replace current session with"));
    h.keys(vec![Input::char('y')]);
    h.next_msg().await;
    let screen = h.screen();
    assert!(screen.contains("Session imported from:"), "{screen}");
    assert!(screen.contains("an imported question"), "{screen}");
    assert_eq!(
        h.session.with_session(|s| s.session_id().to_string()),
        "imported-1"
    );
    let copy = h
        .session
        .with_session(|s| s.path().map(|p| p.to_path_buf()))
        .expect("file");
    assert_eq!(
        copy.parent(),
        Some(h.session.cwd().join("sessions").as_path())
    );
    assert!(source.exists(), "the source stays");
}

#[tokio::test]
async fn share_uploads_the_html_export_as_a_secret_gist_through_gh() {
    let provider = ScriptedProvider::new();
    provider.push(ScriptedReply::text("shared answer"));
    let mut h = persisted(&provider);
    h.keys(Input::typed("question\n"));
    h.until_event("agent_end").await;
    // Without gh: a clear message.
    h.app
        .set_gh_program(std::path::Path::new("/nonexistent/gh"));
    h.keys(Input::typed("/share\n"));
    h.next_msg().await;
    assert!(h.screen().contains("GitHub CLI (gh) is not installed"));
    // A stand-in gh that records its arguments and the uploaded file.
    let bin = h.session.cwd().join("gh");
    let log = h.session.cwd().join("gh.log");
    let script = format!(
        "#!/bin/sh\necho \"$@\" >> {log}\nif [ \"$1\" = gist ]; then cp \"$4\" {log}.html; echo https://gist.github.com/ana/abc123; fi\n",
        log = log.display()
    );
    std::fs::write(&bin, script).expect("write gh");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    h.app.set_gh_program(&bin);
    h.keys(Input::typed("/share\n"));
    h.next_msg().await;
    let screen = h.screen();
    assert!(
        screen.contains("Gist: https://gist.github.com/ana/abc123"),
        "{screen}"
    );
    let calls = std::fs::read_to_string(&log).expect("gh ran");
    assert!(calls.contains("auth status"), "{calls}");
    assert!(calls.contains("gist create --public=false"), "{calls}");
    let page = std::fs::read_to_string(format!("{}.html", log.display())).expect("uploaded");
    assert!(page.starts_with("<!DOCTYPE html>") && page.contains("shared answer"));
}

#[tokio::test]
async fn scoped_models_limit_what_ctrl_p_cycles_through_and_can_be_saved() {
    let provider = ScriptedProvider::new();
    let mut h = Harness::configured(&provider, 120, |c| {
        c.credentials = Arc::new(StaticCredentials::new("anthropic", "k"));
    });
    h.keys(Input::typed("/scoped-models\n"));
    let screen = h.screen();
    assert!(screen.contains("all enabled"), "{screen}");
    // Clear, then enable the first two rows.
    h.keys(vec![Input::ctrl('x')]);
    assert!(h.screen().contains("0/"), "cleared");
    h.key(KeyCode::Enter);
    h.key(KeyCode::Down);
    h.key(KeyCode::Enter);
    assert!(h.screen().contains("2/"), "two enabled");
    h.keys(vec![Input::ctrl('s')]);
    let saved = h.session.with_settings(|s| s.string_list("enabledModels"));
    assert_eq!(saved.len(), 2, "{saved:?}");
    assert!(h
        .screen()
        .contains("Ctrl+P cycles through 2 models (saved to settings)"));
    // Ctrl+P now moves between those two only.
    let mut seen = Vec::new();
    for _ in 0..3 {
        h.keys(vec![Input::ctrl('p')]);
        h.next_msg().await;
        let m = h.session.model().expect("a model");
        seen.push(format!("{}/{}", m.provider, m.id));
    }
    assert!(
        seen.iter().all(|s| saved.contains(s)),
        "{seen:?} vs {saved:?}"
    );
    assert_ne!(seen[0], seen[1]);
    assert_eq!(seen[0], seen[2]);
}

#[tokio::test]
async fn reload_waits_for_the_host_then_shows_what_it_found() {
    let provider = ScriptedProvider::new();
    let agent = tempfile::tempdir().expect("agent dir");
    let mut h = Harness::new(&provider);
    h.app.set_agent_dir(agent.path());
    *h.host.reload_report.lock().expect("lock") = Some(ReloadReport {
        warnings: vec!["skill x: no description".into()],
        extensions: vec![h.session.cwd().join("ext/hello.ts").display().to_string()],
    });
    h.keys(Input::typed("/reload\n"));
    // Until it is done the editor gives way to a note and keys wait (pi's reload box).
    h.keys(Input::typed("x"));
    assert!(h.screen().contains("Reloading extensions"));
    h.next_msg().await;
    assert_eq!(h.app.editor_text(), "");
    let screen = h.screen();
    assert!(
        screen.contains("Reloaded extensions, settings, skills, prompts"),
        "{screen}"
    );
    assert!(
        screen.contains("Warning: skill x: no description"),
        "{screen}"
    );
    assert!(screen.contains("Loaded extensions: "), "{screen}");
    assert!(screen.contains("hello.ts"), "{screen}");
}
