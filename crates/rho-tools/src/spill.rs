//! Long output that a tool cuts for the model keeps its full text in a temp file the model can
//! read; this writes such files and cuts text in the middle (MCP results, codemode output).

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

/// Writes `data` to a new file `<prefix>-<pid>-<time>-<n><extension>` in the temp directory.
pub fn save_temp(prefix: &str, data: &[u8], extension: &str) -> std::io::Result<PathBuf> {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let stamp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let path = std::env::temp_dir().join(format!(
        "{prefix}-{}-{stamp}-{n}{extension}",
        std::process::id()
    ));
    std::fs::write(&path, data)?;
    Ok(path)
}

/// `text` without its middle: at most `head` bytes from the start and `tail` bytes from the
/// end, cut at character boundaries, and how many characters were left out. `None` when it
/// fits.
pub fn cut_middle(text: &str, head: usize, tail: usize) -> Option<(&str, &str, usize)> {
    if text.len() <= head + tail {
        return None;
    }
    let mut head_end = head;
    while head_end > 0 && !text.is_char_boundary(head_end) {
        head_end -= 1;
    }
    let mut tail_start = text.len() - tail;
    while tail_start < text.len() && !text.is_char_boundary(tail_start) {
        tail_start += 1;
    }
    let removed = text[head_end..tail_start].chars().count();
    Some((&text[..head_end], &text[tail_start..], removed))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_at_character_boundaries() {
        assert_eq!(cut_middle("short", 3, 3), None);
        let (head, tail, removed) = cut_middle("ééééé", 3, 3).unwrap();
        assert_eq!((head, tail, removed), ("é", "é", 3));
    }

    #[test]
    fn saves_files_with_the_prefix() {
        let path = save_temp("rho-spill-test", b"data", ".txt").unwrap();
        assert!(path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with("rho-spill-test-"));
        assert_eq!(std::fs::read(&path).unwrap(), b"data");
        std::fs::remove_file(path).unwrap();
    }
}
