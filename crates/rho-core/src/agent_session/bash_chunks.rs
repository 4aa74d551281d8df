//! Live output of a user command (`!cmd`, RPC `bash`; BASH-2 "streamed to onChunk"): each
//! piece the shell writes is decoded and cleaned like the final output. A character or an
//! escape sequence split between two pieces waits for its rest, so the pieces joined are
//! the cleaned output.

use super::bash::sanitize_output;

/// Receives each new piece of a running command's output, already sanitised.
pub type OutputFn = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// Holds back an unfinished character or escape sequence between pieces.
#[derive(Debug, Default)]
pub(crate) struct ChunkDecoder {
    pending: Vec<u8>,
}

impl ChunkDecoder {
    /// The cleaned text of `bytes` and whatever waited, or `None` when nothing printable is
    /// complete yet.
    pub fn push(&mut self, bytes: &[u8]) -> Option<String> {
        self.pending.extend_from_slice(bytes);
        let complete = complete_prefix(&self.pending);
        let text = sanitize_output(&String::from_utf8_lossy(&self.pending[..complete]));
        self.pending.drain(..complete);
        (!text.is_empty()).then_some(text)
    }

    /// Whatever still waits, cleaned (the command ended).
    pub fn finish(&mut self) -> Option<String> {
        let rest = std::mem::take(&mut self.pending);
        let text = sanitize_output(&String::from_utf8_lossy(&rest));
        (!text.is_empty()).then_some(text)
    }
}

/// How much of `bytes` can be cleaned now: everything but a trailing incomplete UTF-8
/// character or an escape sequence still missing its end.
fn complete_prefix(bytes: &[u8]) -> usize {
    let utf8_end = match std::str::from_utf8(bytes) {
        Ok(_) => bytes.len(),
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        Err(_) => bytes.len(),
    };
    match bytes[..utf8_end].iter().rposition(|&b| b == 0x1b) {
        Some(esc) if !escape_complete(&bytes[esc + 1..utf8_end]) => esc,
        _ => utf8_end,
    }
}

/// Whether the bytes after an ESC finish its sequence (CSI ends with a final byte, OSC with
/// BEL or `ESC \`, anything else is two characters long).
fn escape_complete(rest: &[u8]) -> bool {
    match rest.first() {
        None => false,
        Some(b'[') => rest[1..].iter().any(|b| (0x40..=0x7e).contains(b)),
        Some(b']') => rest[1..].contains(&0x07),
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_piece_yields_its_text_sanitised() {
        let mut d = ChunkDecoder::default();
        assert_eq!(d.push(b"one\n").as_deref(), Some("one\n"));
        assert_eq!(d.push(b"\x1b[31mtwo\x1b[0m\r\n").as_deref(), Some("two\n"));
        assert_eq!(d.push(b"\x07"), None, "only a control character");
    }

    #[test]
    fn a_split_character_or_escape_waits_for_its_rest() {
        let mut d = ChunkDecoder::default();
        let e = "é".as_bytes();
        assert_eq!(d.push(&[b'a', e[0]]).as_deref(), Some("a"));
        assert_eq!(d.push(&[e[1], b'!']).as_deref(), Some("é!"));
        assert_eq!(d.push(b"x\x1b[3").as_deref(), Some("x"));
        assert_eq!(d.push(b"1mred").as_deref(), Some("red"));
        assert_eq!(d.push(b"\x1b]0;tit").as_deref(), None);
        assert_eq!(d.push(b"le\x07ok").as_deref(), Some("ok"));
        assert_eq!(d.push(b"\xc3"), None);
        assert_eq!(d.finish(), None, "a lone broken byte is dropped");
    }
}
