use super::*;
use serde_json::json;

fn write(root: &Path, files: &[&str]) {
    for rel in files {
        let path = root.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, "---\ndescription: d\n---\n").expect("write");
    }
}

fn settings(dir: &Path, value: Value) -> SettingsFile {
    SettingsFile {
        dir: dir.to_path_buf(),
        values: value.as_object().cloned().unwrap_or_default(),
    }
}

fn names(resolved: &Resolved, kind: Kind) -> Vec<String> {
    resolved
        .enabled(kind)
        .iter()
        .map(|p| {
            p.file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default()
        })
        .collect()
}

/// What pi 1.6 loads for the same folders and lists (checked side by side with
/// `get_commands`): a glob in a list keeps only its matches among the plain entries' files,
/// `!` and `-` leave files out of lists and folders alike, and project entries come first.
#[test]
fn lists_and_folders_resolve_as_pi_resolves_them() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let (agent, work) = (tmp.path().join("agent"), tmp.path().join("work"));
    write(
        tmp.path(),
        &[
            "agent/prompts/auto1.md",
            "agent/prompts/auto2.md",
            "agent/myprompts/a.md",
            "agent/myprompts/b.md",
            "agent/myprompts/draft-c.md",
            "agent/myprompts/sub/deep.md",
            "extra/p/x.md",
            "extra/p/y.md",
            "work/.pi/prompts/proj1.md",
            "work/.pi/extra/pe.md",
        ],
    );
    let extra = tmp.path().join("extra/p");
    let user = json!({"prompts": ["myprompts", "!**/draft-*", extra,
        format!("-{}", extra.join("y.md").display()), "!auto2.md", "*/b.md"]});
    let layout = Layout {
        user: settings(&agent, user),
        project: vec![
            settings(&work.join(".rho"), json!({})),
            settings(&work.join(".pi"), json!({"prompts": ["extra"]})),
        ],
        ..Layout::default()
    };
    let mut resolved = Resolved::default();
    resolved.add_top_level(&layout);
    assert_eq!(
        names(&resolved, Kind::Prompts),
        ["pe", "proj1", "b", "auto1"]
    );
    let origin = resolved
        .origin_of(&work.join(".pi/extra/pe.md"))
        .expect("origin");
    assert_eq!(
        (origin.provenance, origin.scope),
        (Provenance::Local, Scope::Project)
    );

    // Without the glob, every file of the plain entries loads but those switched off.
    let user = json!({"prompts": ["myprompts", "!**/draft-*", extra, "-../extra/p/y.md"]});
    let layout = Layout {
        user: settings(&agent, user),
        ..Layout::default()
    };
    let mut resolved = Resolved::default();
    resolved.add_top_level(&layout);
    assert_eq!(
        names(&resolved, Kind::Prompts),
        ["a", "b", "deep", "x", "auto1", "auto2"]
    );
}

#[test]
fn skills_come_from_lists_folders_and_agents_folders_in_precedence_order() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    write(
        root,
        &[
            "agent/skills/mine/SKILL.md",
            "agent/skills/loose.md",
            "lib/skills/listed/SKILL.md",
            "lib/skills/other/SKILL.md",
            "home/.agents/skills/shared/SKILL.md",
            "home/.agents/skills/notaskill.md",
            "work/.agents/skills/near/SKILL.md",
            "work/.rho/skills/proj/SKILL.md",
        ],
    );
    let layout = Layout {
        user: settings(
            &root.join("agent"),
            json!({"skills": ["../lib/skills", "!other", "-skills/loose.md"]}),
        ),
        project: vec![settings(&root.join("work/.rho"), json!({}))],
        project_agents_skills: vec![root.join("work/.agents/skills")],
        user_agents_skills: Some(root.join("home/.agents/skills")),
    };
    let mut resolved = Resolved::default();
    resolved.add_top_level(&layout);
    let folders: Vec<String> = resolved
        .enabled(Kind::Skills)
        .iter()
        .map(|p| patterns::relative(root, p))
        .collect();
    assert_eq!(
        folders,
        [
            "work/.rho/skills/proj/SKILL.md",
            "work/.agents/skills/near/SKILL.md",
            "lib/skills/listed/SKILL.md",
            "agent/skills/mine/SKILL.md",
            "home/.agents/skills/shared/SKILL.md",
        ]
    );
}

#[test]
fn extension_folders_and_lists_follow_pis_rules_and_rho_keeps_its_other_programs() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let root = tmp.path();
    write(
        root,
        &[
            "agent/extensions/hello.ts",
            "agent/extensions/tool.py",
            "agent/extensions/dir/index.ts",
            "agent/extensions/dir/helper.ts",
            "other/listed.ts",
            "work/.rho/extensions/same.ts",
            "work/.pi/extensions/same.ts",
            "work/.pi/extensions/pi-only.ts",
        ],
    );
    let layout = Layout {
        user: settings(
            &root.join("agent"),
            json!({"extensions": ["../other/listed.ts", "-extensions/hello.ts", "-builtin:mcp"]}),
        ),
        project: vec![
            settings(&root.join("work/.rho"), json!({})),
            settings(&root.join("work/.pi"), json!({})),
        ],
        ..Layout::default()
    };
    let mut resolved = Resolved::default();
    resolved.add_top_level(&layout);
    let found: Vec<String> = resolved
        .enabled(Kind::Extensions)
        .iter()
        .map(|p| patterns::relative(root, p))
        .collect();
    assert_eq!(
        found,
        [
            "work/.rho/extensions/same.ts",
            "work/.pi/extensions/pi-only.ts",
            "other/listed.ts",
            "agent/extensions/dir/index.ts",
            "agent/extensions/tool.py",
        ]
    );
    assert!(!resolved.builtin_enabled("mcp"));
    assert!(resolved.builtin_enabled("codemode"));
}

#[test]
fn a_projects_builtin_switch_wins_over_the_users_list() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let layout = |user: Value, project: Value| Layout {
        user: settings(tmp.path(), user),
        project: vec![settings(&tmp.path().join("p"), project)],
        ..Layout::default()
    };
    let on = |l: &Layout, name: &str| {
        let mut r = Resolved::default();
        r.add_top_level(l);
        r.builtin_enabled(name)
    };
    let user_off = json!({"extensions": ["-builtin:mcp", "!builtin:code*"]});
    assert!(!on(&layout(user_off.clone(), json!({})), "mcp"));
    assert!(!on(&layout(user_off.clone(), json!({})), "codemode"));
    let back_on = json!({"extensions": ["+builtin:mcp"]});
    assert!(on(&layout(user_off, back_on), "mcp"));
    let project_off = json!({"extensions": ["+builtin:mcp", "-builtin:mcp"]});
    assert!(!on(&layout(json!({}), project_off), "mcp"), "the last wins");
}
