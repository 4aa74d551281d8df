//! Putting entries on disk durably.
//!
//! Appends are one `write_all` of `line + "\n"` on an `O_APPEND` file: a process killed at any
//! moment leaves whole lines plus at most one torn last line, which loading skips (see `load.rs`)
//! and [`FileWriter::open_append`] ends with a newline before writing again, so it stays in the
//! file as a whole bad line and no byte already written is lost. Whole-file writes (the first
//! flush of a new session, migration rewrites) go to a temporary file renamed over the target, so
//! they are all-or-nothing. `fsync` is optional ([`Durability`]): a killed process loses nothing
//! without it; only a power loss or kernel crash can.

use std::fs::{File, OpenOptions};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

use super::error::StoreError;
use super::lazy::decode_message;
use rho_protocol::agent::{read_exact_at, MessageFile};
use std::sync::Arc;

/// How hard each write pushes data towards the disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Durability {
    /// Written to the OS before returning: survives a killed process.
    #[default]
    Flush,
    /// Also `fsync`ed before returning: survives a power loss, costs a disk flush per append.
    Sync,
}

/// An open session file that entries are appended to.
#[derive(Debug)]
pub struct FileWriter {
    path: PathBuf,
    /// Shared with the messages written through it, which read themselves back from it.
    file: Arc<MessageFile>,
    durability: Durability,
    /// Bytes known to be on disk: where a torn append is cut back to.
    len: u64,
    /// Where the next append lands (the file's end: bytes another process added count).
    end: u64,
}

impl FileWriter {
    /// Opens an existing session file (read as `valid_len` bytes, `needs_newline` when they do
    /// not end in one) for appending. Nothing is cut off: bytes another process added since the
    /// file was read stay, and a newline is added first whenever the file's last line lacks one.
    pub fn open_append(
        path: &Path,
        valid_len: u64,
        needs_newline: bool,
        durability: Durability,
    ) -> Result<Self, StoreError> {
        let io = |e| StoreError::io(path, e);
        let file = OpenOptions::new()
            .read(true)
            .append(true)
            .open(path)
            .map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let needs_newline = if len == valid_len {
            needs_newline
        } else {
            let mut last = [0u8];
            len > 0 && read_exact_at(&file, &mut last, len - 1).is_ok() && last[0] != b'\n'
        };
        if needs_newline {
            (&file).write_all(b"\n").map_err(io)?;
        }
        Ok(Self {
            path: path.to_path_buf(),
            file: MessageFile::new(path, file, decode_message),
            durability,
            len: valid_len + u64::from(needs_newline),
            end: len + u64::from(needs_newline),
        })
    }

    /// Creates `path` holding `contents` (header and buffered entries) all at once, then keeps
    /// it open for appends. Refuses to replace an existing file.
    pub fn create(
        path: &Path,
        contents: &[u8],
        durability: Durability,
    ) -> Result<Self, StoreError> {
        if path.exists() {
            return Err(StoreError::AlreadyExists {
                path: path.to_path_buf(),
            });
        }
        write_atomic(path, contents, durability)?;
        Self::open_append(path, contents.len() as u64, false, durability)
    }

    /// Appends one serialized entry (without its newline) as a single write; returns the
    /// offset the line starts at. That is where the write landed, read back from this
    /// handle's position: the file is opened for appending, so a line another process
    /// appended since lies before it.
    pub fn append_line(&mut self, mut line: Vec<u8>) -> Result<u64, StoreError> {
        line.push(b'\n');
        let io = |e| StoreError::io(&self.path, e);
        let mut file = self.file.file();
        file.write_all(&line).map_err(io)?;
        file.flush().map_err(io)?;
        if self.durability == Durability::Sync {
            file.sync_data().map_err(io)?;
        }
        let written = line.len() as u64;
        // Positions only grow; one that did not is not trusted (an append-only handle
        // whose position the system does not keep).
        let expected = self.end + written;
        let end = file.stream_position().ok().filter(|&p| p >= expected);
        self.end = end.unwrap_or(expected);
        self.len += written;
        Ok(self.end - written)
    }

    /// The open file, for messages that read themselves back from it.
    pub fn message_file(&self) -> &Arc<MessageFile> {
        &self.file
    }

    /// Bytes written by whole appends (and found valid when opened).
    pub fn written_len(&self) -> u64 {
        self.len
    }

    /// The file written to.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// Replaces `path` with `contents` via a temporary file in the same directory and a rename.
pub fn write_atomic(
    path: &Path,
    contents: &[u8],
    durability: Durability,
) -> Result<(), StoreError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        create_private_dirs(dir).map_err(|e| StoreError::io(dir, e))?;
    }
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(".{}.tmp", std::process::id()));
    let tmp = path.with_file_name(tmp_name);
    let result = (|| {
        let mut file = create_private_file(&tmp)?;
        file.write_all(contents)?;
        if durability == Durability::Sync {
            file.sync_all()?;
        }
        std::fs::rename(&tmp, path)
    })();
    result.map_err(|e| {
        let _ = std::fs::remove_file(&tmp);
        StoreError::io(path, e)
    })
}

/// Session files hold whole conversations: owner-only (0600) whatever the umask.
#[cfg(unix)]
const FILE_MODE: u32 = 0o600;
/// Directories rho creates for sessions: owner-only (0700) whatever the umask.
#[cfg(unix)]
const DIR_MODE: u32 = 0o700;

/// Creates `path` for writing, owner-only: on unix mode 0600, set explicitly because the
/// umask only narrows the mode given at creation; on Windows the file inherits its folder's
/// ACL, which under the user's profile (where `~/.pi` lives) grants only the user, SYSTEM and
/// Administrators.
pub(crate) fn create_private_file(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, FILE_MODE);
    let file = options.open(path)?;
    #[cfg(unix)]
    file.set_permissions(std::os::unix::fs::PermissionsExt::from_mode(FILE_MODE))?;
    Ok(file)
}

/// Creates `dir` and any missing parents, owner-only as [`create_private_file`] (0700 on
/// unix); existing directories are left as they are (the user may have chosen their modes).
fn create_private_dirs(dir: &Path) -> std::io::Result<()> {
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
        create_private_dirs(parent)?;
    }
    #[cfg(unix)]
    let builder = std::os::unix::fs::DirBuilderExt::mode(&mut std::fs::DirBuilder::new(), DIR_MODE)
        .create(dir);
    #[cfg(not(unix))]
    let builder = std::fs::DirBuilder::new().create(dir);
    match builder {
        #[cfg(unix)]
        Ok(()) => {
            std::fs::set_permissions(dir, std::os::unix::fs::PermissionsExt::from_mode(DIR_MODE))
        }
        #[cfg(not(unix))]
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
#[cfg(unix)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    /// Issue 17 #11: session files are 0600 and new session dirs 0700 even under umask 0.
    #[test]
    fn files_are_0600_and_new_dirs_0700_under_umask_0() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("sessions/--work--/s.jsonl");
        // SAFETY: umask is process-wide; this is the only test in this binary that writes
        // files with a mode it checks, and it restores the old mask.
        let old = unsafe { libc::umask(0) };
        let result = write_atomic(&path, b"{}\n", Durability::Flush);
        unsafe { libc::umask(old) };
        result.expect("write");
        let mode = |p: &Path| std::fs::metadata(p).expect("stat").permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&tmp.path().join("sessions")), 0o700);
        assert_eq!(mode(&tmp.path().join("sessions/--work--")), 0o700);
    }
}
