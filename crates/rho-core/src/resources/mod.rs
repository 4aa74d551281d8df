//! Resources the user writes as files: skills, prompt templates, context files.
//! Discovery touches the file system; parsing and expansion are pure.

pub mod agents_skills;
pub mod context_files;
pub mod frontmatter;
pub mod project_dirs;
pub mod skills;
pub mod templates;

/// A problem found while loading resources: reported to the user, never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file concerned.
    pub path: std::path::PathBuf,
    /// What is wrong, e.g. `name "x" collision`.
    pub message: String,
}
