//! The `rho` binary: parses flags and dispatches to a run mode.

mod args;

use std::process::ExitCode;

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let args = args::parse(&argv);
    if args.help {
        print!("{}", args::help_text());
        return ExitCode::SUCCESS;
    }
    if args.version {
        println!("{}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    if let Some(err) = args.unknown_options_error(&[]) {
        eprintln!("{err}");
        return ExitCode::FAILURE;
    }
    eprintln!("Error: this build of rho has no run modes yet; see --help");
    ExitCode::FAILURE
}
