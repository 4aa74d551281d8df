//! Command-line parsing with pi's exact rules (interfaces spec §7).
//!
//! Hand-written rather than clap: pi's flags include multi-letter single-dash forms (`-nt`,
//! `-nbt`, `-nc`…), `-p` that takes the next argument as a message, value flags that fall
//! through to "Unknown option" when last, and unknown `--name` flags collected for extensions.
//! clap cannot express those, and a pi user's scripts depend on them.

/// Output mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// Interactive TUI, or plain text output in print mode.
    #[default]
    Text,
    /// JSON event lines.
    Json,
    /// JSONL RPC over stdin/stdout.
    Rpc,
}

/// Every flag of the spec, parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Args {
    /// `-h`/`--help`.
    pub help: bool,
    /// `-v`/`--version`.
    pub version: bool,
    /// `--mode` (other values ignored).
    pub mode: Option<Mode>,
    /// `-p`/`--print`.
    pub print: bool,
    /// `--provider`.
    pub provider: Option<String>,
    /// `--model`.
    pub model: Option<String>,
    /// `--api-key`.
    pub api_key: Option<String>,
    /// `--thinking`.
    pub thinking: Option<String>,
    /// `--models`, split on commas.
    pub models: Option<Vec<String>>,
    /// `--list-models [search]`: `Some(None)` lists all.
    pub list_models: Option<Option<String>>,
    /// `-c`/`--continue`.
    pub continue_session: bool,
    /// `-r`/`--resume`.
    pub resume: bool,
    /// `--session`.
    pub session: Option<String>,
    /// `--fork`.
    pub fork: Option<String>,
    /// `--session-dir`.
    pub session_dir: Option<String>,
    /// `-n` / `--name`: the session's display name (pi 1.x).
    pub name: Option<String>,
    /// `--no-session`.
    pub no_session: bool,
    /// `-t`/`--tools`.
    pub tools: Option<Vec<String>>,
    /// `-nbt`/`--no-builtin-tools`.
    pub no_builtin_tools: bool,
    /// `-nt`/`--no-tools`.
    pub no_tools: bool,
    /// `-xt`/`--exclude-tools` (pi 1.x): tool names or `*` patterns to disable.
    pub exclude_tools: Option<Vec<String>>,
    /// `--session-id` (pi 1.x): open this directory's session with the id, else create it.
    pub session_id: Option<String>,
    /// `--system-prompt`.
    pub system_prompt: Option<String>,
    /// `--append-system-prompt` (repeatable).
    pub append_system_prompt: Vec<String>,
    /// `-e`/`--extension` (repeatable).
    pub extensions: Vec<String>,
    /// `-ne`/`--no-extensions`.
    pub no_extensions: bool,
    /// `--skill` (repeatable).
    pub skills: Vec<String>,
    /// `-ns`/`--no-skills`.
    pub no_skills: bool,
    /// `--no-mcp`: no MCP server for this run.
    pub no_mcp: bool,
    /// `--prompt-template` (repeatable).
    pub prompt_templates: Vec<String>,
    /// `-np`/`--no-prompt-templates`.
    pub no_prompt_templates: bool,
    /// `--theme` (repeatable): theme files or folders to load.
    pub themes: Vec<String>,
    /// `--use-theme <name>`: the interactive theme for this run, over the `theme` setting.
    pub use_theme: Option<String>,
    /// `--no-themes`.
    pub no_themes: bool,
    /// `-nc`/`--no-context-files`.
    pub no_context_files: bool,
    /// `--export <file>`.
    pub export: Option<String>,
    /// `--verbose`.
    pub verbose: bool,
    /// `--offline`.
    pub offline: bool,
    /// `--sandbox <off|read-only|workspace-write>`.
    pub sandbox: Option<String>,
    /// `--sandbox-network <on|off>`.
    pub sandbox_network: Option<String>,
    /// `--permission-mode <default|accept-edits|plan|bypass>`.
    pub permission_mode: Option<String>,
    /// `--rpc-dialect <1.x|0.73>`: the encoding of `--mode rpc` and `--mode json` (D15).
    pub rpc_dialect: Option<String>,
    /// `--tui-mode <regular|fullscreen>` (pi 1.x): the interactive layout, over `tuiMode`.
    pub tui_mode: Option<String>,
    /// `--approve` (`Some(true)`) / `--no-approve` (`Some(false)`): this run's project trust.
    pub approve: Option<bool>,
    /// `@path` arguments, in order.
    pub file_args: Vec<String>,
    /// Plain arguments: the messages.
    pub messages: Vec<String>,
    /// Unknown `--name[=value]` flags, for extensions to claim.
    pub extension_flags: Vec<(String, Option<String>)>,
    /// Unknown single-dash options (always an error).
    pub unknown_short: Vec<String>,
    /// Bad flag values, in pi's words (`Invalid mode "x". Valid values: text, json, rpc`):
    /// each is printed as an error and rho exits 1, before anything starts.
    pub errors: Vec<String>,
}

impl Args {
    /// The error for flags nobody claimed, `None` when all were known. `claimed` are the flag
    /// names extensions registered.
    pub fn unknown_options_error(&self, claimed: &[String]) -> Option<String> {
        if let Some(short) = self.unknown_short.first() {
            return Some(format!("Error: Unknown option: {short}"));
        }
        let unknown: Vec<String> = self
            .extension_flags
            .iter()
            .filter(|(n, _)| !claimed.contains(n))
            .map(|(n, _)| format!("--{n}"))
            .collect();
        match unknown.len() {
            0 => None,
            1 => Some(format!("Error: Unknown option: {}", unknown[0])),
            _ => Some(format!("Error: Unknown options: {}", unknown.join(", "))),
        }
    }
}

/// pi's check of a `--tools` (and `defaultTools`) list: `+name`/`-name` entries edit a
/// selection and cannot be mixed with plain names, and take exact names only.
pub fn tool_list_error(entries: &[String]) -> Option<String> {
    let modifiers: Vec<&String> = entries
        .iter()
        .filter(|e| e.starts_with('+') || e.starts_with('-'))
        .collect();
    if modifiers.is_empty() {
        return None;
    }
    if modifiers.len() < entries.len() {
        return Some("tool names cannot be mixed with +name or -name entries".into());
    }
    modifiers.iter().find(|e| e.contains('*')).map(|pattern| {
        format!("+name and -name entries take exact tool names, not patterns: {pattern}")
    })
}

fn split_list(v: &str) -> Vec<String> {
    v.split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// Parses `argv` (without the program name).
pub fn parse(argv: &[String]) -> Args {
    let mut a = Args::default();
    let mut i = 0;
    while i < argv.len() {
        let arg = argv[i].as_str();
        i += 1;
        let has_next = i < argv.len();
        macro_rules! value {
            () => {{
                if !has_next {
                    fall_through(&mut a, arg);
                    continue;
                }
                i += 1;
                argv[i - 1].clone()
            }};
        }
        match arg {
            "-h" | "--help" => a.help = true,
            "-v" | "--version" => a.version = true,
            "--" => {
                for rest in &argv[i..] {
                    match rest.strip_prefix('@') {
                        Some(file) => a.file_args.push(file.to_string()),
                        None => a.messages.push(rest.clone()),
                    }
                }
                break;
            }
            "--mode" => match argv.get(i).filter(|v| !v.starts_with('-')) {
                None => a.errors.push("--mode requires text, json, or rpc".into()),
                Some(v) => {
                    i += 1;
                    match v.as_str() {
                        "text" => a.mode = Some(Mode::Text),
                        "json" => a.mode = Some(Mode::Json),
                        "rpc" => a.mode = Some(Mode::Rpc),
                        _ => a.errors.push(format!(
                            "Invalid mode \"{v}\". Valid values: text, json, rpc"
                        )),
                    }
                }
            },
            "-p" | "--print" => {
                a.print = true;
                if let Some(next) = argv.get(i) {
                    let is_message = !(next.starts_with('@') || next.starts_with('-'))
                        || next.starts_with("---");
                    if is_message {
                        a.messages.push(next.clone());
                        i += 1;
                    }
                }
            }
            "--provider" => a.provider = Some(value!()),
            "--model" => a.model = Some(value!()),
            "--api-key" => a.api_key = Some(value!()),
            "--thinking" => a.thinking = Some(value!()),
            "--models" => a.models = Some(split_list(&value!())),
            "--list-models" => {
                let search = argv
                    .get(i)
                    .filter(|n| !n.starts_with('-') && !n.starts_with('@'))
                    .cloned();
                if search.is_some() {
                    i += 1;
                }
                a.list_models = Some(search);
            }
            "-c" | "--continue" => a.continue_session = true,
            "-r" | "--resume" => a.resume = true,
            "--session" => a.session = Some(value!()),
            "--fork" => a.fork = Some(value!()),
            "--session-dir" => a.session_dir = Some(value!()),
            "-n" | "--name" => match argv.get(i) {
                Some(name) => {
                    a.name = Some(name.clone());
                    i += 1;
                }
                None => a.errors.push("--name requires a value".into()),
            },
            "--no-session" => a.no_session = true,
            "-t" | "--tools" => {
                let list = split_list(&value!());
                match tool_list_error(&list) {
                    Some(e) => a.errors.push(format!("{arg}: {e}")),
                    None => a.tools = Some(list),
                }
            }
            "-nbt" | "--no-builtin-tools" => a.no_builtin_tools = true,
            "-nt" | "--no-tools" => a.no_tools = true,
            "-xt" | "--exclude-tools" => a.exclude_tools = Some(split_list(&value!())),
            "--session-id" => a.session_id = Some(value!()),
            "--system-prompt" => a.system_prompt = Some(value!()),
            "--append-system-prompt" => a.append_system_prompt.push(value!()),
            "-e" | "--extension" => a.extensions.push(value!()),
            "-ne" | "--no-extensions" => a.no_extensions = true,
            "--skill" => a.skills.push(value!()),
            "-ns" | "--no-skills" => a.no_skills = true,
            "--no-mcp" => a.no_mcp = true,
            "--prompt-template" => a.prompt_templates.push(value!()),
            "-np" | "--no-prompt-templates" => a.no_prompt_templates = true,
            "--theme" => a.themes.push(value!()),
            "--use-theme" => match argv.get(i).filter(|v| !v.starts_with('-')) {
                Some(name) => {
                    a.use_theme = Some(name.clone());
                    i += 1;
                }
                None => a.errors.push("--use-theme requires a theme name".into()),
            },
            "--no-themes" => a.no_themes = true,
            "-nc" | "--no-context-files" => a.no_context_files = true,
            "--export" => a.export = Some(value!()),
            "--verbose" => a.verbose = true,
            "--offline" => a.offline = true,
            "--sandbox" => a.sandbox = Some(value!()),
            "--sandbox-network" => a.sandbox_network = Some(value!()),
            "--permission-mode" => a.permission_mode = Some(value!()),
            "--rpc-dialect" => a.rpc_dialect = Some(value!()),
            "--tui-mode" => match argv.get(i) {
                Some(m) if m == "regular" || m == "fullscreen" => {
                    a.tui_mode = Some(m.clone());
                    i += 1;
                }
                Some(m) if !m.starts_with('-') => {
                    i += 1;
                    a.errors.push(format!(
                        "Invalid TUI mode \"{m}\". Valid values: regular, fullscreen"
                    ));
                }
                _ => a
                    .errors
                    .push("--tui-mode requires regular or fullscreen".into()),
            },
            "-a" | "--approve" => a.approve = Some(true),
            "-na" | "--no-approve" => a.approve = Some(false),
            _ if arg.starts_with("--") && arg.len() > 2 => {
                let name = &arg[2..];
                if let Some((n, v)) = name.split_once('=') {
                    a.extension_flags.push((n.to_string(), Some(v.to_string())));
                } else {
                    let v = argv
                        .get(i)
                        .filter(|n| !n.starts_with('-') && !n.starts_with('@'))
                        .cloned();
                    if v.is_some() {
                        i += 1;
                    }
                    a.extension_flags.push((name.to_string(), v));
                }
            }
            _ if arg.starts_with('-') && arg.len() > 1 => a.unknown_short.push(arg.to_string()),
            _ if arg.starts_with('@') => a.file_args.push(arg[1..].to_string()),
            _ => a.messages.push(arg.to_string()),
        }
    }
    a
}

/// A value flag given last has no value: it is handled as an unknown option, as pi does.
fn fall_through(a: &mut Args, arg: &str) {
    if let Some(name) = arg.strip_prefix("--") {
        a.extension_flags.push((name.to_string(), None));
    } else {
        a.unknown_short.push(arg.to_string());
    }
}

/// The `--help` text.
pub fn help_text() -> String {
    format!(
        "rho {} - a fast terminal coding agent, compatible with pi

Usage:
  rho [options] [--] [@files...] [messages...]
  rho install <source> [-l]      Install a pi package (npm:<name>, git:<repo>, a path)
  rho remove <source> [-l]       Remove a package (alias: uninstall)
  rho update [source]            Update installed packages
  rho list                       List installed packages
  rho config [-l]                List resources and built-ins; enable|disable <name> switches one
  rho auth <command>             Log in or out, print credentials, check provider readiness
  rho mcp <command>              Add, remove, list MCP servers; sign in to them
  rho permissions check <tool> <argument>  What the permission rules decide

Options:
  --provider <name>              Provider name (anthropic, openai, google, ...)
  --model <pattern>              Model id or pattern; provider/id and :<thinking> accepted
  --api-key <key>                API key for the selected model's provider (not saved)
  --thinking <level>             off, minimal, low, medium, high, xhigh, max
  --models <p1,p2,...>           Models to cycle through (globs allowed)
  --list-models [search]         List available models and exit
  --mode <text|json|rpc>         Output mode (default: text)
  --rpc-dialect <1.x|0.73>       pi release whose RPC/JSON shapes to speak (setting rpcDialect)
  -p, --print                    Non-interactive: process the prompt and exit
  -c, --continue                 Continue the most recent session
  -r, --resume                   Pick a session to resume
  --session <path|id>            Open a session file or id prefix
  --fork <path|id>               Fork a session into a new one
  --session-dir <dir>            Where sessions are stored
  --session-id <id>              Open this directory's session with the id, else create it
  -n, --name <name>              Name the session (shown by /resume and get_state)
  --no-session                   Do not save the session
  -t, --tools <a,b,...>          Allowed tools (default: read,bash,edit,write)
  -nbt, --no-builtin-tools       No built-in tools (extension tools stay)
  -nt, --no-tools                No tools at all
  -xt, --exclude-tools <a,b*,...>  Tools to disable (names or * patterns)
  --system-prompt <text|file>    Replace the base system prompt
  --append-system-prompt <text|file>  Append to the system prompt (repeatable)
  -e, --extension <path>         Load an extension, a package (folder, npm:<pkg>,
                                 git:<repo>) for this run, or builtin:<name> (repeatable)
  -ne, --no-extensions           No discovered, configured or built-in extensions
  --no-mcp                       No MCP servers for this run
  --skill <path>                 Load a skill file or directory (repeatable)
  -ns, --no-skills               Do not discover skills (--skill paths still load)
  --prompt-template <path>       Load a prompt template (repeatable)
  -np, --no-prompt-templates     Do not discover prompt templates (given paths still load)
  --theme <path>                 Load a theme file or folder (repeatable)
  --use-theme <name>             The interactive theme for this run
  --tui-mode <mode>              Interactive layout: regular (default) or fullscreen
  --no-themes                    Do not load themes
  -nc, --no-context-files        Skip AGENTS.md / CLAUDE.md
  --export <session.jsonl> [out.html]  Export a session to HTML
  --verbose                      Verbose startup
  --offline                      No network activity at startup
  --sandbox <mode>               off, read-only, workspace-write (default)
  --sandbox-network <on|off>     Whether sandboxed commands may use the network (default on)
  --permission-mode <mode>       default, accept-edits, plan, bypass
  -a, --approve                  Trust this project's resources for this run
  -na, --no-approve              Ignore this project's resources for this run
  --                             End of options: the rest are messages and @files
  -h, --help                     Show this help
  -v, --version                  Show the version

Files:
  @path                          Include a file's text (or an image) in the first message

Environment (pi's PI_ names are read too; the RHO_ name wins):
  RHO_CODING_AGENT_DIR           Agent directory (default ~/.rho/agent)
  RHO_CODING_AGENT_SESSION_DIR   Session directory (overridden by --session-dir)
  RHO_OFFLINE                    No network activity at startup when 1/true/yes
  ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, ...  Provider API keys
",
        env!("CARGO_PKG_VERSION")
    )
}

/// `rho auth --help`.
pub fn auth_help_text() -> String {
    "Usage:
  rho auth login <provider> [--api-key] [--no-browser]
  rho auth logout <provider>
  rho auth print-api-key [--provider <provider>] [--model <model>]
  rho auth print-bearer-token [--provider <provider>] [--model <model>] [--min-expiry <duration>]
  rho auth check [--provider <provider>] [--model <model>] [--json] [--credentials] [--no-refresh]

Log in to and out of model providers, print their credentials for external clients, or check
that they are ready. Credentials are stored in auth.json in the agent dir.

Commands:
  login <provider>        Sign in with an account in the browser, or save an API key, then exit
  logout <provider>       Remove the stored credentials; environment variables and models.json stay
  print-api-key           Print the resolved API key
  print-bearer-token      Print a resolved OAuth bearer token (refreshes if expired)
  check                   Print ready, not_ready, or invalid; exit with 0, 1, or 2

Options for print-api-key, print-bearer-token, and check (at least one is required):
  --provider <provider>   Resolve credentials for a provider
  --model <model>         Resolve credentials from a model

Options for login:
  --api-key               Save an API key instead of signing in with an account
  --no-browser            Do not open a browser; use another sign-in method, e.g. device code

Other options:
  --min-expiry <duration> Minimum remaining token lifetime for print-bearer-token, e.g. 30m or 1h
  --json                  Print the check result as JSON
  --credentials           Emit the credential from check, or include it in JSON output
  --no-refresh            Do not refresh expired OAuth credentials during check
"
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(args: &[&str]) -> Args {
        parse(&args.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn pi_multi_letter_short_flags() {
        let a = p(&["-nt", "-nbt", "-nc", "-ne", "-ns", "-np"]);
        assert!(a.no_tools && a.no_builtin_tools && a.no_context_files);
        assert!(a.no_extensions && a.no_skills && a.no_prompt_templates);
        assert!(a.unknown_short.is_empty());
    }

    #[test]
    fn print_takes_next_argument_as_message_unless_flag_or_file() {
        assert_eq!(p(&["-p", "hello"]).messages, ["hello"]);
        assert_eq!(p(&["-p", "---x"]).messages, ["---x"]);
        let a = p(&["-p", "@f.txt", "hi"]);
        assert_eq!(
            (a.file_args.as_slice(), a.messages.as_slice()),
            (&["f.txt".to_string()][..], &["hi".to_string()][..])
        );
        assert!(p(&["-p", "--model", "x"]).messages.is_empty());
    }

    #[test]
    fn value_flags_and_lists() {
        let a = p(&[
            "--model",
            "anthropic/claude:high",
            "--tools",
            "read, grep",
            "--mode",
            "rpc",
            "--append-system-prompt",
            "a",
            "--append-system-prompt",
            "b",
        ]);
        assert_eq!(a.model.as_deref(), Some("anthropic/claude:high"));
        assert_eq!(a.tools, Some(vec!["read".into(), "grep".into()]));
        assert_eq!(a.mode, Some(Mode::Rpc));
        assert_eq!(a.append_system_prompt, ["a", "b"]);
        assert_eq!(p(&["--mode", "weird"]).mode, None);
    }

    #[test]
    fn trailing_value_flag_is_an_unknown_option() {
        let a = p(&["hi", "--model"]);
        assert_eq!(
            a.unknown_options_error(&[]),
            Some("Error: Unknown option: --model".into())
        );
        assert_eq!(a.messages, ["hi"]);
    }

    #[test]
    fn unknown_flags_collected_for_extensions() {
        let a = p(&["--plan", "fast", "--x=1", "--flag", "-q"]);
        assert_eq!(
            a.extension_flags,
            vec![
                ("plan".into(), Some("fast".into())),
                ("x".into(), Some("1".into())),
                ("flag".into(), None)
            ]
        );
        assert_eq!(
            a.unknown_options_error(&["plan".into(), "x".into(), "flag".into()]),
            Some("Error: Unknown option: -q".into())
        );
        let b = p(&["--a", "--b"]);
        assert_eq!(
            b.unknown_options_error(&[]),
            Some("Error: Unknown options: --a, --b".into())
        );
        assert_eq!(b.unknown_options_error(&["a".into(), "b".into()]), None);
    }

    #[test]
    fn list_models_optional_search() {
        assert_eq!(p(&["--list-models"]).list_models, Some(None));
        assert_eq!(
            p(&["--list-models", "sonnet"]).list_models,
            Some(Some("sonnet".into()))
        );
        assert_eq!(p(&["--list-models", "-p"]).list_models, Some(None));
    }
}
