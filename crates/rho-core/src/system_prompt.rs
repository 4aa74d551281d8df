//! System prompt assembly (interfaces spec §6.9): a base (custom text, SYSTEM.md, or the
//! built-in prompt with tool list and guidelines), the append text, project context files, the
//! skills listing, then the date and working directory.

use std::path::Path;

use crate::resources::context_files::ContextFile;
use crate::resources::skills::{format_skills_for_prompt, Skill};

/// Everything the prompt is built from (also handed to `before_agent_start` handlers).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SystemPromptOptions {
    /// A custom base (from `--system-prompt` or SYSTEM.md); `None` → the built-in prompt.
    pub custom_base: Option<String>,
    /// Append texts (from `--append-system-prompt` or APPEND_SYSTEM.md), joined by a blank line.
    pub append: Vec<String>,
    /// Names of the active tools, in tool order (`None` = no tool selection known).
    pub active_tools: Option<Vec<String>>,
    /// Context files in inclusion order.
    pub context_files: Vec<ContextFile>,
    /// Loaded skills.
    pub skills: Vec<Skill>,
    /// The session's working directory.
    pub cwd: String,
    /// Local date, `YYYY-MM-DD`.
    pub date: String,
}

fn tool_snippet(name: &str) -> Option<&'static str> {
    Some(match name {
        "read" => "Read file contents",
        "bash" => "Execute bash commands (ls, grep, find, etc.)",
        "edit" => "Make exact-text replacement edits to files (several disjoint edits per call)",
        "write" => "Create or overwrite files",
        "grep" => "Search file contents for patterns (respects .gitignore)",
        "find" => "Find files by glob pattern (respects .gitignore)",
        "ls" => "List directory contents",
        rho_codemode::CODEMODE_TOOL_NAME => rho_codemode::tool::PROMPT_SNIPPET,
        _ => return None,
    })
}

/// The system prompt's guidelines for a built-in tool (codemode lists them with tools it
/// declares to scripts).
pub(crate) fn tool_guidelines(name: &str) -> &'static [&'static str] {
    match name {
        "read" => &["Use read to examine files instead of cat or sed."],
        "edit" => &[
            "Use edit for precise changes: each oldText must match the file exactly",
            "Each oldText must be unique in the file; include enough surrounding context",
            "Edits in one call must not overlap; several disjoint edits go in one edits[] array",
            "Read the file first so oldText matches its current content",
        ],
        "write" => &["Use write only for new files or complete rewrites."],
        rho_codemode::CODEMODE_TOOL_NAME => &[rho_codemode::tool::PROMPT_GUIDELINE],
        _ => &[],
    }
}

fn built_in_base(tools: &[String]) -> String {
    let mut out = String::from(
        "You are an expert coding assistant operating inside rho, a coding agent harness. \
         You help users by reading files, executing commands, editing code, and writing new files.\n\n\
         Available tools:\n",
    );
    let listed: Vec<String> = tools
        .iter()
        .filter_map(|t| tool_snippet(t).map(|s| format!("- {t}: {s}")))
        .collect();
    if listed.is_empty() {
        out.push_str("(none)");
    } else {
        out.push_str(&listed.join("\n"));
    }
    out.push_str("\n\nIn addition to the tools above, you may have access to other custom tools depending on the project.\n\nGuidelines:\n");
    let has = |n: &str| tools.iter().any(|t| t == n);
    let mut lines: Vec<&str> = Vec::new();
    let search = ["grep", "find", "ls"].iter().any(|t| has(t));
    if has("bash") && !search {
        lines.push("Use bash for file operations like ls, rg, find");
    } else if has("bash") {
        lines.push("Prefer grep/find/ls tools over bash for file exploration (faster, respects .gitignore)");
    }
    for t in tools {
        lines.extend(tool_guidelines(t));
    }
    lines.push("Be concise in your responses");
    lines.push("Show file paths clearly when working with files");
    let mut seen: Vec<&str> = Vec::new();
    for l in lines {
        if !seen.contains(&l) {
            seen.push(l);
            out.push_str("- ");
            out.push_str(l);
            out.push('\n');
        }
    }
    out.push_str(
        "\nrho documentation: see the README.md next to the rho binary's source \
         (docs/ for extensions) when the user asks about rho itself.",
    );
    out
}

/// Builds the full system prompt.
pub fn build_system_prompt(o: &SystemPromptOptions) -> String {
    let tools = o.active_tools.clone().unwrap_or_default();
    let mut out = match &o.custom_base {
        Some(base) => base.clone(),
        None => built_in_base(&tools),
    };
    let append = o.append.join("\n\n");
    if !append.is_empty() {
        out.push_str("\n\n");
        out.push_str(&append);
    }
    if !o.context_files.is_empty() {
        out.push_str("\n\n# Project Context\n\nProject-specific instructions and guidelines:\n\n");
        for f in &o.context_files {
            out.push_str(&format!("## {}\n\n{}\n\n", f.path.display(), f.content));
        }
    }
    let read_active = tools.iter().any(|t| t == "read");
    let list_skills = read_active || (o.custom_base.is_some() && o.active_tools.is_none());
    if list_skills {
        out.push_str(&format_skills_for_prompt(&o.skills));
    }
    out.push_str(&format!("\nCurrent date: {}", o.date));
    out.push_str(&format!(
        "\nCurrent working directory: {}",
        o.cwd.replace('\\', "/")
    ));
    out
}

/// A `--system-prompt`/`--append-system-prompt` value: file contents when it names a file.
pub fn text_or_file(value: &str, cwd: &Path) -> String {
    let path = cwd.join(value);
    if path.is_file() {
        std::fs::read_to_string(&path).unwrap_or_else(|_| value.to_string())
    } else {
        value.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn opts(tools: &[&str]) -> SystemPromptOptions {
        SystemPromptOptions {
            active_tools: Some(tools.iter().map(|s| s.to_string()).collect()),
            cwd: "/work/p".into(),
            date: "2026-12-02".into(),
            ..Default::default()
        }
    }

    fn skill() -> Skill {
        Skill {
            name: "s".into(),
            description: "d".into(),
            file_path: PathBuf::from("/s/SKILL.md"),
            base_dir: PathBuf::from("/s"),
            disable_model_invocation: false,
        }
    }

    #[test]
    fn built_in_prompt_lists_active_tools_and_guidelines_in_order() {
        let p = build_system_prompt(&opts(&["read", "bash", "edit", "write"]));
        assert!(p.contains("- read: Read file contents\n- bash:"));
        assert!(p.contains("- Use bash for file operations like ls, rg, find\n- Use read"));
        assert!(p.ends_with("\nCurrent date: 2026-12-02\nCurrent working directory: /work/p"));
        let with_grep = build_system_prompt(&opts(&["bash", "grep"]));
        assert!(with_grep.contains("Prefer grep/find/ls tools over bash"));
        assert!(build_system_prompt(&opts(&[])).contains("Available tools:\n(none)"));
    }

    #[test]
    fn custom_base_append_context_and_skills() {
        let mut o = opts(&["read"]);
        o.custom_base = Some("BASE".into());
        o.append = vec!["A1".into(), "A2".into()];
        o.context_files = vec![ContextFile {
            path: PathBuf::from("/work/p/AGENTS.md"),
            content: "rules".into(),
        }];
        o.skills = vec![skill()];
        let p = build_system_prompt(&o);
        assert!(p.starts_with("BASE\n\nA1\n\nA2\n\n# Project Context\n\n"));
        assert!(p.contains("## /work/p/AGENTS.md\n\nrules\n\n"));
        assert!(p.contains("<available_skills>"));
        assert!(!p.contains("Available tools"));
    }

    #[test]
    fn sk_9_skills_listed_only_with_read_tool() {
        let mut o = opts(&["bash"]);
        o.skills = vec![skill()];
        assert!(!build_system_prompt(&o).contains("<available_skills>"));
        o.custom_base = Some("B".into());
        o.active_tools = None;
        assert!(build_system_prompt(&o).contains("<available_skills>"));
    }
}
