//! `-e npm:<spec>` and `-e git:<repo>` (issue 38): pi 1.6's one-off packages. The package is
//! installed into the cache under the agent dir (`tmp/extensions/`, pi's layout), its
//! extension, skill and prompt load for that run only, settings.json is left as it was, the
//! next run reuses the install, and one that cannot be installed is a warning naming it while
//! rho answers without it. npm and git run for real; npm's registry is a closed loopback port.
//! One test runs pi 1.6.0 beside rho on the same `-e npm:` spec when it is installed.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::packages_support;

use std::path::Path;
use std::process::Command;

use packages_support::{
    command, commit_all, fixture, get_commands, logged, names, node, pack, World,
};
use serde_json::{json, Value};

/// A packed fixture named `name` and its `npm:` source.
fn packed(world: &World, name: &str) -> String {
    let src = world.root().join("pkgs").join(name);
    fixture(&src, name, "1.0.0");
    let tarball = pack(&src, &world.root().join("pkgs"));
    format!("npm:{name}@file:{}", tarball.display())
}

/// The settings file with `nodePath` (when node can run the fixture's extension); its text.
fn settings_with_node(world: &World) -> Option<String> {
    node().map(|node| world.set_setting("nodePath", json!(node)))?;
    std::fs::read_to_string(world.agent().join("settings.json")).ok()
}

fn settings_text(world: &World) -> Option<String> {
    std::fs::read_to_string(world.agent().join("settings.json")).ok()
}

#[test]
fn an_npm_package_loads_for_one_run_and_the_next_run_reuses_its_install() {
    let mut world = World::new();
    let source = packed(&world, "fx-tmp");
    world.set_setting("theme", json!("dark"));
    let with_node = settings_with_node(&world).is_some();
    let before = settings_text(&world);
    let log = world.log_processes();

    let (commands, stderr) = world.commands(&["-e", &source]);
    assert!(
        stderr.contains(&format!("Installing {source}...\n")),
        "{stderr}"
    );
    let installed = world
        .agent()
        .join("tmp/extensions/npm/f35b2129/node_modules/fx-tmp");
    let prompt = command(&commands, "fx-tmp-review")
        .unwrap_or_else(|| panic!("prompt missing: {:?}\n{stderr}", names(&commands)));
    assert_eq!(
        prompt["sourceInfo"],
        json!({"path": installed.join("prompts/fx-tmp-review.md"), "source": source,
               "scope": "temporary", "origin": "package", "baseDir": installed})
    );
    let skill = command(&commands, "skill:fx-tmp-skill").expect("skill");
    assert_eq!(
        skill["sourceInfo"],
        json!({"path": installed.join("skills/fx-tmp-skill/SKILL.md"), "source": "cli",
               "scope": "temporary", "origin": "top-level"}),
        "pi marks an -e package's skills as the command line's"
    );
    if with_node {
        let ext = command(&commands, "fx-tmp-hello")
            .unwrap_or_else(|| panic!("extension missing: {:?}\n{stderr}", names(&commands)));
        assert_eq!(ext["sourceInfo"]["source"], "cli");
    }
    assert!(
        logged(&log).contains("npm install fx-tmp@file:"),
        "{}",
        logged(&log)
    );
    assert_eq!(settings_text(&world), before, "settings.json untouched");
    assert!(!world.agent().join("npm").exists(), "no user install");

    std::fs::remove_file(&log).expect("clear the log");
    let (again, stderr) = world.commands(&["-e", &source]);
    assert!(command(&again, "skill:fx-tmp-skill").is_some(), "{stderr}");
    assert!(!stderr.contains("Installing"), "{stderr}");
    assert_eq!(
        logged(&log),
        "",
        "the cached install is reused, and a tarball has nothing newer to ask npm about"
    );

    std::fs::remove_file(&log).ok();
    let (offline, stderr) = world.commands(&["--offline", "-e", &source]);
    assert!(command(&offline, "fx-tmp-review").is_some(), "{stderr}");
    assert_eq!(
        logged(&log),
        "",
        "offline: the cache as it is, no npm at all"
    );

    let (without, _) = world.commands(&[]);
    assert!(
        command(&without, "skill:fx-tmp-skill").is_none(),
        "only for the run that names it"
    );
    assert_eq!(settings_text(&world), before);
}

#[test]
fn flags_that_switch_resources_off_leave_the_e_packages_on_as_in_pi() {
    let world = World::new();
    let source = packed(&world, "fx-flags");
    let (commands, stderr) = world.commands(&["-ne", "-ns", "-np", "-e", &source]);
    let found = names(&commands);
    for wanted in ["skill:fx-flags-skill", "fx-flags-review"] {
        assert!(
            found.iter().any(|n| n == wanted),
            "{wanted}: {found:?}\n{stderr}"
        );
    }
}

#[test]
fn a_package_that_cannot_be_installed_is_named_and_rho_answers_without_it() {
    let world = World::new();
    let (commands, stderr) = world.commands(&["-e", "npm:rho-no-such-fixture"]);
    assert_eq!(names(&commands), ["llama", "mcp"], "{stderr}");
    assert!(
        stderr.contains(
            "Extension package \"npm:rho-no-such-fixture\": failed to install (npm install rho-no-such-fixture --prefix "
        ) && stderr.contains("ECONNREFUSED")
            && stderr.contains("Check the source and try again."),
        "{stderr}"
    );
    assert!(settings_text(&world).is_none(), "no settings.json written");

    let (_, offline) = world.commands(&["--offline", "-e", "npm:rho-no-such-fixture"]);
    assert!(
        offline.contains(
            "Extension package \"npm:rho-no-such-fixture\": not installed, and offline mode"
        ),
        "{offline}"
    );
    assert!(!offline.contains("Installing"), "{offline}");

    world.set_setting("npmCommand", json!(["rho-no-npm-here"]));
    let (commands, stderr) = world.commands(&["-e", "npm:rho-no-such-fixture"]);
    assert_eq!(names(&commands), ["llama", "mcp"]);
    assert!(
        stderr.contains(
            "Extension package \"npm:rho-no-such-fixture\": failed to install (cannot run rho-no-npm-here: "
        ) && stderr.contains("is it installed and on PATH?"),
        "{stderr}"
    );
}

#[test]
fn a_git_package_is_cloned_into_the_cache_and_refreshed_on_the_next_run() {
    let mut world = World::new();
    let repo = world.root().join("pkgs/fx-tgit");
    fixture(&repo, "fx-tgit", "1.0.0");
    commit_all(&repo, "first");
    let source = format!("git:file://{}", repo.display());
    let log = world.log_processes();
    let (commands, stderr) = world.commands(&["-ne", "-e", &source]);
    let skill = command(&commands, "skill:fx-tgit-skill")
        .unwrap_or_else(|| panic!("{:?}\n{stderr}", names(&commands)));
    let path = skill["sourceInfo"]["path"].as_str().expect("path");
    assert!(
        path.starts_with(&format!(
            "{}/",
            world.agent().join("tmp/extensions/git-file").display()
        )),
        "{path}"
    );
    assert!(logged(&log).contains("git clone"), "{}", logged(&log));

    std::fs::write(
        repo.join("prompts/fx-tgit-later.md"),
        "---\ndescription: added later\n---\nlater\n",
    )
    .expect("write");
    commit_all(&repo, "second");
    std::fs::remove_file(&log).expect("clear the log");
    let (commands, stderr) = world.commands(&["-ne", "-e", &source]);
    assert!(
        stderr.contains(&format!("Refreshing {source}...")),
        "{stderr}"
    );
    assert!(!logged(&log).contains("git clone"), "{}", logged(&log));
    assert!(
        command(&commands, "fx-tgit-later").is_some(),
        "brought to the newest commit: {:?}",
        names(&commands)
    );
    assert!(settings_text(&world).is_none());
}

/// pi 1.6's `get_commands` with `args`, its agent dir `~/.pi/agent` of the world.
fn pi_commands(world: &World, node: &Path, cli: &Path, args: &[&str]) -> (Vec<Value>, String) {
    let mut pi = Command::new(node);
    pi.arg(cli)
        .args(["--mode", "rpc", "--no-session"])
        .args(args)
        .current_dir(world.work())
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", world.root())
        .env("PI_CODING_AGENT_DIR", world.pi_agent());
    get_commands(pi)
}

#[test]
fn the_same_e_npm_spec_gives_the_same_commands_in_rho_and_pi_16() {
    let Ok((node, cli)) = rho_testkit::pi16::pi16() else {
        eprintln!("skipped: pi 1.6 is not installed here");
        return;
    };
    let world = World::new();
    let source = packed(&world, "fx-side");
    world.set_setting("nodePath", json!(node));
    let (theirs, _) = pi_commands(&world, &node, &cli, &["-e", &source]);
    let (ours, stderr) = world.commands(&["-e", &source]);
    // Each installs into its own agent dir's cache, in the same place within it.
    let theirs = Value::Array(theirs).to_string().replace(
        &world.pi_agent().display().to_string(),
        &world.agent().display().to_string(),
    );
    let theirs: Value = serde_json::from_str(&theirs).expect("json");
    assert!(
        names(theirs.as_array().expect("list")).contains(&"fx-side-hello".to_string()),
        "pi loaded the package's extension: {theirs}"
    );
    assert_eq!(Value::Array(ours), theirs, "{stderr}");
}
