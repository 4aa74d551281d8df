//! `@file` arguments and piped stdin: the initial prompt of print and JSON modes
//! (interfaces spec §3).
//!
//! Each file (in argument order) is resolved against the cwd (`~` expanded). Text files add
//! `<file name="ABS">\nCONTENT\n</file>\n`; images (PNG, JPEG, GIF, WebP, recognised by their
//! first bytes, not their names) are attached to the first message and add
//! `<file name="ABS"></file>\n`. Empty files are skipped. The initial prompt is stdin text,
//! then the file blocks, then the first positional message, with no separator.

use std::path::{Path, PathBuf};

use rho_ai::ImageContent;
use rho_tools::image::{detect_image_mime, encode_base64};

/// Why the files could not be read; the texts are pi's.
#[derive(Debug, thiserror::Error)]
pub enum FileArgError {
    /// The path does not exist.
    #[error("File not found: {}", .0.display())]
    NotFound(PathBuf),
    /// The file exists but could not be read.
    #[error("Could not read file {}: {source}", .path.display())]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The OS error.
        source: std::io::Error,
    },
}

/// Text blocks and image attachments from the `@file` arguments.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct ProcessedFiles {
    /// The `<file>` blocks, concatenated.
    pub text: String,
    /// Images for the first message.
    pub images: Vec<ImageContent>,
}

/// Reads every `@file` argument (without its `@`).
pub fn process_file_args(
    paths: &[String],
    cwd: &Path,
    home: Option<&Path>,
) -> Result<ProcessedFiles, FileArgError> {
    let mut out = ProcessedFiles::default();
    for arg in paths {
        let path = resolve(arg, cwd, home);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(FileArgError::NotFound(path))
            }
            Err(source) => return Err(FileArgError::Unreadable { path, source }),
        };
        if bytes.is_empty() {
            continue;
        }
        let name = path.display();
        match detect_image_mime(&bytes) {
            Some(mime) => {
                out.images.push(ImageContent {
                    data: encode_base64(&bytes),
                    mime_type: mime.to_string(),
                });
                out.text
                    .push_str(&format!("<file name=\"{name}\"></file>\n"));
            }
            None => {
                let content = String::from_utf8_lossy(&bytes);
                out.text
                    .push_str(&format!("<file name=\"{name}\">\n{content}\n</file>\n"));
            }
        }
    }
    Ok(out)
}

/// The prompts to send: the first is `stdin + files + messages[0]` (if any of them is
/// there), the rest are the other positional messages.
pub fn initial_prompts(stdin: Option<&str>, files: &str, messages: &[String]) -> Vec<String> {
    let stdin = stdin.map(str::trim).filter(|s| !s.is_empty());
    if stdin.is_none() && files.is_empty() {
        return messages.to_vec();
    }
    let mut first = String::with_capacity(
        stdin.map_or(0, str::len) + files.len() + messages.first().map_or(0, String::len),
    );
    first.push_str(stdin.unwrap_or(""));
    first.push_str(files);
    let mut rest = messages.iter();
    if let Some(m) = rest.next() {
        first.push_str(m);
    }
    std::iter::once(first).chain(rest.cloned()).collect()
}

fn resolve(arg: &str, cwd: &Path, home: Option<&Path>) -> PathBuf {
    let expanded = match (arg, arg.strip_prefix("~/"), home) {
        ("~", _, Some(h)) => h.to_path_buf(),
        (_, Some(rest), Some(h)) => h.join(rest),
        _ => PathBuf::from(arg),
    };
    let joined = cwd.join(expanded);
    normalize(&joined)
}

/// Removes `.` and resolves `..` lexically (as Node's `path.resolve`), without touching
/// the filesystem.
fn normalize(path: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_become_blocks_in_order_and_empty_ones_are_skipped() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("a.txt"), "alpha").expect("write");
        std::fs::write(dir.path().join("empty.txt"), "").expect("write");
        std::fs::write(dir.path().join("p.png"), b"\x89PNG\r\n\x1a\nxx").expect("write");
        let args = ["./a.txt", "empty.txt", "sub/../p.png"].map(String::from);
        let out = process_file_args(&args, dir.path(), None).expect("reads");
        let base = dir.path().display();
        assert_eq!(
            out.text,
            format!("<file name=\"{base}/a.txt\">\nalpha\n</file>\n<file name=\"{base}/p.png\"></file>\n")
        );
        assert_eq!(out.images.len(), 1);
        assert_eq!(out.images[0].mime_type, "image/png");
        assert_eq!(out.images[0].data, encode_base64(b"\x89PNG\r\n\x1a\nxx"));
    }

    #[test]
    fn missing_file_names_the_absolute_path_and_home_is_expanded() {
        let dir = tempfile::tempdir().expect("tempdir");
        let err = process_file_args(&["nope.md".into()], dir.path(), None).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("File not found: {}/nope.md", dir.path().display())
        );
        std::fs::write(dir.path().join("h.txt"), "home").expect("write");
        let out =
            process_file_args(&["~/h.txt".into()], Path::new("/"), Some(dir.path())).expect("ok");
        assert!(out.text.contains("\nhome\n"));
    }

    #[test]
    fn initial_prompt_concatenates_without_separator() {
        let msgs = ["first".to_string(), "second".to_string()];
        assert_eq!(
            initial_prompts(Some("  piped\n"), "<file>", &msgs),
            ["piped<file>first", "second"]
        );
        assert_eq!(initial_prompts(Some("   "), "", &msgs), msgs);
        assert_eq!(initial_prompts(Some("only"), "", &[]), ["only"]);
        assert!(initial_prompts(None, "", &[]).is_empty());
    }
}
