//! pi packages (issue 29): `rho install` from a local npm tarball and from a local git
//! repository, the package's extension, skill and prompt in a session, and `rho list`,
//! `remove` and `update` with pi 1.6's texts and files. npm and git run for real; npm's
//! registry is a closed loopback port, so nothing reaches the internet.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::packages_support;

use packages_support::{command, commit_all, fixture, names, node, pack, text, World};
use serde_json::{json, Value};

fn settings(world: &World) -> Value {
    let text = std::fs::read_to_string(world.agent().join("settings.json")).expect("settings");
    serde_json::from_str(&text).expect("json")
}

/// The package's extension (when node can run it), skill and prompt are offered, each
/// marked as coming from `source`.
fn assert_loaded(world: &World, name: &str, source: &str) {
    let mut args: Vec<String> = Vec::new();
    if let Some(node) = node() {
        world.set_setting("nodePath", json!(node));
    } else {
        args.push("--no-extensions".into());
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (commands, stderr) = world.commands(&args);
    let skill = command(&commands, &format!("skill:{name}-skill"))
        .unwrap_or_else(|| panic!("skill missing: {:?}\n{stderr}", names(&commands)));
    assert_eq!(skill["sourceInfo"]["source"], source, "{skill}");
    assert_eq!(skill["sourceInfo"]["origin"], "package");
    assert_eq!(skill["sourceInfo"]["scope"], "user");
    let prompt = command(&commands, &format!("{name}-review")).expect("prompt");
    assert_eq!(prompt["description"], format!("review with {name}"));
    if args.is_empty() {
        let ext = command(&commands, &format!("{name}-hello"))
            .unwrap_or_else(|| panic!("extension missing: {:?}\n{stderr}", names(&commands)));
        assert_eq!(ext["description"], format!("from {name}"));
    }
}

#[test]
fn an_npm_tarball_installs_and_its_extension_skill_and_prompt_load() {
    let world = World::new();
    let src = world.root().join("pkgs/fx-npm");
    fixture(&src, "fx-npm", "1.0.0");
    let tarball = pack(&src, &world.root().join("pkgs"));
    let source = format!("npm:fx-npm@file:{}", tarball.display());
    let out = world.rho(&["install", &source]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        text(&out).contains(&format!("Installing {source}...\n"))
            && text(&out).contains(&format!("Installed {source}\n")),
        "{}",
        text(&out)
    );
    assert_eq!(settings(&world)["packages"], json!([source]));
    let installed = world.agent().join("npm/node_modules/fx-npm");
    assert!(installed.join("extensions/fx-npm.ts").is_file());
    let list = world.rho(&["list"]);
    assert_eq!(
        String::from_utf8_lossy(&list.stdout),
        format!("User packages:\n  {source}\n    {}\n", installed.display())
    );
    assert_loaded(&world, "fx-npm", &source);
}

#[test]
fn a_git_repository_installs_loads_and_updates_to_its_newest_commit() {
    let world = World::new();
    let repo = world.root().join("pkgs/fx-git");
    fixture(&repo, "fx-git", "1.0.0");
    let first = commit_all(&repo, "first");
    let source = format!("git:file://{}", repo.display());
    let out = world.rho(&["install", &source]);
    assert!(out.status.success(), "{}", text(&out));
    let checkout = world
        .agent()
        .join("git/file")
        .join(repo.strip_prefix("/").expect("absolute"));
    assert!(checkout.join("skills/fx-git-skill/SKILL.md").is_file());
    assert_loaded(&world, "fx-git", &source);

    let up_to_date = world.rho(&["update"]);
    assert!(up_to_date.status.success(), "{}", text(&up_to_date));
    assert!(
        String::from_utf8_lossy(&up_to_date.stdout).ends_with("Packages are already up to date\n"),
        "{}",
        text(&up_to_date)
    );
    std::fs::write(
        repo.join("prompts/fx-git-later.md"),
        "---\ndescription: added later\n---\nlater\n",
    )
    .expect("write");
    let second = commit_all(&repo, "second");
    let updated = world.rho(&["update", &source]);
    assert!(updated.status.success(), "{}", text(&updated));
    assert!(
        String::from_utf8_lossy(&updated.stdout).ends_with(&format!(
            "Updated 1 package:\n  {source} {} -> {}\n",
            &first[..7],
            &second[..7]
        )),
        "{}",
        text(&updated)
    );
    let (commands, _) = world.commands(&["--no-extensions"]);
    assert!(
        command(&commands, "fx-git-later").is_some(),
        "{:?}",
        names(&commands)
    );
}

#[test]
fn remove_takes_the_package_out_of_settings_and_its_folder_as_pi_does() {
    let world = World::new();
    let src = world.root().join("pkgs/fx-rm");
    fixture(&src, "fx-rm", "1.0.0");
    let tarball = pack(&src, &world.root().join("pkgs"));
    let source = format!("npm:fx-rm@file:{}", tarball.display());
    assert!(world.rho(&["install", &source]).status.success());
    let out = world.rho(&["remove", "npm:fx-rm"]);
    assert!(out.status.success(), "{}", text(&out));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| l.starts_with("Remov"))
            .collect::<Vec<_>>(),
        ["Removing npm:fx-rm...", "Removed npm:fx-rm"]
    );
    assert_eq!(settings(&world)["packages"], json!([]));
    assert!(!world.agent().join("npm/node_modules/fx-rm").exists());
    let again = world.rho(&["uninstall", "npm:fx-rm"]);
    assert_eq!(again.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&again.stderr),
        "No matching package found for npm:fx-rm\n"
    );
    let list = world.rho(&["list"]);
    assert_eq!(
        String::from_utf8_lossy(&list.stdout),
        "No packages installed.\n"
    );
    let (commands, _) = world.commands(&["--no-extensions"]);
    assert!(command(&commands, "skill:fx-rm-skill").is_none());
}

#[test]
fn a_declared_package_missing_at_start_is_installed_and_one_that_cannot_be_is_a_warning() {
    let world = World::new();
    let src = world.root().join("pkgs/fx-start");
    fixture(&src, "fx-start", "1.0.0");
    let tarball = pack(&src, &world.root().join("pkgs"));
    let source = format!("npm:fx-start@file:{}", tarball.display());
    world.set_setting("packages", json!([source, "npm:rho-test-unreachable-pkg"]));
    let (commands, stderr) = world.commands(&["--no-extensions"]);
    assert!(
        command(&commands, "skill:fx-start-skill").is_some(),
        "{:?}\n{stderr}",
        names(&commands)
    );
    assert!(
        stderr.contains(&format!("Installing {source}...")),
        "{stderr}"
    );
    let warning = stderr
        .lines()
        .find(|l| l.contains("rho-test-unreachable-pkg\": failed to install ("))
        .unwrap_or_else(|| panic!("{stderr}"));
    assert!(warning.starts_with("Warning: Extension package \"npm:rho-test-unreachable-pkg\""));
    // npm's own output follows the failure, then pi's way out.
    assert!(
        stderr.contains(
            "). Run \"rho remove npm:rho-test-unreachable-pkg\" to remove it from settings.json."
        ),
        "{stderr}"
    );
    assert!(world.agent().join("npm/node_modules/fx-start").is_dir());
}

#[test]
fn bad_commands_get_pis_messages() {
    let world = World::new();
    let out = world.rho(&["install"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Missing install source.\nUsage: rho install <source> [-l] [--approve|--no-approve]\n"
    );
    let out = world.rho(&["list", "--bogus"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Unknown option --bogus for \"list\".\nUse \"rho --help\" or \"rho list [--approve|--no-approve]\".\n"
    );
    let out = world.rho(&["update", "npm:none"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "Error: No matching package found for npm:none\n"
    );
    let out = world.rho(&["install", "./missing"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).ends_with(&format!(
            "Error: Path does not exist: {}\n",
            world.work().join("missing").display()
        )),
        "{}",
        text(&out)
    );
    assert!(
        !world.agent().join("settings.json").exists(),
        "nothing written"
    );
}
