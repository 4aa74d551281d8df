//! Collects a command's output with bounded memory: the whole output while it is small, then
//! only a tail window, the full output going to `$TMPDIR/pi-bash-<16 hex>.log`.

use std::collections::hash_map::RandomState;
use std::fs::File;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::path::PathBuf;

use crate::truncate::{truncate_tail_counted, Truncation};

/// The output so far, as the model would see it.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputSnapshot {
    /// The kept tail text.
    pub text: String,
    /// Truncation facts (`truncated` false when everything is kept).
    pub truncation: Truncation,
    /// The file holding the full output, once it was truncated.
    pub full_output_path: Option<PathBuf>,
    /// Bytes of the last line (for the partial-line notice).
    pub last_line_bytes: usize,
}

/// Accumulates output chunks.
pub struct OutputBuffer {
    window: Vec<u8>,
    total_bytes: usize,
    newlines: usize,
    last_line_bytes: usize,
    file: Option<(PathBuf, File)>,
    file_error: Option<String>,
    max_lines: usize,
    max_bytes: usize,
}

fn temp_log_path() -> PathBuf {
    let mut hasher = RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.write_u32(std::process::id());
    std::env::temp_dir().join(format!("pi-bash-{:016x}.log", hasher.finish()))
}

impl OutputBuffer {
    /// A buffer keeping at most `max_lines` / `max_bytes` for the model.
    pub fn new(max_lines: usize, max_bytes: usize) -> Self {
        Self {
            window: Vec::new(),
            total_bytes: 0,
            newlines: 0,
            last_line_bytes: 0,
            file: None,
            file_error: None,
            max_lines,
            max_bytes,
        }
    }

    fn over_limits(&self) -> bool {
        self.newlines + 1 > self.max_lines || self.total_bytes > self.max_bytes
    }

    /// Adds a chunk; starts the full-output file when the limits are first passed.
    pub fn push(&mut self, chunk: &[u8]) {
        self.total_bytes += chunk.len();
        let nl = memchr::memchr_iter(b'\n', chunk).count();
        self.newlines += nl;
        self.last_line_bytes = match memchr::memrchr(b'\n', chunk) {
            Some(i) => chunk.len() - i - 1,
            None => self.last_line_bytes + chunk.len(),
        };
        self.window.extend_from_slice(chunk);
        if let Some((_, file)) = &mut self.file {
            if let Err(err) = file.write_all(chunk) {
                self.file_error = Some(err.to_string());
            }
        } else if self.over_limits() {
            let path = temp_log_path();
            match File::create(&path).and_then(|mut f| f.write_all(&self.window).map(|_| f)) {
                Ok(file) => self.file = Some((path, file)),
                Err(err) => self.file_error = Some(err.to_string()),
            }
        }
        self.trim_window();
    }

    fn trim_window(&mut self) {
        let keep = self.max_bytes + 8;
        if self.window.len() <= keep * 4 {
            return;
        }
        let mut cut = self.window.len() - keep;
        while cut < self.window.len() && (self.window[cut] & 0xC0) == 0x80 {
            cut += 1;
        }
        self.window.drain(..cut);
    }

    /// Total bytes received.
    pub fn total_bytes(&self) -> usize {
        self.total_bytes
    }

    /// A problem writing the full-output file, if any.
    pub fn file_error(&self) -> Option<&str> {
        self.file_error.as_deref()
    }

    /// The current tail as the model would see it.
    pub fn snapshot(&mut self) -> OutputSnapshot {
        if let Some((_, file)) = &mut self.file {
            let _ = file.flush();
        }
        let text = String::from_utf8_lossy(&self.window);
        let truncation = truncate_tail_counted(
            &text,
            self.newlines + 1,
            self.total_bytes,
            self.max_lines,
            self.max_bytes,
        );
        OutputSnapshot {
            text: truncation.content.clone(),
            truncation,
            full_output_path: self.file.as_ref().map(|(p, _)| p.clone()),
            last_line_bytes: self.last_line_bytes,
        }
    }
}

/// The whole output for programmatic callers (codemode scripts), up to `max_bytes`: longer
/// output keeps its first and last `max_bytes / 2` bytes around pi's omission marker, cut at
/// character boundaries. The bool says whether it was cut. Reads the full-output file when
/// the snapshot was truncated for the model.
pub fn read_full_output(
    snap: &OutputSnapshot,
    max_bytes: usize,
) -> std::io::Result<(String, bool)> {
    use std::io::{Read, Seek, SeekFrom};
    let Some(path) = &snap.full_output_path else {
        return Ok((snap.text.clone(), false));
    };
    let mut file = File::open(path)?;
    let size = file.metadata()?.len() as usize;
    if size <= max_bytes {
        let mut all = Vec::with_capacity(size);
        file.read_to_end(&mut all)?;
        return Ok((String::from_utf8_lossy(&all).into_owned(), false));
    }
    let head_bytes = max_bytes / 2;
    let tail_bytes = max_bytes - head_bytes;
    let mut head = vec![0; head_bytes];
    file.read_exact(&mut head)?;
    let mut tail = vec![0; tail_bytes];
    file.seek(SeekFrom::Start((size - tail_bytes) as u64))?;
    file.read_exact(&mut tail)?;
    // A sequence cut at the head's end is dropped; the tail skips continuation bytes.
    let head_text = match std::str::from_utf8(&head) {
        Ok(t) => t.to_string(),
        Err(e) if e.error_len().is_none() => {
            String::from_utf8_lossy(&head[..e.valid_up_to()]).into_owned()
        }
        Err(_) => String::from_utf8_lossy(&head).into_owned(),
    };
    let start = tail.iter().take_while(|b| (**b & 0xC0) == 0x80).count();
    let tail_text = String::from_utf8_lossy(&tail[start..]);
    let omitted = size - head_bytes - tail_bytes;
    Ok((
        format!("{head_text}\n\n[... {omitted} bytes omitted ...]\n\n{tail_text}"),
        true,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn full_output_for_scripts_is_whole_or_cut_in_the_middle() {
        let mut small = OutputBuffer::new(2000, 50 * 1024);
        small.push(b"one\ntwo\n");
        assert_eq!(
            read_full_output(&small.snapshot(), 1024).unwrap(),
            ("one\ntwo\n".to_string(), false)
        );
        let mut big = OutputBuffer::new(10, 100);
        let text = format!("{}MIDDLE{}", "a".repeat(300), "é".repeat(150));
        big.push(text.as_bytes());
        let snap = big.snapshot();
        assert_eq!(
            read_full_output(&snap, 4096).unwrap(),
            (text.clone(), false)
        );
        let (cut, truncated) = read_full_output(&snap, 101).unwrap();
        assert!(truncated);
        assert!(cut.starts_with(&"a".repeat(50)));
        assert!(cut.contains("\n\n[... 505 bytes omitted ...]\n\n"), "{cut}");
        assert!(cut.ends_with(&"é".repeat(25)) && !cut.contains("MIDDLE"));
        std::fs::remove_file(snap.full_output_path.unwrap()).unwrap();
    }

    #[test]
    fn small_output_is_kept_whole_without_a_file() {
        let mut buf = OutputBuffer::new(10, 100);
        buf.push(b"hello\n");
        buf.push(b"world");
        let snap = buf.snapshot();
        assert_eq!(snap.text, "hello\nworld");
        assert!(!snap.truncation.truncated);
        assert_eq!(snap.full_output_path, None);
    }

    #[test]
    fn large_output_keeps_the_tail_and_writes_everything_to_a_file() {
        let mut buf = OutputBuffer::new(5, 1000);
        let mut all = Vec::new();
        for i in 0..10_000 {
            let line = format!("line {i}\n");
            all.extend_from_slice(line.as_bytes());
            buf.push(line.as_bytes());
        }
        let snap = buf.snapshot();
        assert_eq!(snap.text, "line 9996\nline 9997\nline 9998\nline 9999\n");
        assert_eq!(snap.truncation.total_lines, 10_001);
        let path = snap.full_output_path.expect("file");
        let name = path.file_name().and_then(|n| n.to_str()).expect("name");
        assert!(
            name.starts_with("pi-bash-") && name.ends_with(".log") && name.len() == 28,
            "{name}"
        );
        assert_eq!(std::fs::read(&path).expect("read"), all);
        std::fs::remove_file(path).expect("cleanup");
    }
}
