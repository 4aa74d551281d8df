//! Skills: `SKILL.md` files the model can load on demand and the user can invoke with
//! `/skill:name args` (interfaces spec §6.6, rules SK-1..10).

use std::path::{Path, PathBuf};

use super::frontmatter;
use super::Diagnostic;

/// One loaded skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    /// Frontmatter `name`, else the parent directory's name.
    pub name: String,
    /// Required description.
    pub description: String,
    /// The skill file.
    pub file_path: PathBuf,
    /// The directory of the file; relative references resolve against it.
    pub base_dir: PathBuf,
    /// Hidden from the system prompt's list (still invocable).
    pub disable_model_invocation: bool,
}

/// A directory to search and whether its top-level `*.md` files are skills too
/// (true for `.rho/skills`, `<agentDir>/skills` and explicit paths; false for `.agents/skills`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillSource {
    /// A directory or an explicit `.md` file.
    pub path: PathBuf,
    /// Whether top-level `*.md` files count.
    pub top_level_md: bool,
}

/// Loads skills from `sources` in precedence order; the first of a name wins.
pub fn load_skills(sources: &[SkillSource]) -> (Vec<Skill>, Vec<Diagnostic>) {
    let mut skills: Vec<Skill> = Vec::new();
    let mut diagnostics = Vec::new();
    let mut seen_files: Vec<PathBuf> = Vec::new();
    for source in sources {
        for file in skill_files(source) {
            let real = std::fs::canonicalize(&file).unwrap_or_else(|_| file.clone());
            if seen_files.contains(&real) {
                continue;
            }
            seen_files.push(real);
            let text = match std::fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => {
                    diagnostics.push(diag(&file, format!("cannot read skill: {e}")));
                    continue;
                }
            };
            let Some(skill) = parse_skill(&file, &text, &mut diagnostics) else {
                continue;
            };
            if skills.iter().any(|s| s.name == skill.name) {
                diagnostics.push(diag(&file, format!("name \"{}\" collision", skill.name)));
                continue;
            }
            skills.push(skill);
        }
    }
    (skills, diagnostics)
}

fn diag(path: &Path, message: String) -> Diagnostic {
    Diagnostic {
        path: path.to_path_buf(),
        message,
    }
}

/// Parses and validates one skill file as pi 1.6 does: the name is the frontmatter's, else
/// the folder's (for a loose `.md` file too); name-rule violations are warnings; a skill
/// without a description is not loaded (a `SKILL.md` says so, a loose `.md` file is just not
/// a skill).
pub fn parse_skill(file: &Path, text: &str, diagnostics: &mut Vec<Diagnostic>) -> Option<Skill> {
    let doc = frontmatter::parse(text);
    let base_dir = file.parent().map(Path::to_path_buf).unwrap_or_default();
    let dir_name = base_dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("")
        .to_string();
    let is_skill_md = file.file_name().is_some_and(|n| n == "SKILL.md");
    let description = doc.get("description").unwrap_or("").trim().to_string();
    if description.is_empty() && !is_skill_md {
        return None;
    }
    let name = doc
        .get("name")
        .filter(|n| !n.is_empty())
        .map_or(dir_name, str::to_string);
    if description.is_empty() {
        diagnostics.push(diag(file, "description is required".into()));
    } else if description.chars().count() > 1024 {
        let n = description.chars().count();
        diagnostics.push(diag(
            file,
            format!("description exceeds 1024 characters ({n})"),
        ));
    }
    for warning in name_warnings(&name) {
        diagnostics.push(diag(file, warning));
    }
    if description.is_empty() {
        return None;
    }
    Some(Skill {
        name,
        description,
        file_path: file.to_path_buf(),
        base_dir,
        disable_model_invocation: doc.get_bool("disable-model-invocation"),
    })
}

/// The Agent Skills name rules, in pi 1.6's words (a name that differs from its folder is
/// fine: pi neither requires nor warns about it).
fn name_warnings(name: &str) -> Vec<String> {
    let mut w = Vec::new();
    let len = name.chars().count();
    if len > 64 {
        w.push(format!("name exceeds 64 characters ({len})"));
    }
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        w.push(
            "name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)".into(),
        );
    }
    if name.starts_with('-') || name.ends_with('-') {
        w.push("name must not start or end with a hyphen".into());
    }
    if name.contains("--") {
        w.push("name must not contain consecutive hyphens".into());
    }
    w
}

/// The skill files under a source: `SKILL.md` roots (not descending into them), plus
/// top-level `*.md` files where allowed. Dot entries and `node_modules` are skipped;
/// `.gitignore`, `.ignore` and `.fdignore` apply.
fn skill_files(source: &SkillSource) -> Vec<PathBuf> {
    let root = &source.path;
    if root.is_file() {
        return if root.extension().is_some_and(|e| e == "md") {
            vec![root.clone()]
        } else {
            Vec::new()
        };
    }
    if !root.is_dir() {
        return Vec::new();
    }
    let walker = ignore::WalkBuilder::new(root)
        .hidden(true)
        .require_git(false)
        .add_custom_ignore_filename(".fdignore")
        .filter_entry(|e| e.file_name() != "node_modules")
        .sort_by_file_name(|a, b| a.cmp(b))
        .build();
    let mut roots: Vec<PathBuf> = Vec::new();
    let mut top_md = Vec::new();
    for entry in walker.filter_map(Result::ok) {
        let path = entry.path();
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        if path.file_name().is_some_and(|n| n == "SKILL.md") {
            roots.push(path.to_path_buf());
        } else if source.top_level_md
            && entry.depth() == 1
            && path.extension().is_some_and(|e| e == "md")
        {
            top_md.push(path.to_path_buf());
        }
    }
    let dirs: Vec<PathBuf> = roots
        .iter()
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    roots.retain(|p| {
        let dir = p.parent().unwrap_or(p);
        !dirs
            .iter()
            .any(|d| d != dir && dir.starts_with(d) && d != root)
    });
    let root_is_skill = roots.iter().any(|p| p.parent() == Some(root.as_path()));
    if root_is_skill {
        return vec![root.join("SKILL.md")];
    }
    top_md.extend(roots);
    top_md
}

/// Expands `/skill:name args` into the skill block (SK-1..5). Unknown names return the text
/// unchanged. A read failure returns `Err` with the message for the error report; the caller
/// then uses the original text.
pub fn expand_skill(text: &str, skills: &[Skill]) -> Result<String, SkillReadError> {
    let Some(rest) = text.strip_prefix("/skill:") else {
        return Ok(text.to_string());
    };
    let (name, args) = match rest.find(' ') {
        Some(p) => (&rest[..p], rest[p + 1..].trim()),
        None => (rest, ""),
    };
    let Some(skill) = skills.iter().find(|s| s.name == name) else {
        return Ok(text.to_string());
    };
    let content = std::fs::read_to_string(&skill.file_path).map_err(|e| SkillReadError {
        file_path: skill.file_path.clone(),
        message: format!(
            "Failed to read skill file {}: {e}",
            skill.file_path.display()
        ),
    })?;
    let body = frontmatter::parse(&content).body;
    let block = format!(
        "<skill name=\"{}\" location=\"{}\">\nReferences are relative to {}.\n\n{}\n</skill>",
        skill.name,
        skill.file_path.display(),
        skill.base_dir.display(),
        body
    );
    Ok(if args.is_empty() {
        block
    } else {
        format!("{block}\n\n{args}")
    })
}

/// A skill file that could not be read at expansion time.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SkillReadError {
    /// The skill file (reported as `extensionPath`).
    pub file_path: PathBuf,
    /// The error text.
    pub message: String,
}

/// A skill block recognised in a user message (SK-6), for UIs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedSkillBlock {
    /// The skill name.
    pub name: String,
    /// The file location.
    pub location: String,
    /// The block's content.
    pub content: String,
    /// Text the user added after the block, trimmed; `None` if empty.
    pub user_message: Option<String>,
}

/// Recognises `<skill name="N" location="L">\n…\n</skill>` optionally followed by `\n\n` + text.
pub fn parse_skill_block(text: &str) -> Option<ParsedSkillBlock> {
    let rest = text.strip_prefix("<skill name=\"")?;
    let (name, rest) = rest.split_once("\" location=\"")?;
    let (location, rest) = rest.split_once("\">\n")?;
    let end = rest.find("\n</skill>")?;
    let content = &rest[..end];
    let after = &rest[end + "\n</skill>".len()..];
    let user_message = if after.is_empty() {
        None
    } else {
        let msg = after.strip_prefix("\n\n")?.trim();
        (!msg.is_empty()).then(|| msg.to_string())
    };
    Some(ParsedSkillBlock {
        name: name.to_string(),
        location: location.to_string(),
        content: content.to_string(),
        user_message,
    })
}

/// The `<available_skills>` part of the system prompt (SK-9): empty when no skill is visible.
pub fn format_skills_for_prompt(skills: &[Skill]) -> String {
    let visible: Vec<&Skill> = skills
        .iter()
        .filter(|s| !s.disable_model_invocation)
        .collect();
    if visible.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n\nThe following skills provide specialized instructions for specific tasks.\n\
         Use the read tool to load a skill's file when the task matches its description.\n\
         When a skill file references a relative path, resolve it against the skill directory.\n\n\
         <available_skills>\n",
    );
    for s in visible {
        out.push_str(&format!(
            "  <skill>\n    <name>{}</name>\n    <description>{}</description>\n    <location>{}</location>\n  </skill>\n",
            xml_escape(&s.name),
            xml_escape(&s.description),
            xml_escape(&s.file_path.display().to_string())
        ));
    }
    out.push_str("</available_skills>");
    out
}

fn xml_escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&apos;")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    fn dir_source(path: &Path) -> SkillSource {
        SkillSource {
            path: path.to_path_buf(),
            top_level_md: true,
        }
    }

    #[test]
    fn sk_3_and_4_exact_block_bytes_with_and_without_args() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let file = tmp.path().join("dbg/SKILL.md");
        write(
            &file,
            "---\nname: dbg\ndescription: Debug\n---\n## Steps\nDo it.\n",
        );
        let (skills, d) = load_skills(&[dir_source(tmp.path())]);
        assert!(d.is_empty(), "{d:?}");
        let dir = tmp.path().join("dbg");
        let block = format!(
            "<skill name=\"dbg\" location=\"{}\">\nReferences are relative to {}.\n\n## Steps\nDo it.\n</skill>",
            file.display(),
            dir.display()
        );
        assert_eq!(expand_skill("/skill:dbg", &skills).expect("expands"), block);
        assert_eq!(
            expand_skill("/skill:dbg  crash in login ", &skills).expect("expands"),
            format!("{block}\n\ncrash in login")
        );
    }

    #[test]
    fn sk_2_unknown_skill_passes_through() {
        assert_eq!(
            expand_skill("/skill:nope hi", &[]).expect("ok"),
            "/skill:nope hi"
        );
        assert_eq!(expand_skill("plain", &[]).expect("ok"), "plain");
    }

    #[test]
    fn sk_5_unreadable_file_is_an_error_naming_the_file() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let file = tmp.path().join("gone/SKILL.md");
        write(&file, "---\ndescription: d\n---\nbody");
        let (skills, _) = load_skills(&[dir_source(tmp.path())]);
        std::fs::remove_file(&file).expect("rm");
        let err = expand_skill("/skill:gone x", &skills).expect_err("read fails");
        assert_eq!(err.file_path, file);
    }

    #[test]
    fn sk_6_reverse_parse() {
        let block = "<skill name=\"a\" location=\"/x/SKILL.md\">\nbody\n</skill>";
        let p = parse_skill_block(&format!("{block}\n\n  hi ")).expect("parses");
        assert_eq!(p.user_message.as_deref(), Some("hi"));
        assert_eq!(p.content, "body");
        assert_eq!(parse_skill_block(block).expect("parses").user_message, None);
        assert!(parse_skill_block("<skill name=\"a\" location=\"b\">\nbody").is_none());
    }

    #[test]
    fn sk_8_discovery_rules_and_warnings() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let root = tmp.path();
        write(&root.join("top.md"), "---\ndescription: top\n---\nx");
        write(&root.join("a/SKILL.md"), "---\ndescription: a\n---\nx");
        write(
            &root.join("a/nested/SKILL.md"),
            "---\ndescription: nested\n---\nx",
        );
        write(
            &root.join("b/deep/SKILL.md"),
            "---\nname: Bad_Name\ndescription: d\n---\nx",
        );
        write(
            &root.join("c/SKILL.md"),
            "---\nname: c\n---\nno description",
        );
        write(
            &root.join(".hidden/SKILL.md"),
            "---\ndescription: h\n---\nx",
        );
        write(
            &root.join("node_modules/m/SKILL.md"),
            "---\ndescription: m\n---\nx",
        );
        write(&root.join("ign/SKILL.md"), "---\ndescription: i\n---\nx");
        write(&root.join(".gitignore"), "ign/\n");
        let (skills, diags) = load_skills(&[dir_source(root)]);
        let names: Vec<&str> = skills.iter().map(|s| s.name.as_str()).collect();
        let root_name = root.file_name().and_then(|n| n.to_str()).expect("name");
        assert_eq!(
            names,
            [root_name, "a", "Bad_Name"],
            "a loose .md file is named after its folder, as in pi 1.6"
        );
        let messages: Vec<&str> = diags.iter().map(|d| d.message.as_str()).collect();
        assert!(messages.contains(
            &"name contains invalid characters (must be lowercase a-z, 0-9, hyphens only)"
        ));
        assert!(messages.contains(&"description is required"));
        assert!(
            !messages.iter().any(|m| m.contains("directory")),
            "{messages:?}"
        );
    }

    #[test]
    fn sk_8_first_source_wins_and_agents_dirs_ignore_top_level_md() {
        let project = tempfile::tempdir().expect("tempdir");
        let global = tempfile::tempdir().expect("tempdir");
        write(
            &project.path().join("s/SKILL.md"),
            "---\ndescription: project\n---\nx",
        );
        write(
            &global.path().join("s/SKILL.md"),
            "---\ndescription: global\n---\nx",
        );
        write(
            &global.path().join("loose.md"),
            "---\ndescription: loose\n---\nx",
        );
        let sources = [
            dir_source(project.path()),
            SkillSource {
                path: global.path().into(),
                top_level_md: false,
            },
        ];
        let (skills, diags) = load_skills(&sources);
        assert_eq!(skills.len(), 1);
        assert_eq!(skills[0].description, "project");
        assert_eq!(diags[0].message, "name \"s\" collision");
    }

    #[test]
    fn sk_9_prompt_listing_escapes_and_hides() {
        let mk = |name: &str, hidden| Skill {
            name: name.into(),
            description: "a < b & \"c\"".into(),
            file_path: PathBuf::from(format!("/s/{name}/SKILL.md")),
            base_dir: PathBuf::from(format!("/s/{name}")),
            disable_model_invocation: hidden,
        };
        let listing = format_skills_for_prompt(&[mk("shown", false), mk("hidden", true)]);
        assert!(listing.contains("<name>shown</name>"));
        assert!(listing.contains("<description>a &lt; b &amp; &quot;c&quot;</description>"));
        assert!(!listing.contains("hidden"));
        assert_eq!(format_skills_for_prompt(&[mk("h", true)]), "");
    }
}
