//! The 20 KB limit on model-facing MCP text: longer text keeps its start and end around a
//! `…N chars truncated…` marker (Codex's format, as pi), and the full text is saved to a temp
//! file named in the result.

use std::path::PathBuf;

use rho_ai::ContentBlock;

/// Model-facing text of an MCP result beyond this is cut in the middle.
pub const MCP_OUTPUT_MAX_BYTES: usize = 20 * 1024;

/// Content within the limit, and the file with the full text when it was cut.
pub struct Limited {
    pub content: Vec<ContentBlock>,
    pub full_output_path: Option<PathBuf>,
}

/// Keeps the text of `content` within [`MCP_OUTPUT_MAX_BYTES`]; images are kept after it.
pub fn limit_content(content: Vec<ContentBlock>) -> Limited {
    let combined = content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.as_str()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n");
    let Some(cut) = truncate_middle(&combined, MCP_OUTPUT_MAX_BYTES) else {
        return Limited {
            content,
            full_output_path: None,
        };
    };
    let (path, where_) = match save_temp(combined.as_bytes(), ".txt") {
        Ok(p) => {
            let w = format!(
                "\n\n[Full output: {} (read it with offset/limit)]",
                p.display()
            );
            (Some(p), w)
        }
        Err(e) => (None, format!("\n\n[Could not save the full output: {e}]")),
    };
    let tokens = combined.len().div_ceil(4);
    let text = format!(
        "Warning: truncated output (original token count: {tokens})\nTotal output lines: {}\n\n{}{where_}",
        cut.total_lines, cut.content
    );
    let mut out = vec![ContentBlock::text(text)];
    out.extend(
        content
            .into_iter()
            .filter(|b| matches!(b, ContentBlock::Image(_))),
    );
    Limited {
        content: out,
        full_output_path: path,
    }
}

/// Keeps half of `max` bytes from each end, cutting at character boundaries.
fn truncate_middle(text: &str, max: usize) -> Option<Cut> {
    let (head, tail, removed) = rho_tools::spill::cut_middle(text, max / 2, max - max / 2)?;
    let lines = text.split('\n').count() - usize::from(text.ends_with('\n'));
    Some(Cut {
        content: format!("{head}…{removed} chars truncated…{tail}"),
        total_lines: lines,
    })
}

struct Cut {
    content: String,
    total_lines: usize,
}

/// Writes `data` to a new `rho-mcp-…` file in the temp directory and returns its path.
pub fn save_temp(data: &[u8], extension: &str) -> std::io::Result<PathBuf> {
    rho_tools::spill::save_temp("rho-mcp", data, extension)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_text_is_cut_in_the_middle_and_saved() {
        let text = format!("{0}MIDDLE{0}{1}", "a".repeat(15_000), "b\n".repeat(5_000));
        let limited = limit_content(vec![ContentBlock::text(text.clone())]);
        let path = limited.full_output_path.expect("saved");
        assert_eq!(std::fs::read_to_string(&path).expect("readable"), text);
        let ContentBlock::Text(t) = &limited.content[0] else {
            panic!("text first");
        };
        assert!(t.text.starts_with("Warning: truncated output (original token count: 10002)\nTotal output lines: 5000\n\naaa"));
        assert!(t.text.contains("chars truncated…"));
        assert!(!t.text.contains("MIDDLE"));
        assert!(t.text.ends_with(&format!(
            "[Full output: {} (read it with offset/limit)]",
            path.display()
        )));
        let _ = std::fs::remove_file(path);
    }

    #[test]
    fn short_text_passes() {
        let limited = limit_content(vec![ContentBlock::text("hi")]);
        assert!(limited.full_output_path.is_none());
    }
}
