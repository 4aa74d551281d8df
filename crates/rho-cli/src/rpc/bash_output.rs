//! How a `bash` command's output is cleaned and cut for the result (interfaces spec §1.4
//! `bash`): ANSI escapes stripped, `\r`, control and undecodable characters removed, then
//! the tail kept within 2000 lines and 50 KiB.

/// Most lines kept.
pub const MAX_LINES: usize = 2000;
/// Most bytes kept.
pub const MAX_BYTES: usize = 50 * 1024;

/// Decodes and cleans raw output (the session's `!cmd` cleaning, one implementation).
pub fn sanitize(raw: &[u8]) -> String {
    rho_core::agent_session::sanitize_output(&String::from_utf8_lossy(raw))
}

/// The tail of `text` within the limits, and whether anything was cut.
pub fn truncate_tail(text: &str) -> (String, bool) {
    let lines: Vec<&str> = text.split('\n').collect();
    if lines.len() <= MAX_LINES && text.len() <= MAX_BYTES {
        return (text.to_string(), false);
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut bytes = 0;
    for line in lines.iter().rev().take(MAX_LINES) {
        let cost = line.len() + usize::from(!kept.is_empty());
        if bytes + cost > MAX_BYTES {
            if kept.is_empty() {
                let mut start = line.len() - MAX_BYTES;
                while !line.is_char_boundary(start) {
                    start += 1;
                }
                kept.push(&line[start..]);
            }
            break;
        }
        bytes += cost;
        kept.push(line);
    }
    kept.reverse();
    (kept.join("\n"), true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_ansi_cr_controls_and_bad_bytes() {
        let raw = b"\x1b[31mred\x1b[0m\r\nbell\x07 \x1b]0;title\x07ok\t\xff!\n";
        assert_eq!(sanitize(raw), "red\nbell ok\t!\n");
    }

    #[test]
    fn short_output_is_untouched() {
        assert_eq!(truncate_tail("a\nb\n"), ("a\nb\n".to_string(), false));
    }

    #[test]
    fn keeps_the_last_2000_lines() {
        let text: String = (0..2500).map(|i| format!("{i}\n")).collect();
        let (kept, cut) = truncate_tail(&text);
        assert!(cut);
        assert_eq!(kept.split('\n').count(), MAX_LINES);
        assert!(kept.ends_with("2499\n"));
        assert!(kept.starts_with("501\n"));
    }

    #[test]
    fn keeps_at_most_50_kib_of_whole_lines() {
        let text = format!("{}\n{}\nend", "x".repeat(40_000), "y".repeat(40_000));
        let (kept, cut) = truncate_tail(&text);
        assert!(cut);
        assert_eq!(kept, format!("{}\nend", "y".repeat(40_000)));
        let (kept, _) = truncate_tail(&"é".repeat(40_000));
        assert!(kept.len() <= MAX_BYTES && kept.chars().all(|c| c == 'é'));
    }
}
