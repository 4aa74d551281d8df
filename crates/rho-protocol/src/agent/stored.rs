//! A message shared by the agent's transcript and the session's entry, held decoded only while
//! something uses it.
//!
//! A long session must not live in memory twice (once as the file, once decoded): once a
//! message's line is durably in the session file, the cell only has to know where it is
//! ([`Origin`]: an open file, a byte offset, a length and a checksum). The decoded message is
//! kept while it is in use (a run sends it); [`StoredMessage::release`] then keeps only a weak
//! reference, and [`StoredMessage::get`] reads and decodes the bytes again when someone needs
//! them. The file is read through a descriptor kept open, so renaming or deleting its path
//! changes nothing; a file another program truncated or rewrote in place gives a [`ReadError`],
//! never a wrong message: bytes read back must have the checksum of those read or written
//! there (CRC-32, about 20× faster than parsing them again, so copying a message as stored
//! costs little more than the copy).

use std::borrow::Cow;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, Weak};

use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

use super::message::AgentMessage;

/// Decodes one stored message's JSON (the session loader's decoder, which is faster than
/// serde's derive for tagged enums).
pub type DecodeFn = fn(&str) -> Result<AgentMessage, serde_json::Error>;

/// A session file open for reading messages back.
pub struct MessageFile {
    path: PathBuf,
    file: File,
    decode: DecodeFn,
}

impl std::fmt::Debug for MessageFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageFile")
            .field("path", &self.path)
            .finish()
    }
}

impl MessageFile {
    /// Wraps an open `file` (read access) whose messages `decode` decodes.
    pub fn new(path: &Path, file: File, decode: DecodeFn) -> Arc<Self> {
        Arc::new(Self {
            path: path.to_path_buf(),
            file,
            decode,
        })
    }

    /// The path the file was opened at.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The open file (writers append through it).
    pub fn file(&self) -> &File {
        &self.file
    }
}

/// Where a message's JSON is in a session file, and the checksum of its bytes there.
#[derive(Clone, Debug)]
pub struct Origin {
    file: Arc<MessageFile>,
    offset: u64,
    len: u64,
    crc: u32,
}

impl Origin {
    /// `json`, read from or written at byte `offset` of `file`, is the message's JSON value.
    pub fn new(file: Arc<MessageFile>, offset: u64, json: &[u8]) -> Self {
        Self {
            file,
            offset,
            len: json.len() as u64,
            crc: crc32fast::hash(json),
        }
    }

    /// A message known to be `len` bytes at `offset` of `file` with checksum `crc` (from a
    /// session's entry index, which recorded them when the bytes were read).
    pub fn known(file: Arc<MessageFile>, offset: u64, len: u64, crc: u32) -> Self {
        Self {
            file,
            offset,
            len,
            crc,
        }
    }

    /// The CRC-32 of the message's bytes.
    pub fn crc(&self) -> u32 {
        self.crc
    }

    /// The byte offset of the message's JSON in the file.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The end of the message's JSON in the file.
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }

    /// Whether both are in the same open file.
    pub(crate) fn same_file(&self, other: &Origin) -> bool {
        Arc::ptr_eq(&self.file, &other.file)
    }

    /// Reads the bytes from this message's start to `end` (this message and its neighbours)
    /// into `buf`, which keeps its allocation (and its initialised length) for the next read.
    pub(crate) fn read_into<'b>(
        &self,
        end: u64,
        buf: &'b mut Vec<u8>,
    ) -> Result<&'b [u8], ReadError> {
        let len = usize::try_from(end.saturating_sub(self.offset))
            .map_err(|e| self.changed(e.to_string()))?;
        if buf.len() < len {
            buf.resize(len, 0);
        }
        let bytes = &mut buf[..len];
        read_exact_at(&self.file.file, bytes, self.offset)
            .map_err(|e| self.changed(e.to_string()))?;
        Ok(bytes)
    }

    /// `bytes`, read from this message's place, checked to be the bytes read or written there
    /// (so also UTF-8 text and a JSON object of the cell's role, as they were then).
    pub(crate) fn checked<'a>(&self, bytes: &'a [u8]) -> Result<&'a [u8], ReadError> {
        if bytes.len() as u64 != self.len || crc32fast::hash(bytes) != self.crc {
            return Err(self.changed("the bytes there are not the message's any more".into()));
        }
        Ok(bytes)
    }

    /// The message's JSON text, read and checked.
    fn read_text(&self) -> Result<String, ReadError> {
        let mut bytes = Vec::new();
        self.read_into(self.end(), &mut bytes)?;
        self.checked(&bytes)?;
        String::from_utf8(bytes).map_err(|_| self.changed("not UTF-8 text".into()))
    }

    /// Reads and decodes the message.
    fn load(&self) -> Result<AgentMessage, ReadError> {
        let text = self.read_text()?;
        let message =
            (self.file.decode)(&text).map_err(|e| self.changed(format!("bad message: {e}")))?;
        DECODED_FROM_FILE.fetch_add(1, Ordering::Relaxed);
        Ok(message)
    }

    fn changed(&self, reason: String) -> ReadError {
        ReadError {
            path: self.file.path.clone(),
            offset: self.offset,
            reason,
        }
    }
}

/// The `role` of a message's JSON. It is the first key in the files pi and rho write, so it
/// is read without scanning the message; otherwise the message is scanned for it.
pub fn stored_role(json: &str) -> Result<Cow<'_, str>, serde_json::Error> {
    let first = json
        .strip_prefix(r#"{"role":""#)
        .and_then(|rest| rest.split_once('"'))
        .map(|(role, _)| role)
        .filter(|role| !role.contains('\\'));
    if let Some(role) = first {
        return Ok(Cow::Borrowed(role));
    }
    /// Unknown fields are skipped without being kept.
    #[derive(Deserialize)]
    struct Shape {
        role: String,
    }
    serde_json::from_str::<Shape>(json).map(|shape| Cow::Owned(shape.role))
}

/// A message that was in the session file could not be read back.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "cannot read the message at byte {offset} of the session file {}: {reason} (was the file \
     truncated or rewritten by another program?)",
    path.display()
)]
pub struct ReadError {
    /// The session file.
    pub path: PathBuf,
    /// Where the message's JSON was.
    pub offset: u64,
    /// What went wrong.
    pub reason: String,
}

/// Messages decoded from a session file so far in this process (tests check that opening a
/// session and answering `get_state` decode none).
static DECODED_FROM_FILE: AtomicU64 = AtomicU64::new(0);

/// How many messages were read back and decoded from session files in this process.
pub fn decoded_from_file() -> u64 {
    DECODED_FROM_FILE.load(Ordering::Relaxed)
}

/// The decoded message, or only a weak reference to it once released.
enum Held {
    Strong(Arc<AgentMessage>),
    Weak(Weak<AgentMessage>),
}

struct Cell {
    held: Mutex<Held>,
    origin: Place,
    role: &'static str,
}

/// Where a cell's message is on disk.
enum Place {
    /// Known when the cell was made (a session opened from a file). Not a `OnceLock` made
    /// set: `OnceLock::from` sets it through the lock's `Once`, which was a tenth of
    /// reopening a long session from its summary (one cell per message of its context).
    Known(Origin),
    /// Set once the message is written (a message made in this process).
    Later(OnceLock<Origin>),
}

impl Cell {
    fn on_disk(origin: Origin, role: &'static str) -> Self {
        Cell {
            held: Mutex::new(Held::Weak(Weak::new())),
            origin: Place::Known(origin),
            role,
        }
    }
}

impl Place {
    fn get(&self) -> Option<&Origin> {
        match self {
            Place::Known(origin) => Some(origin),
            Place::Later(slot) => slot.get(),
        }
    }
}

/// A message of the transcript and of the session, shared (cloning shares the cell).
///
/// Cells live in shared runs: one cell for a message made or read on its own, one run for
/// all the messages of a context reopened from its summary ([`Self::on_disk_run`]), which
/// takes one allocation where 50,000 cells took 50,000.
#[derive(Clone)]
pub struct StoredMessage {
    run: Arc<[Cell]>,
    at: u32,
}

impl StoredMessage {
    /// A message held in memory, not (yet) on disk.
    pub fn new(message: Arc<AgentMessage>) -> Self {
        let role = message.role();
        Self::alone(Cell {
            held: Mutex::new(Held::Strong(message)),
            origin: Place::Later(OnceLock::new()),
            role,
        })
    }

    /// A message known only by where it is on disk (a session opened from a file); `role` is
    /// its `role` (checked when it was loaded).
    pub fn on_disk(origin: Origin, role: &'static str) -> Self {
        Self::alone(Cell::on_disk(origin, role))
    }

    /// [`Self::on_disk`] for `count` messages of `file`, in one run of cells: `next` gives
    /// each one's `(offset, len, crc, role)` in turn and is called exactly `count` times.
    pub fn on_disk_run(
        file: &Arc<MessageFile>,
        count: usize,
        mut next: impl FnMut() -> (u64, u64, u32, &'static str),
    ) -> Vec<Self> {
        // A range's mapped iterator has an exact length, so the run is allocated once and
        // filled in place.
        let run: Arc<[Cell]> = (0..count)
            .map(|_| {
                let (offset, len, crc, role) = next();
                Cell::on_disk(Origin::known(Arc::clone(file), offset, len, crc), role)
            })
            .collect();
        (0..count)
            .map(|at| Self {
                run: Arc::clone(&run),
                at: at as u32,
            })
            .collect()
    }

    fn alone(cell: Cell) -> Self {
        Self {
            run: Arc::new([cell]),
            at: 0,
        }
    }

    fn cell(&self) -> &Cell {
        &self.run[self.at as usize]
    }

    /// The message's role, known without decoding it.
    pub fn role(&self) -> &'static str {
        self.cell().role
    }

    /// The decoded message: the one held, else read back from the session file.
    pub fn get(&self) -> Result<Arc<AgentMessage>, ReadError> {
        let mut held = lock(&self.cell().held);
        match &*held {
            Held::Strong(m) => return Ok(Arc::clone(m)),
            Held::Weak(w) => {
                if let Some(m) = w.upgrade() {
                    return Ok(m);
                }
            }
        }
        let origin = self.origin_or_error()?;
        let message = Arc::new(origin.load()?);
        *held = Held::Weak(Arc::downgrade(&message));
        Ok(message)
    }

    /// The decoded message while it is held (no disk access).
    pub fn held(&self) -> Option<Arc<AgentMessage>> {
        match &*lock(&self.cell().held) {
            Held::Strong(m) => Some(Arc::clone(m)),
            Held::Weak(w) => w.upgrade(),
        }
    }

    /// Keeps the decoded message until [`Self::release`] (e.g. for the run that sends it).
    pub fn hold(&self) -> Result<Arc<AgentMessage>, ReadError> {
        let message = self.get()?;
        *lock(&self.cell().held) = Held::Strong(Arc::clone(&message));
        Ok(message)
    }

    /// Records where the message now is on disk (once written and flushed); the first origin
    /// set stays.
    pub fn set_origin(&self, origin: Origin) {
        if let Place::Later(slot) = &self.cell().origin {
            let _ = slot.set(origin);
        }
    }

    /// Where the message is on disk, if it is.
    pub fn origin(&self) -> Option<&Origin> {
        self.cell().origin.get()
    }

    /// Drops the decoded message if it is on disk (it is read back when needed again).
    /// Returns whether it was released.
    pub fn release(&self) -> bool {
        if self.cell().origin.get().is_none() {
            return false;
        }
        let mut held = lock(&self.cell().held);
        if let Held::Strong(m) = &*held {
            *held = Held::Weak(Arc::downgrade(m));
        }
        true
    }

    /// The origin of a cell whose message is not held. Every such cell has one
    /// ([`Self::on_disk`] sets it, and [`Self::release`] requires one).
    pub(crate) fn origin_or_error(&self) -> Result<&Origin, ReadError> {
        self.cell().origin.get().ok_or_else(|| ReadError {
            path: PathBuf::new(),
            offset: 0,
            reason: "a released message without an origin".into(),
        })
    }

    /// Whether both share one cell.
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.run, &other.run) && self.at == other.at
    }

    /// Whether this cell holds exactly `message` (the same allocation).
    pub fn holds(&self, message: &Arc<AgentMessage>) -> bool {
        self.held().is_some_and(|m| Arc::ptr_eq(&m, message))
    }
}

/// Decodes every message in order; the first that cannot be read is the error.
pub fn decode_all(messages: &[StoredMessage]) -> Result<Vec<Arc<AgentMessage>>, ReadError> {
    messages.iter().map(StoredMessage::get).collect()
}

fn lock(m: &Mutex<Held>) -> std::sync::MutexGuard<'_, Held> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl From<AgentMessage> for StoredMessage {
    fn from(message: AgentMessage) -> Self {
        Self::new(Arc::new(message))
    }
}

impl From<Arc<AgentMessage>> for StoredMessage {
    fn from(message: Arc<AgentMessage>) -> Self {
        Self::new(message)
    }
}

impl std::fmt::Debug for StoredMessage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.held() {
            Some(m) => m.fmt(f),
            None => {
                let offset = self.origin().map_or(0, Origin::offset);
                write!(f, "{} message at byte {offset} (on disk)", self.role())
            }
        }
    }
}

/// Equal when they share a cell or their messages are equal; a message that cannot be read
/// equals nothing else.
impl PartialEq for StoredMessage {
    fn eq(&self, other: &Self) -> bool {
        if self.ptr_eq(other) {
            return true;
        }
        match (self.get(), other.get()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

/// A held message is encoded; one on disk is copied as stored (pi's readers get the JSON the
/// file has, as pi itself sends it), without decoding it.
impl Serialize for StoredMessage {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if let Some(m) = self.held() {
            return m.serialize(s);
        }
        let origin = self.origin_or_error().map_err(serde::ser::Error::custom)?;
        let text = origin.read_text().map_err(serde::ser::Error::custom)?;
        // serde has no way to pass bytes through but a `RawValue`, which is made by parsing.
        let raw: &RawValue = serde_json::from_str(&text).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

/// Fills `buf` from `file` at `offset` without touching a cursor other readers rely on: unix
/// reads by position (`pread`); Windows' positioned read moves the handle's cursor, which no
/// reader of a session file uses (every read names its offset; appends go to the end).
pub fn read_exact_at(file: &File, buf: &mut [u8], offset: u64) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        std::os::unix::fs::FileExt::read_exact_at(file, buf, offset)
    }
    #[cfg(windows)]
    {
        let mut done = 0;
        while done < buf.len() {
            let read = std::os::windows::fs::FileExt::seek_read(
                file,
                &mut buf[done..],
                offset + done as u64,
            )?;
            if read == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            done += read;
        }
        Ok(())
    }
}
