//! `rho permissions check <tool> <argument>` and `/permissions check <tool> <argument>`:
//! the decision the rules in force make for one call (allow / ask / deny), the rule that
//! made it and, for `bash`, the simple command it matched. The exit status is 0 for allow,
//! 2 for ask, 1 for deny (64 for a usage error).

use std::process::ExitCode;

use rho_core::permissions::check::{check, explain};
use rho_core::permissions::Verdict;

/// The usage line.
pub const USAGE: &str = "Usage: rho permissions check <tool> <argument> [--permission-mode <mode>] [--approve]\n  \
     <argument> is the command for bash, the path for read/write/edit/grep/find/ls, and the arguments as JSON for other tools";

/// The subcommand: `argv` is what follows `rho permissions`.
pub fn command(argv: &[String]) -> ExitCode {
    let (positional, flags): (Vec<&String>, Vec<&String>) = split(argv);
    let [verb, tool, argument] = positional.as_slice() else {
        eprintln!("{USAGE}");
        return ExitCode::from(64);
    };
    if verb.as_str() != "check" {
        eprintln!("{USAGE}");
        return ExitCode::from(64);
    }
    let flags: Vec<String> = flags.into_iter().cloned().collect();
    let args = crate::args::parse(&flags);
    let agent_dir = rho_session::paths::agent_dir();
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut warnings = Vec::new();
    let project = crate::project::Project::resolve(args.approve, &agent_dir, &cwd, &mut warnings);
    let settings = project.settings(&agent_dir);
    warnings.extend(settings.warnings.iter().cloned());
    let permissions = match crate::permissions_setup::build(&args, &settings, &mut warnings) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::from(64);
        }
    };
    for w in &warnings {
        eprintln!("Warning: {w}");
    }
    match check(&permissions, &cwd, tool, argument) {
        Ok(decision) => {
            for line in explain(&decision) {
                println!("{line}");
            }
            ExitCode::from(match decision.verdict {
                Verdict::Allow => 0,
                Verdict::Ask(_) => 2,
                Verdict::Deny(_) => 1,
            })
        }
        Err(e) => {
            eprintln!("Error: {e}");
            ExitCode::from(64)
        }
    }
}

/// Words that are not flags (a flag's value goes with the flag).
fn split(argv: &[String]) -> (Vec<&String>, Vec<&String>) {
    let mut positional = Vec::new();
    let mut flags = Vec::new();
    let mut words = argv.iter();
    while let Some(word) = words.next() {
        if word == "--permission-mode" {
            flags.push(word);
            flags.extend(words.next());
        } else if word == "--approve" || word == "--no-approve" {
            flags.push(word);
        } else {
            positional.push(word);
        }
    }
    (positional, flags)
}
