//! The `rho` binary: parses flags and dispatches to a run mode.

mod args;
mod auth_cli;
mod builtin_commands;
mod config_cli;
mod credentials;
mod echo_off;
mod extension_processes;
mod extension_providers;
mod extension_refresh;
mod extensions;
mod file_args;
mod interactive_host;
mod list_models;
mod login_cli;
mod malloc_arenas;
mod mcp;
mod mcp_cli;
mod model_catalog;
mod model_select;
mod package_command;
mod packages;
mod permissions_check;
mod permissions_setup;
mod pi_supervisor;
mod plan;
mod project;
mod resources;
mod sandbox_setup;
mod session_open;
mod session_reload;
mod signals;
mod startup;
mod tool_names;
mod trust_extensions;

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use plan::RunMode;

fn main() -> ExitCode {
    malloc_arenas::configure();
    // Every child (tools, `!cmd`, extensions, MCP servers, package commands) can tell it runs
    // under a coding agent, as under pi; set before any thread exists.
    for (name, value) in rho_session::env::PROCESS_MARKERS {
        std::env::set_var(name, value);
    }
    apply_http_proxy();
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match argv.first().map(String::as_str) {
        Some("mcp") => return mcp_cli::command(&argv[1..]),
        Some(verb @ ("login" | "logout")) => return login_cli::command(verb, &argv[1..]),
        Some("auth") => return auth(&argv[1..]),
        Some("permissions") => return permissions_check::command(&argv[1..]),
        Some("config") => return config_cli::command(&argv[1..]),
        _ => {}
    }
    if package_command::verb(&argv).is_some() {
        return package_command::command(&argv);
    }
    let args = args::parse(&argv);
    if !args.errors.is_empty() {
        for error in &args.errors {
            eprintln!("Error: {error}");
        }
        return ExitCode::FAILURE;
    }
    if args.help {
        print!("{}", args::help_text());
        return ExitCode::SUCCESS;
    }
    if args.version {
        println!("{}", env!("CARGO_PKG_VERSION"));
        return ExitCode::SUCCESS;
    }
    // `--name` flags may belong to extensions: a session checks them once they registered.
    let claims_flags = args.list_models.is_none() && args.export.is_none();
    if let Some(err) = args.unknown_options_error(&[]) {
        if !claims_flags || !args.unknown_short.is_empty() {
            eprintln!("{err}");
            return ExitCode::FAILURE;
        }
    }
    if let Some(search) = &args.list_models {
        return list_models(&args, search.as_deref());
    }
    if let Some(session) = &args.export {
        return export(session, args.messages.first().map(String::as_str));
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
    // Every mode, RPC included, ends on a termination signal the same way, from start-up
    // through its clean-up: extensions first, then every child group.
    let signals = {
        let _context = runtime.enter();
        signals::exit_on_termination()
    };
    runtime.spawn(signals);
    let code = runtime.block_on(run(args));
    // Nothing outlives rho: background children of finished commands are still in their
    // process groups.
    rho_process::end_all_groups();
    // A mode that ends without end of input (RPC after an extension's `ctx.shutdown`) leaves a
    // stdin read blocked on its thread: do not wait for it forever.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    code
}

async fn run(mut args: args::Args) -> ExitCode {
    let stdin_is_tty = std::io::stdin().is_terminal();
    let mode = RunMode::resolve(&args, stdin_is_tty);
    if mode == RunMode::Rpc && !args.file_args.is_empty() {
        eprintln!("Error: @file arguments are not supported in RPC mode");
        return ExitCode::FAILURE;
    }
    // Print/JSON input (stdin, @files) is read first: a missing file stops the run before
    // any session is touched.
    let input = match headless_input(&args, mode, stdin_is_tty) {
        Ok(input) => input,
        Err(e) => {
            eprintln!("Error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let startup = match startup::start(&args, mode).await {
        Ok(s) => s,
        Err(e) => {
            eprintln!("Error: {e:#}");
            return ExitCode::FAILURE;
        }
    };
    for w in &startup.warnings {
        eprintln!("Warning: {w}");
    }
    if let Some(flag) = startup.trust_flag {
        args.approve = Some(flag);
    }
    let session = startup.session.clone();
    signals::set_session(session.clone());
    session.set_after_run(std::sync::Arc::new(malloc_arenas::release_freed));
    let code = run_mode(startup, &args, input).await;
    session.shut_down_extensions().await;
    mcp::shutdown().await;
    code
}

async fn run_mode(startup: startup::Startup, args: &args::Args, input: Option<Input>) -> ExitCode {
    if startup.mode != RunMode::Interactive {
        let reloader =
            session_reload::headless_reloader(args, startup.agent_dir.clone(), startup.mode);
        startup.session.set_reloader(reloader);
    }
    match startup.mode {
        // RPC and interactive attach their extension UI first, then emit session_start.
        RunMode::Rpc => {
            startup.catalog.refresh_in_background(args);
            let options = rho_rpc::RpcOptions {
                dialect: startup.dialect,
                scoped_models: args.models.clone(),
                package_of: packages::source_info,
            };
            rho_rpc::run(startup.session, options).await
        }
        RunMode::Json => {
            startup.session.start("startup").await;
            let (prompts, images) = input.unwrap_or_default();
            rho_rpc::print_mode::run(
                startup.session,
                prompts,
                images,
                rho_rpc::print_mode::Output::Json(startup.dialect),
            )
            .await
        }
        RunMode::Print => {
            startup.session.start("startup").await;
            let (prompts, images) = input.unwrap_or_default();
            rho_rpc::print_mode::run(
                startup.session,
                prompts,
                images,
                rho_rpc::print_mode::Output::Text,
            )
            .await
        }
        RunMode::Interactive => {
            let first = match interactive_input(args) {
                Ok(first) => first,
                Err(e) => {
                    eprintln!("Error: {e}");
                    return ExitCode::FAILURE;
                }
            };
            startup.catalog.refresh_in_background(args);
            let options = interactive_host::options(args, startup.agent_dir, startup.catalog);
            rho_interactive::run(startup.session, options, first).await
        }
    }
}

/// pi's `httpProxy` (global settings only) as `HTTP_PROXY` and `HTTPS_PROXY` for rho's HTTP
/// clients and its children, unless the environment names a proxy already; set before any
/// thread exists.
fn apply_http_proxy() {
    let Ok(agent_dir) = plan::agent_dir() else {
        return;
    };
    let settings = rho_core::settings::Settings::load_scopes(&agent_dir, None);
    let Some(proxy) = settings.http_proxy() else {
        return;
    };
    for name in ["HTTP_PROXY", "HTTPS_PROXY"] {
        if std::env::var_os(name).is_none() && std::env::var_os(name.to_lowercase()).is_none() {
            std::env::set_var(name, proxy);
        }
    }
}

/// `rho auth <verb> ...`: pi's login, logout and credential commands.
fn auth(argv: &[String]) -> ExitCode {
    let help = argv.iter().any(|a| a == "--help" || a == "-h");
    match argv.first().map(String::as_str) {
        None | Some("help") => {
            print!("{}", args::auth_help_text());
            ExitCode::SUCCESS
        }
        Some(_) if help => {
            print!("{}", args::auth_help_text());
            ExitCode::SUCCESS
        }
        Some(verb @ ("login" | "logout")) => login_cli::command(verb, &argv[1..]),
        Some(verb) if auth_cli::is_auth_command(verb) => auth_cli::command(verb, &argv[1..]),
        Some(other) => {
            eprintln!(
                "Error: Unknown auth command \"{other}\". Use \"rho auth login\", \"rho auth logout\", \"rho auth print-api-key\", \"rho auth print-bearer-token\", or \"rho auth check\"."
            );
            ExitCode::FAILURE
        }
    }
}

/// Prompts and images.
type Input = (Vec<String>, Vec<rho_ai::ImageContent>);

/// The input of print and JSON modes; `None` in the modes that read stdin themselves (RPC)
/// or have no initial prompt (interactive).
fn headless_input(
    args: &args::Args,
    mode: RunMode,
    stdin_is_tty: bool,
) -> Result<Option<Input>, file_args::FileArgError> {
    if !matches!(mode, RunMode::Print | RunMode::Json) {
        return Ok(None);
    }
    read_input(args, stdin_is_tty).map(Some)
}

/// The prompts of print/JSON mode: piped stdin, `@file` blocks and the messages
/// (interfaces spec §3), and the images for the first prompt.
fn read_input(
    args: &args::Args,
    stdin_is_tty: bool,
) -> Result<(Vec<String>, Vec<rho_ai::ImageContent>), file_args::FileArgError> {
    let mut piped = None;
    if !stdin_is_tty {
        let mut text = String::new();
        if std::io::stdin().read_to_string(&mut text).is_ok() {
            piped = Some(text);
        }
    }
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    let files = file_args::process_file_args(&args.file_args, &cwd, home.as_deref())?;
    let prompts = file_args::initial_prompts(piped.as_deref(), &files.text, &args.messages);
    Ok((prompts, files.images))
}

/// The interactive mode's first prompt: @files and the messages, joined as print mode joins
/// them, sent when the screen opens.
fn interactive_input(
    args: &args::Args,
) -> Result<Option<rho_interactive::InitialPrompt>, file_args::FileArgError> {
    if args.file_args.is_empty() && args.messages.is_empty() {
        return Ok(None);
    }
    let (prompts, images) = read_input(args, true)?;
    Ok(Some(rho_interactive::InitialPrompt {
        text: prompts.join("\n\n"),
        images,
    }))
}

/// `--export <session.jsonl> [out.html]`: prints `Exported to: <path>` and exits 0.
fn export(session: &str, out: Option<&str>) -> ExitCode {
    let cwd = std::env::current_dir().unwrap_or_else(|_| std::path::PathBuf::from("."));
    match rho_export::export_session(&cwd.join(session), out, &cwd) {
        Ok(path) => {
            println!("Exported to: {}", path.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

/// `--list-models [search]`: prints the table (or pi's empty-case text) and exits 0.
fn list_models(args: &args::Args, search: Option<&str>) -> ExitCode {
    match startup::list_models_text(args, search) {
        Ok((text, warnings)) => {
            for w in warnings {
                eprintln!("Warning: {w}");
            }
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("Error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
