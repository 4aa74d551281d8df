//! Which tools a run gets, from `--tools` / `--no-tools` / `--no-builtin-tools`
//! (interfaces spec §7). This is the seam to the tool implementations: the names chosen here
//! go to `rho_tools::create_tools(names, cwd)` and to the system prompt's tool list.

use crate::args::Args;

/// Every built-in tool, in pi's order.
pub const BUILTIN_TOOLS: [&str; 7] = ["read", "bash", "edit", "write", "grep", "find", "ls"];

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

/// `--no-tools` → nothing; `--tools a,b` → the built-ins among them (unknown names are
/// silently ignored; they may name extension tools); `--no-builtin-tools` → no built-ins;
/// else read, bash, edit, write; then `--exclude-tools` takes its matches out.
pub fn active_tools(args: &Args) -> ToolSelection {
    let excluded = args.exclude_tools.clone().unwrap_or_default();
    if args.no_tools {
        return ToolSelection {
            builtin: Vec::new(),
            allowlist: Some(Vec::new()),
            extension_tools: false,
            excluded,
        };
    }
    let builtin = match (&args.tools, args.no_builtin_tools) {
        (_, true) => Vec::new(),
        (Some(list), false) => {
            let mut names: Vec<String> = Vec::new();
            for n in list.iter().filter(|n| BUILTIN_TOOLS.contains(&n.as_str())) {
                if !names.contains(n) {
                    names.push(n.clone());
                }
            }
            names
        }
        (None, false) => DEFAULT_TOOLS.iter().map(|s| s.to_string()).collect(),
    };
    ToolSelection {
        builtin: builtin
            .into_iter()
            .filter(|n| !is_excluded(&excluded, n))
            .collect(),
        allowlist: args.tools.clone(),
        extension_tools: true,
        excluded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::parse;

    fn sel(argv: &[&str]) -> ToolSelection {
        active_tools(&parse(
            &argv.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
        ))
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
    fn no_tools_and_no_builtin_tools() {
        let s = sel(&["-nt"]);
        assert!(s.builtin.is_empty() && !s.allows_extension_tool("x"));
        let s = sel(&["-nbt"]);
        assert!(s.builtin.is_empty() && s.allows_extension_tool("x"));
    }
}
