//! Which tools a run gets, from `--tools` / `--no-tools` / `--no-builtin-tools`
//! (interfaces spec §7). This is the seam to the tool implementations: the names chosen here
//! go to `rho_tools::create_tools(names, cwd)` and to the system prompt's tool list.

use crate::args::Args;

/// Every built-in tool, in pi's order.
#[cfg(not(windows))]
pub const BUILTIN_TOOLS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

/// Every built-in tool, in pi's order; `powershell` exists on Windows only (pi lists it
/// everywhere and fails its calls elsewhere; rho leaves it out there).
#[cfg(windows)]
pub const BUILTIN_TOOLS: [&str; 8] = [
    "read",
    "bash",
    "powershell",
    "edit",
    "write",
    "grep",
    "find",
    "ls",
];

/// Active without `--tools`.
pub const DEFAULT_TOOLS: [&str; 4] = ["read", "bash", "edit", "write"];

/// The tool selection the flags describe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSelection {
    /// Active built-in tools, in the order the user gave (default order without `--tools`).
    pub builtin: Vec<String>,
    /// `--tools` as given: extension and custom tools are active only if named here.
    /// `None` = no allowlist (every extension tool active).
    pub allowlist: Option<Vec<String>>,
    /// False with `--no-tools`: extension tools are off too.
    pub extension_tools: bool,
    /// `--exclude-tools`: names or `*` patterns no tool may match.
    pub excluded: Vec<String>,
    /// The `codemode` tool was asked for (`--tools`, `defaultTools`).
    pub codemode: bool,
}

impl ToolSelection {
    /// Whether an extension/custom tool named `name` is active.
    pub fn allows_extension_tool(&self, name: &str) -> bool {
        self.extension_tools
            && !is_excluded(&self.excluded, name)
            && self
                .allowlist
                .as_ref()
                .is_none_or(|list| list.iter().any(|n| n == name))
    }
}

/// True when `name` is one of `excluded` or matches one of its `*` patterns (as pi 1.x's
/// `--exclude-tools`: `*` stands for any run of characters, everything else is literal).
pub fn is_excluded(excluded: &[String], name: &str) -> bool {
    excluded.iter().any(|p| matches_pattern(p, name))
}

fn matches_pattern(pattern: &str, name: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or_default();
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// The `defaultTools` setting, when set (an empty list turns the built-ins off).
pub fn default_tools(settings: &rho_core::settings::Settings) -> Option<Vec<String>> {
    settings
        .raw()
        .get("defaultTools")
        .and_then(serde_json::Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
}

/// True when every entry is `+name` or `-name`: the list edits a selection instead of
/// replacing it (pi 1.x's `--tools +codemode,-write` and `defaultTools`).
fn is_edit_list(list: &[String]) -> bool {
    !list.is_empty()
        && list
            .iter()
            .all(|n| n.starts_with('+') || n.starts_with('-'))
}

/// `list` applied to `base`: plain names form the selection, then `+name`/`-name` apply in
/// order (an edit-only list starts from `base`).
fn apply_list(base: &[String], list: &[String]) -> Vec<String> {
    let mut out: Vec<String> = if is_edit_list(list) {
        base.to_vec()
    } else {
        Vec::new()
    };
    for entry in list {
        if let Some(name) = entry.strip_prefix('-') {
            out.retain(|n| n != name);
        } else {
            let name = entry.strip_prefix('+').unwrap_or(entry);
            if !out.iter().any(|n| n == name) {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// `--no-tools` → nothing; `--tools a,b` → the built-ins among them (unknown names are
/// silently ignored; they may name extension tools); `--no-builtin-tools` → no built-ins;
/// else read, bash, edit, write, changed by the `defaultTools` setting; `--tools` of only
/// `+name`/`-name` entries changes that default selection. Then `--exclude-tools` takes its
/// matches out. `codemode` counts as chosen when the selection names it.
pub fn active_tools(args: &Args, default_tools: Option<&[String]>) -> ToolSelection {
    let excluded = args.exclude_tools.clone().unwrap_or_default();
    if args.no_tools {
        return ToolSelection {
            builtin: Vec::new(),
            allowlist: Some(Vec::new()),
            extension_tools: false,
            excluded,
            codemode: false,
        };
    }
    let defaults: Vec<String> = DEFAULT_TOOLS.iter().map(|s| s.to_string()).collect();
    let defaults = match default_tools {
        Some(list) => apply_list(&defaults, list),
        None => defaults,
    };
    let (selection, allowlist) = match &args.tools {
        Some(list) if is_edit_list(list) => (apply_list(&defaults, list), None),
        Some(list) => (apply_list(&[], list), Some(list.clone())),
        None => (defaults, None),
    };
    let codemode = selection
        .iter()
        .any(|n| n == rho_codemode::CODEMODE_TOOL_NAME)
        && !is_excluded(&excluded, rho_codemode::CODEMODE_TOOL_NAME);
    let builtin = if args.no_builtin_tools {
        Vec::new()
    } else {
        selection
            .into_iter()
            .filter(|n| BUILTIN_TOOLS.contains(&n.as_str()))
            .collect()
    };
    ToolSelection {
        builtin: builtin
            .into_iter()
            .filter(|n| !is_excluded(&excluded, n))
            .collect(),
        allowlist,
        extension_tools: true,
        excluded,
        codemode,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::parse;

    fn sel(argv: &[&str]) -> ToolSelection {
        active_tools(
            &parse(&argv.iter().map(|s| s.to_string()).collect::<Vec<_>>()),
            None,
        )
    }

    #[test]
    fn defaults_and_allowlist() {
        assert_eq!(sel(&[]).builtin, DEFAULT_TOOLS);
        let s = sel(&["--tools", "grep,read,mytool,read"]);
        assert_eq!(s.builtin, ["grep", "read"]);
        assert!(s.allows_extension_tool("mytool"));
        assert!(!s.allows_extension_tool("other"));
        assert!(sel(&[]).allows_extension_tool("other"));
    }

    #[test]
    fn excluded_tools_and_patterns_are_taken_out() {
        let s = sel(&[
            "-xt",
            "bash,wr*",
            "--tools",
            "read,bash,write,grep,mytool,mine2",
        ]);
        assert_eq!(s.builtin, ["read", "grep"]);
        assert!(s.allows_extension_tool("mytool"));
        let s = sel(&["--exclude-tools", "my*,*_x_*"]);
        assert_eq!(s.builtin, DEFAULT_TOOLS);
        assert!(!s.allows_extension_tool("mytool"));
        assert!(!s.allows_extension_tool("a_x_b"));
        assert!(s.allows_extension_tool("other"));
        assert!(matches_pattern("*", ""));
        assert!(!matches_pattern("a*a", "a"));
        assert!(matches_pattern("mcp__*__read", "mcp__srv__read"));
    }

    #[test]
    fn plus_and_minus_entries_edit_the_defaults() {
        let s = sel(&["--tools", "+codemode,-write"]);
        assert_eq!(s.builtin, ["read", "bash", "edit"]);
        assert!(s.codemode && s.allowlist.is_none());
        assert!(!sel(&[]).codemode);
        let args = parse(&[]);
        let s = active_tools(&args, Some(&["+codemode".into(), "+grep".into()]));
        assert_eq!(s.builtin, ["read", "bash", "edit", "write", "grep"]);
        assert!(s.codemode);
        let s = active_tools(&args, Some(&["read".into(), "codemode".into()]));
        assert_eq!(active_tools(&args, Some(&[])).builtin, Vec::<String>::new());
        assert_eq!(s.builtin, ["read"]);
        assert!(s.codemode);
        let s = sel(&["--tools", "read,codemode", "-xt", "code*"]);
        assert!(!s.codemode);
    }

    #[test]
    fn no_tools_and_no_builtin_tools() {
        let s = sel(&["-nt"]);
        assert!(s.builtin.is_empty() && !s.allows_extension_tool("x"));
        let s = sel(&["-nbt"]);
        assert!(s.builtin.is_empty() && s.allows_extension_tool("x"));
    }
}
