//! `rho install`, `remove` (`uninstall`), `list` and `update`: pi 1.6's package commands with
//! its options, texts and exit codes. `-l` works on the project's `.rho/settings.json` and
//! needs a trusted project (`--approve` trusts it for one command). rho cannot update itself
//! (it is built with cargo), so `rho update` without a target updates the packages.

use std::path::Path;
use std::process::ExitCode;

use rho_core::settings::Settings;
use rho_core::trust::{DefaultTrust, TrustStore};
use rho_packages::{Listed, Scope};

use crate::args::Args;

/// Which package command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verb {
    /// `install`.
    Install,
    /// `remove` / `uninstall`.
    Remove,
    /// `update`.
    Update,
    /// `list`.
    List,
}

impl Verb {
    fn name(self) -> &'static str {
        match self {
            Verb::Install => "install",
            Verb::Remove => "remove",
            Verb::Update => "update",
            Verb::List => "list",
        }
    }

    fn usage(self) -> &'static str {
        match self {
            Verb::Install => "rho install <source> [-l] [--approve|--no-approve]",
            Verb::Remove => "rho remove <source> [-l] [--approve|--no-approve]",
            Verb::Update => "rho update [source] [--extensions|--all] [--extension <source>] [--approve|--no-approve]",
            Verb::List => "rho list [--approve|--no-approve]",
        }
    }
}

/// The verb `argv` starts with, if it is a package command.
pub fn verb(argv: &[String]) -> Option<Verb> {
    match argv.first()?.as_str() {
        "install" => Some(Verb::Install),
        "remove" | "uninstall" => Some(Verb::Remove),
        "update" => Some(Verb::Update),
        "list" => Some(Verb::List),
        _ => None,
    }
}

/// A parsed package command, or the first mistake in it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Options {
    /// The positional source.
    pub source: Option<String>,
    /// `-l`/`--local`.
    pub local: bool,
    /// `--approve` / `--no-approve`.
    pub approve: Option<bool>,
    /// `-h`/`--help`.
    pub help: bool,
    /// `update --self`, `update self|pi`: what rho cannot do.
    pub update_self: bool,
    /// `update --models`.
    pub update_models: bool,
    /// The mistake to report: the message and whether pi adds `Use "rho --help" or`.
    pub error: Option<(String, bool)>,
}

/// Reads the options of `verb` (pi's rules: the first mistake is the one reported).
pub fn parse(verb: Verb, rest: &[String]) -> Options {
    let mut o = Options::default();
    let mut flags = (false, false, false, false); // --self, --extensions, --all, --models
    let mut extension: Option<String> = None;
    let fail = |o: &mut Options, msg: String, use_help: bool| {
        if o.error.is_none() {
            o.error = Some((msg, use_help));
        }
    };
    let mut i = 0;
    while i < rest.len() {
        let arg = rest[i].as_str();
        let update = verb == Verb::Update;
        match arg {
            "-h" | "--help" => o.help = true,
            "-l" | "--local" if matches!(verb, Verb::Install | Verb::Remove) => o.local = true,
            "-a" | "--approve" => o.approve = Some(true),
            "-na" | "--no-approve" => o.approve = Some(false),
            "--self" if update => flags.0 = true,
            "--extensions" if update => flags.1 = true,
            "--all" if update => flags.2 = true,
            "--models" if update => flags.3 = true,
            "--force" if update => {}
            "--extension" if update => match rest.get(i + 1) {
                Some(v) if !v.starts_with('-') => {
                    if extension.is_some() {
                        fail(
                            &mut o,
                            "--extension can only be provided once".into(),
                            false,
                        );
                    }
                    extension = Some(v.clone());
                    i += 1;
                }
                _ => fail(&mut o, format!("Missing value for {arg}."), false),
            },
            _ if arg.starts_with('-') => {
                let msg = format!("Unknown option {arg} for \"{}\".", verb.name());
                fail(&mut o, msg, true)
            }
            _ if o.source.is_none() => o.source = Some(arg.to_string()),
            _ => fail(&mut o, format!("Unexpected argument {arg}."), false),
        }
        i += 1;
    }
    if verb == Verb::Update {
        let (self_flag, extensions, all, models) = flags;
        if extension.is_some() && o.source.is_some() {
            fail(
                &mut o,
                "--extension cannot be combined with a positional source".into(),
                false,
            );
        }
        if all && (self_flag || models || extension.is_some() || o.source.is_some()) {
            fail(
                &mut o,
                "--all cannot be combined with --self, --models, --extension or a source".into(),
                false,
            );
        }
        if o.source.is_none() {
            o.source = extension;
        }
        let positional_self = matches!(o.source.as_deref(), Some("self" | "pi"));
        if positional_self {
            o.source = None;
        }
        o.update_self = (self_flag || positional_self) && !extensions && !all;
        o.update_models = models;
    }
    o
}

fn help(verb: Verb) -> String {
    let body = match verb {
        Verb::Install => "Install a package and add it to settings.\n\nOptions:\n  -l, --local       Install project-locally (.rho/settings.json)\n  -a, --approve     Trust project-local files for this command\n  -na, --no-approve Ignore project-local files for this command\n\nExamples:\n  rho install npm:@foo/bar\n  rho install git:github.com/user/repo\n  rho install git:git@github.com:user/repo\n  rho install https://github.com/user/repo\n  rho install git:file:///path/to/repo\n  rho install ./local/path\n",
        Verb::Remove => "Remove a package and its source from settings.\nAlias: rho uninstall <source> [-l]\n\nOptions:\n  -l, --local       Remove from project settings (.rho/settings.json and .pi/settings.json)\n  -a, --approve     Trust project-local files for this command\n  -na, --no-approve Ignore project-local files for this command\n\nExamples:\n  rho remove npm:@foo/bar\n  rho uninstall npm:@foo/bar\n",
        Verb::Update => "Update installed packages (rho itself is updated with cargo).\n\nOptions:\n  --extensions            Update installed packages (the default)\n  --all                   The same, for pi's spelling\n  --extension <source>    Update one package only\n  -a, --approve           Trust project-local files for this command\n  -na, --no-approve       Ignore project-local files for this command\n",
        Verb::List => "List installed packages from user and project settings.\n\nOptions:\n  -a, --approve      Trust project-local files for this command\n  -na, --no-approve  Ignore project-local files for this command\n",
    };
    format!("Usage:\n  {}\n\n{body}", verb.usage())
}

/// Runs `rho <verb> ...`; `argv` starts with the verb.
pub fn command(argv: &[String]) -> ExitCode {
    let Some(verb) = verb(argv) else {
        return ExitCode::FAILURE;
    };
    let o = parse(verb, &argv[1..]);
    if o.help {
        print!("{}", help(verb));
        return ExitCode::SUCCESS;
    }
    let usage_error = |msg: &str, use_help: bool| {
        eprintln!("{msg}");
        if use_help {
            eprintln!("Use \"rho --help\" or \"{}\".", verb.usage());
        } else {
            eprintln!("Usage: {}", verb.usage());
        }
        ExitCode::FAILURE
    };
    if let Some((msg, use_help)) = &o.error {
        return usage_error(msg, *use_help);
    }
    if matches!(verb, Verb::Install | Verb::Remove) && o.source.is_none() {
        return usage_error(&format!("Missing {} source.", verb.name()), false);
    }
    if o.update_models {
        return crate::model_catalog::update_command();
    }
    if o.update_self {
        return fail("rho cannot update itself; build the new version with `cargo install --path crates/rho-cli` (run `rho update` to update packages)");
    }
    let Ok(cwd) = std::env::current_dir() else {
        return fail("cannot read the current directory");
    };
    run(verb, &o, &cwd)
}

fn fail(message: &str) -> ExitCode {
    eprintln!("Error: {message}");
    ExitCode::FAILURE
}

/// Whether the project's files may be used: the flag, else (for `update`, which asks no
/// one) only a saved decision, else as a non-interactive start decides.
fn trusted(verb: Verb, o: &Options, agent_dir: &Path, cwd: &Path, global: &Settings) -> bool {
    if verb == Verb::Update {
        let saved = TrustStore::new(agent_dir).get(cwd).ok().flatten();
        return o.approve.unwrap_or(saved == Some(true));
    }
    let default = global
        .global_value("defaultProjectTrust")
        .and_then(serde_json::Value::as_str);
    rho_core::trust::is_trusted(agent_dir, cwd, o.approve, DefaultTrust::parse(default))
}

fn run(verb: Verb, o: &Options, cwd: &Path) -> ExitCode {
    let agent_dir = rho_session::paths::agent_dir();
    let global = Settings::load_scopes(&agent_dir, None);
    let trusted = trusted(verb, o, &agent_dir, cwd, &global);
    if o.local && !trusted {
        eprintln!("Project is not trusted. Use --approve to modify local package config.");
        return ExitCode::FAILURE;
    }
    let project_dir = trusted.then(|| cwd.join(crate::project::PROJECT_DIR));
    let settings = Settings::load_scopes(&agent_dir, project_dir.as_deref());
    for w in &settings.warnings {
        eprintln!("Warning: {w}");
    }
    let args = Args::default();
    let manager = crate::packages::manager(
        &args,
        &settings,
        &agent_dir,
        cwd,
        project_dir.as_deref(),
        false,
    );
    let source = o.source.clone().unwrap_or_default();
    let result = match verb {
        Verb::Install => {
            println!("Installing {source}...");
            manager.install(&source, o.local).map(|()| {
                println!("Installed {source}");
                ExitCode::SUCCESS
            })
        }
        Verb::Remove => {
            println!("Removing {source}...");
            manager.remove(&source, o.local).map(|removed| {
                if removed {
                    println!("Removed {source}");
                    ExitCode::SUCCESS
                } else {
                    eprintln!("No matching package found for {source}");
                    ExitCode::FAILURE
                }
            })
        }
        Verb::List => {
            print!("{}", list_text(&manager.list()));
            Ok(ExitCode::SUCCESS)
        }
        Verb::Update => {
            let target = o.source.as_deref();
            manager
                .update(target, &mut |line| println!("{line}"))
                .map(|changes| {
                    print!("{}", update_text(target, &changes, manager.offline));
                    ExitCode::SUCCESS
                })
        }
    };
    result.unwrap_or_else(|e| fail(&e.to_string()))
}

/// pi's `list` output.
pub fn list_text(packages: &[Listed]) -> String {
    if packages.is_empty() {
        return "No packages installed.\n".into();
    }
    let mut out = String::new();
    for (scope, title) in [
        (Scope::User, "User packages:"),
        (Scope::Project, "Project packages:"),
    ] {
        let of: Vec<&Listed> = packages.iter().filter(|p| p.scope == scope).collect();
        if of.is_empty() {
            continue;
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(title);
        out.push('\n');
        for p in of {
            let filtered = if p.filtered { " (filtered)" } else { "" };
            out.push_str(&format!("  {}{filtered}\n", p.source));
            if let Some(path) = &p.installed {
                out.push_str(&format!("    {}\n", path.display()));
            }
        }
    }
    out
}

/// pi's summary after `update`.
fn update_text(target: Option<&str>, changes: &[String], offline: bool) -> String {
    if offline {
        return "Skipped package updates (offline mode)\n".into();
    }
    if changes.is_empty() {
        return match target {
            Some(t) => format!("{t} is already up to date\n"),
            None => "Packages are already up to date\n".into(),
        };
    }
    let plural = if changes.len() == 1 { "" } else { "s" };
    let mut out = format!("Updated {} package{plural}:\n", changes.len());
    for c in changes {
        out.push_str(&format!("  {c}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(verb: Verb, args: &[&str]) -> Options {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        parse(verb, &args)
    }

    #[test]
    fn options_and_mistakes_as_pi_reads_them() {
        let o = opts(Verb::Install, &["npm:x", "-l", "-a"]);
        assert_eq!(
            (o.source.as_deref(), o.local, o.approve),
            (Some("npm:x"), true, Some(true))
        );
        assert_eq!(
            opts(Verb::List, &["-l"]).error,
            Some(("Unknown option -l for \"list\".".into(), true))
        );
        assert_eq!(
            opts(Verb::Remove, &["a", "b"]).error,
            Some(("Unexpected argument b.".into(), false))
        );
        assert_eq!(
            opts(Verb::Update, &["--extension"]).error,
            Some(("Missing value for --extension.".into(), false))
        );
        let o = opts(Verb::Update, &["--extension", "npm:x"]);
        assert_eq!((o.source.as_deref(), o.update_self), (Some("npm:x"), false));
        assert!(opts(Verb::Update, &["--self"]).update_self);
        assert!(opts(Verb::Update, &["pi"]).update_self);
        let all = opts(Verb::Update, &["--all"]);
        assert!(!all.update_self && all.source.is_none() && all.error.is_none());
    }

    #[test]
    fn list_and_update_texts_are_pis() {
        let listed = [
            Listed {
                source: "npm:a".into(),
                scope: Scope::User,
                filtered: false,
                installed: Some("/agent/npm/node_modules/a".into()),
            },
            Listed {
                source: "./p".into(),
                scope: Scope::Project,
                filtered: true,
                installed: None,
            },
        ];
        assert_eq!(
            list_text(&listed),
            "User packages:\n  npm:a\n    /agent/npm/node_modules/a\n\nProject packages:\n  ./p (filtered)\n"
        );
        assert_eq!(list_text(&[]), "No packages installed.\n");
        assert_eq!(
            update_text(None, &["npm:a 1.0.0 -> 1.1.0".into()], false),
            "Updated 1 package:\n  npm:a 1.0.0 -> 1.1.0\n"
        );
        assert_eq!(
            update_text(Some("npm:a"), &[], false),
            "npm:a is already up to date\n"
        );
    }
}
