//! System prompt assembly, in pi 1.x's named sections (D18): `preamble` (the built-in
//! identity paragraph, or the custom base from `--system-prompt`/SYSTEM.md), then for the
//! built-in prompt `tools`, `rules` and `docs`, then `addendum` (APPEND_SYSTEM.md), the
//! project's context files, the skills listing and the working directory; each section but
//! the preamble wrapped in `<name>` tags. The sections are recorded in the session as pi 1.x
//! `system` messages and patched by name when one changes, so the prompt carries no date
//! (pi 1.x dropped it too: a new day would change the prompt's prefix). What the sections
//! say follows interfaces spec §6.9 (tool snippets, guidelines, when skills are listed).

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
}

/// A prompt as named sections, in order: `(name, text)`.
pub type Sections = Vec<(String, String)>;

fn tool_snippet(name: &str) -> Option<&'static str> {
    Some(match name {
        "read" => "Read file contents",
        "bash" => "Execute bash commands (ls, grep, find, etc.)",
        "powershell" => "Execute PowerShell commands",
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

/// The built-in prompt's `tools`, `rules` and `docs` section texts.
fn built_in_sections(tools: &[String]) -> [(&'static str, String); 3] {
    let listed: Vec<String> = tools
        .iter()
        .filter_map(|t| tool_snippet(t).map(|s| format!("- {t}: {s}")))
        .collect();
    let listed = if listed.is_empty() {
        "(none)".to_string()
    } else {
        listed.join("\n")
    };
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
    let mut rules: Vec<&str> = Vec::new();
    for l in lines {
        if !rules.contains(&l) {
            rules.push(l);
        }
    }
    let rules: Vec<String> = rules.iter().map(|l| format!("- {l}")).collect();
    [
        (
            "tools",
            format!(
                "{listed}\n\nIn addition to the tools above, you may have access to other custom tools depending on the project."
            ),
        ),
        ("rules", rules.join("\n")),
        (
            "docs",
            "rho documentation: see the README.md next to the rho binary's source \
             (docs/ for extensions) when the user asks about rho itself."
                .to_string(),
        ),
    ]
}

/// The project's context files, each tagged with its path (pi 1.x's layout).
fn project_context(files: &[ContextFile]) -> String {
    let mut parts = vec!["Project-specific instructions and guidelines:".to_string()];
    parts.extend(files.iter().map(|f| {
        format!(
            "<project_instructions path=\"{}\">\n{}\n</project_instructions>",
            f.path.display(),
            f.content
        )
    }));
    parts.join("\n\n")
}

/// The prompt's sections, in order; each but the preamble wrapped in its `<name>` tags.
pub fn build_system_prompt_sections(o: &SystemPromptOptions) -> Sections {
    let tools = o.active_tools.clone().unwrap_or_default();
    let mut plain: Vec<(&str, String)> = Vec::new();
    match &o.custom_base {
        Some(base) => plain.push(("preamble", base.clone())),
        None => {
            plain.push((
                "preamble",
                "You are an expert coding assistant operating inside rho, a coding agent harness. \
                 You help users by reading files, executing commands, editing code, and writing new files."
                    .to_string(),
            ));
            plain.extend(built_in_sections(&tools));
        }
    }
    let append = o.append.join("\n\n");
    if !append.is_empty() {
        plain.push(("addendum", append));
    }
    if !o.context_files.is_empty() {
        plain.push(("project_context", project_context(&o.context_files)));
    }
    let read_active = tools.iter().any(|t| t == "read");
    if read_active || (o.custom_base.is_some() && o.active_tools.is_none()) {
        let skills = format_skills_for_prompt(&o.skills);
        let skills = skills.trim();
        if !skills.is_empty() {
            plain.push(("skills", skills.to_string()));
        }
    }
    plain.push(("cwd", o.cwd.replace('\\', "/")));
    plain
        .into_iter()
        .map(|(name, text)| {
            let text = if name == "preamble" {
                text
            } else {
                format!("<{name}>\n{text}\n</{name}>")
            };
            (name.to_string(), text)
        })
        .collect()
}

/// The prompt's text: its sections' texts, blank-line separated (what the replay of the
/// system message recording them sends, pi-ai's `getSystemMessageText`).
pub fn render_sections(sections: &[(String, String)]) -> String {
    let texts: Vec<&str> = sections
        .iter()
        .map(|(_, text)| text.as_str())
        .filter(|t| !t.is_empty())
        .collect();
    texts.join("\n\n")
}

/// Builds the full system prompt.
pub fn build_system_prompt(o: &SystemPromptOptions) -> String {
    render_sections(&build_system_prompt_sections(o))
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

    fn names(sections: &Sections) -> Vec<&str> {
        sections.iter().map(|(n, _)| n.as_str()).collect()
    }

    #[test]
    fn built_in_prompt_lists_active_tools_and_guidelines_in_order() {
        let sections = build_system_prompt_sections(&opts(&["read", "bash", "edit", "write"]));
        assert_eq!(
            names(&sections),
            ["preamble", "tools", "rules", "docs", "cwd"]
        );
        let p = render_sections(&sections);
        assert!(
            p.contains("<tools>\n- read: Read file contents\n- bash:"),
            "{p}"
        );
        assert!(p.contains("<rules>\n- Use bash for file operations like ls, rg, find\n- Use read"));
        assert!(p.ends_with("\n\n<cwd>\n/work/p\n</cwd>"), "{p}");
        assert_eq!(
            p,
            build_system_prompt(&opts(&["read", "bash", "edit", "write"]))
        );
        let with_grep = build_system_prompt(&opts(&["bash", "grep"]));
        assert!(with_grep.contains("Prefer grep/find/ls tools over bash"));
        assert!(build_system_prompt(&opts(&[])).contains("<tools>\n(none)"));
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
        let sections = build_system_prompt_sections(&o);
        assert_eq!(
            names(&sections),
            ["preamble", "addendum", "project_context", "skills", "cwd"]
        );
        let p = render_sections(&sections);
        assert!(p.starts_with("BASE\n\n<addendum>\nA1\n\nA2\n</addendum>\n\n<project_context>\n"));
        assert!(p.contains(
            "<project_instructions path=\"/work/p/AGENTS.md\">\nrules\n</project_instructions>"
        ));
        assert!(p.contains("<skills>\nThe following skills"), "{p}");
        assert!(p.contains("<available_skills>"));
        assert!(!p.contains("<tools>"));
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
