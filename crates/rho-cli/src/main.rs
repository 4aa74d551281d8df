//! The `rho` binary: parses flags and dispatches to a run mode.

mod args;
mod credentials;
mod print_mode;
mod rpc;
mod startup;

use std::io::{IsTerminal, Read};
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
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("Error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(run(args))
}

async fn run(args: args::Args) -> ExitCode {
    let startup = match startup::build_session(&args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("Error: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    for w in &startup.warnings {
        eprintln!("Warning: {w}");
    }
    let mode = args.mode.unwrap_or_default();
    let stdin_is_tty = std::io::stdin().is_terminal();
    match mode {
        args::Mode::Rpc => rpc::run(startup.session, &args).await,
        args::Mode::Json => {
            print_mode::run(
                startup.session,
                messages_with_stdin(&args, stdin_is_tty),
                true,
            )
            .await
        }
        args::Mode::Text if args.print || !stdin_is_tty => {
            print_mode::run(
                startup.session,
                messages_with_stdin(&args, stdin_is_tty),
                false,
            )
            .await
        }
        args::Mode::Text => {
            eprintln!("Error: the interactive mode is not available in this build yet; use -p");
            ExitCode::FAILURE
        }
    }
}

/// The messages, with piped stdin prepended to the first one (interfaces spec §3).
fn messages_with_stdin(args: &args::Args, stdin_is_tty: bool) -> Vec<String> {
    let mut messages = args.messages.clone();
    if !stdin_is_tty {
        let mut piped = String::new();
        if std::io::stdin().read_to_string(&mut piped).is_ok() && !piped.trim().is_empty() {
            match messages.first_mut() {
                Some(first) => *first = format!("{}\n\n{first}", piped.trim_end()),
                None => messages.push(piped.trim_end().to_string()),
            }
        }
    }
    messages
}
