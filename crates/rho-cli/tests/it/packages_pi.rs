//! A pi 1.6 user's packages in rho (issue 29): pi's settings.json with `packages` (object
//! entries with filters included) works unchanged, what pi installed under `~/.pi/agent` loads
//! without a reinstall (and without any npm or git process), project packages wait for
//! trust, and a session without packages starts no npm or git. One test installs with the
//! real pi 1.6 when it is here (as `.ci/run` arranges) and skips saying why elsewhere.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::packages_support;

use std::path::Path;
use std::process::Command;

use packages_support::{command, commit_all, fixture, logged, names, pack, text, World};
use serde_json::json;

/// Installs the tarball into pi's folder as pi 1.6 does (`npm install --prefix
/// ~/.pi/agent/npm`).
fn npm_install_as_pi(world: &World, tarball: &Path) {
    let prefix = world.pi_agent().join("npm");
    std::fs::create_dir_all(&prefix).expect("mkdir");
    std::fs::write(
        prefix.join("package.json"),
        "{\"name\":\"pi-extensions\",\"private\":true}",
    )
    .expect("package.json");
    let out = Command::new("npm")
        .arg("install")
        .arg(tarball)
        .args(["--prefix"])
        .arg(&prefix)
        .args(["--no-audit", "--no-fund"])
        .env("HOME", world.root())
        .output()
        .expect("npm");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn pis_settings_with_filters_and_pis_installs_load_without_npm_or_git() {
    let mut world = World::new();
    let src = world.root().join("pkgs/fx-pi");
    fixture(&src, "fx-pi", "1.0.0");
    let tarball = pack(&src, &world.root().join("pkgs"));
    npm_install_as_pi(&world, &tarball);
    let local = world.root().join("pkgs/fx-local");
    fixture(&local, "fx-local", "1.0.0");
    // As a pi user writes it: filters narrow each package; the local path is relative to
    // the settings file's folder.
    let npm_source = format!("npm:fx-pi@file:{}", tarball.display());
    world.set_setting(
        "packages",
        json!([
            {"source": npm_source, "extensions": [], "prompts": ["!prompts/fx-pi-draft.md"]},
            {"source": "../pkgs/fx-local", "skills": [], "prompts": ["+prompts/fx-local-draft.md", "!prompts/*.md"]}
        ]),
    );
    let log = world.log_processes();
    let (commands, stderr) = world.commands(&["--no-extensions"]);
    let found = names(&commands);
    for wanted in ["skill:fx-pi-skill", "fx-pi-review", "fx-local-draft"] {
        assert!(
            found.iter().any(|n| n == wanted),
            "{wanted}: {found:?}\n{stderr}"
        );
    }
    for unwanted in ["fx-pi-draft", "skill:fx-local-skill", "fx-local-review"] {
        assert!(
            !found.iter().any(|n| n == unwanted),
            "{unwanted}: {found:?}"
        );
    }
    let skill = command(&commands, "skill:fx-pi-skill").expect("skill");
    assert_eq!(
        skill["sourceInfo"]["baseDir"],
        json!(world.pi_agent().join("npm/node_modules/fx-pi")),
        "loaded from pi's folder"
    );
    assert_eq!(logged(&log), "", "no npm or git ran");
    assert!(
        !world.agent().join("npm").exists(),
        "nothing installed into rho's folder"
    );
    let list = world.rho(&["list"]);
    assert!(
        String::from_utf8_lossy(&list.stdout).contains(&format!(
            "  {npm_source} (filtered)\n    {}\n",
            world.pi_agent().join("npm/node_modules/fx-pi").display()
        )),
        "{}",
        text(&list)
    );
}

#[test]
fn a_session_without_packages_starts_no_npm_or_git() {
    let mut world = World::new();
    world.set_setting("theme", json!("dark"));
    let log = world.log_processes();
    let (commands, stderr) = world.commands(&[]);
    let names: Vec<&str> = commands.iter().filter_map(|c| c["name"].as_str()).collect();
    assert_eq!(names, ["llama", "mcp"], "only pi's built-ins: {stderr}");
    assert_eq!(logged(&log), "");
}

#[test]
fn project_packages_wait_until_the_project_is_trusted() {
    let world = World::new();
    let pkg = world.work().join("vendor/fx-proj");
    fixture(&pkg, "fx-proj", "1.0.0");
    let pi_dir = world.work().join(".pi");
    std::fs::create_dir_all(&pi_dir).expect("mkdir");
    std::fs::write(
        pi_dir.join("settings.json"),
        json!({"packages": ["../vendor/fx-proj"]}).to_string(),
    )
    .expect("settings");
    let refused = world.rho(&["install", "-l", "./vendor/fx-proj"]);
    assert_eq!(refused.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&refused.stderr),
        "Project is not trusted. Use --approve to modify local package config.\n"
    );
    assert!(!world.work().join(".rho").exists());
    let (commands, _) = world.commands(&["--no-extensions"]);
    assert!(command(&commands, "skill:fx-proj-skill").is_none());
    assert_eq!(
        String::from_utf8_lossy(&world.rho(&["list"]).stdout),
        "No packages installed.\n"
    );

    let (commands, _) = world.commands(&["--no-extensions", "--approve"]);
    let skill = command(&commands, "skill:fx-proj-skill").expect("trusted: loaded");
    assert_eq!(skill["sourceInfo"]["scope"], "project");
    let repo = world.root().join("pkgs/fx-git-proj");
    fixture(&repo, "fx-git-proj", "1.0.0");
    commit_all(&repo, "first");
    let source = format!("git:file://{}", repo.display());
    let out = world.rho(&["install", "-l", "--approve", &source]);
    assert!(out.status.success(), "{}", text(&out));
    let written: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(world.work().join(".rho/settings.json")).expect("written"),
    )
    .expect("json");
    assert_eq!(written, json!({"packages": [source]}));
    assert!(world.work().join(".rho/git/file").is_dir());
    let list = world.rho(&["list", "--approve"]);
    assert!(
        String::from_utf8_lossy(&list.stdout).starts_with("Project packages:\n  "),
        "{}",
        text(&list)
    );
}

#[test]
fn what_pi_16_installed_loads_in_rho_without_reinstalling() {
    let Ok((node, cli)) = rho_testkit::pi16::pi16() else {
        eprintln!("skipped: pi 1.6 is not installed here");
        return;
    };
    let mut world = World::new();
    let src = world.root().join("pkgs/fx-real");
    fixture(&src, "fx-real", "2.0.0");
    let tarball = pack(&src, &world.root().join("pkgs"));
    let source = format!("npm:fx-real@file:{}", tarball.display());
    let out = Command::new(node)
        .arg(cli)
        .args(["install", &source])
        .current_dir(world.work())
        .env("HOME", world.root())
        .env("PI_CODING_AGENT_DIR", world.pi_agent())
        .output()
        .expect("pi runs");
    assert!(out.status.success(), "pi install: {}", text(&out));
    // The pi user brings the settings file across; the installs stay where pi put them.
    std::fs::copy(
        world.pi_agent().join("settings.json"),
        world.agent().join("settings.json"),
    )
    .expect("copy settings");
    let log = world.log_processes();
    let (commands, stderr) = world.commands(&["--no-extensions"]);
    assert!(
        command(&commands, "skill:fx-real-skill").is_some(),
        "{:?}\n{stderr}",
        names(&commands)
    );
    assert_eq!(logged(&log), "", "found without npm");
}
