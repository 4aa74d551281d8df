//! Resources where pi 1.6 finds them (issue 14): Agent Skills folders (`.agents/skills` of
//! the project and its ancestors up to the repository root, the user's `~/.agents/skills`)
//! and `AGENTS.override.md`, seen in the system prompt rho sends.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::path::Path;

use common::{chat_messages, reply, stderr, Sandbox};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().expect("parent")).expect("dirs");
    std::fs::write(path, text).expect("write");
}

fn skill(dir: &Path, name: &str) {
    let text = format!("---\nname: {name}\ndescription: The {name} skill.\n---\nDo {name}.\n");
    write(&dir.join(name).join("SKILL.md"), &text);
}

/// The system prompt of the last request.
async fn system_prompt(sb: &Sandbox, cwd: &Path, args: &[&str]) -> String {
    sb.server.push(reply("ok"));
    let out = sb
        .command(args)
        .current_dir(cwd)
        .output()
        .await
        .expect("rho runs");
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    chat_messages(&sb.server.last_body())
        .into_iter()
        .find(|(role, _)| role == "system")
        .map(|(_, text)| text)
        .expect("a system prompt")
}

#[tokio::test]
async fn agents_skills_of_the_repository_and_the_user_are_offered() {
    let sb = Sandbox::new().await;
    let repo = &sb.cwd;
    let pkg = repo.join("pkg");
    std::fs::create_dir_all(repo.join(".git")).expect("a repository");
    skill(&repo.join(".agents/skills"), "repo-skill");
    skill(&pkg.join(".agents/skills"), "pkg-skill");
    write(
        &pkg.join(".agents/skills/loose.md"),
        "---\nname: loose\ndescription: x\n---\n",
    );
    skill(&sb.agent.path().join(".agents/skills"), "home-skill");
    let args = ["--approve", "-p", "hi"];
    let prompt = system_prompt(&sb, &pkg, &args).await;
    for name in ["repo-skill", "pkg-skill", "home-skill"] {
        assert!(
            prompt.contains(&format!("<name>{name}</name>")),
            "{name}: {prompt}"
        );
    }
    assert!(
        !prompt.contains("<name>loose</name>"),
        "top-level .md is no skill there"
    );
}

#[tokio::test]
async fn project_agents_skills_wait_for_trust_but_the_users_do_not() {
    let sb = Sandbox::new().await;
    skill(&sb.cwd.join(".agents/skills"), "repo-skill");
    skill(&sb.agent.path().join(".agents/skills"), "home-skill");
    let prompt = system_prompt(&sb, &sb.cwd, &["-p", "hi"]).await;
    assert!(prompt.contains("<name>home-skill</name>"), "{prompt}");
    assert!(!prompt.contains("<name>repo-skill</name>"), "{prompt}");
}

#[tokio::test]
async fn agents_override_replaces_its_folders_agents_md() {
    let sb = Sandbox::new().await;
    write(&sb.cwd.join("AGENTS.md"), "plain project rules");
    write(
        &sb.cwd.join("AGENTS.override.md"),
        "overriding project rules",
    );
    write(&sb.agent.path().join("AGENTS.md"), "global rules");
    let prompt = system_prompt(&sb, &sb.cwd, &["-p", "hi"]).await;
    assert!(prompt.contains("overriding project rules"), "{prompt}");
    assert!(prompt.contains("global rules"), "{prompt}");
    assert!(!prompt.contains("plain project rules"), "{prompt}");
}
