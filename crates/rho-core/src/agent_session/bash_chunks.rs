//! Live output of a user command (`!cmd`, BASH-2 "streamed to onChunk"): the executor
//! reports throttled snapshots of the output's tail; this turns them back into the new
//! text since the previous report, cleaned like the final output.

use rho_tools::output::OutputSnapshot;

use super::bash::sanitize_output;

/// Receives each new piece of a running command's output, already sanitised.
pub type OutputFn = std::sync::Arc<dyn Fn(&str) + Send + Sync>;

/// Remembers how much output was already reported.
#[derive(Debug, Default)]
pub(crate) struct ChunkTracker {
    reported_bytes: usize,
}

impl ChunkTracker {
    /// The text that arrived since the last call, or `None` when nothing did (or only
    /// characters sanitising removes). The snapshot keeps a tail window, so when more
    /// arrived between two reports than the window holds, the chunk is that window.
    /// Boundaries are exact for UTF-8 output; invalid bytes can shift them slightly.
    pub fn next(&mut self, snapshot: &OutputSnapshot) -> Option<String> {
        let total = snapshot.truncation.total_bytes;
        let new = total.checked_sub(self.reported_bytes)?;
        self.reported_bytes = total;
        let text = snapshot.text.as_str();
        let mut start = text.len().saturating_sub(new);
        while !text.is_char_boundary(start) {
            start += 1;
        }
        let chunk = sanitize_output(&text[start..]);
        (!chunk.is_empty()).then_some(chunk)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_tools::output::OutputBuffer;

    #[test]
    fn each_call_yields_only_the_new_text_sanitised() {
        let mut buffer = OutputBuffer::new(2000, 50 * 1024);
        let mut tracker = ChunkTracker::default();
        buffer.push(b"one\n");
        assert_eq!(tracker.next(&buffer.snapshot()).as_deref(), Some("one\n"));
        assert_eq!(tracker.next(&buffer.snapshot()), None, "nothing new");
        buffer.push(b"\x1b[31mtwo\x1b[0m\r\n");
        assert_eq!(tracker.next(&buffer.snapshot()).as_deref(), Some("two\n"));
    }

    #[test]
    fn after_truncation_chunks_come_from_the_tail() {
        let mut buffer = OutputBuffer::new(4, 1024);
        let mut tracker = ChunkTracker::default();
        buffer.push(b"a\nb\nc\n");
        assert_eq!(
            tracker.next(&buffer.snapshot()).as_deref(),
            Some("a\nb\nc\n")
        );
        buffer.push(b"d\n");
        assert_eq!(tracker.next(&buffer.snapshot()).as_deref(), Some("d\n"));
        buffer.push(b"e\nf\ng\nh\n");
        let burst = tracker.next(&buffer.snapshot()).expect("some");
        assert!(burst.ends_with("h\n") && !burst.contains('d'), "{burst:?}");
    }

    #[test]
    fn a_chunk_never_starts_inside_a_character() {
        let mut buffer = OutputBuffer::new(2000, 50 * 1024);
        let mut tracker = ChunkTracker::default();
        buffer.push("é".as_bytes());
        assert_eq!(tracker.next(&buffer.snapshot()).as_deref(), Some("é"));
        buffer.push("ü!".as_bytes());
        assert_eq!(tracker.next(&buffer.snapshot()).as_deref(), Some("ü!"));
    }
}
