//! A message left on disk, as the session's sidecars record it: its role and where its JSON
//! is in the file. Opening a session leaves the bulk roles' messages there (`lazy.rs`); the
//! entry index (`index.rs`) and the leaf summary (`summary.rs`) both record such a message
//! with this one record, so the two files encode it the same way.

use std::sync::Arc;

use rho_protocol::agent::{MessageFile, Origin, StoredMessage};

use super::codec::{Reader, Writer};

/// The roles whose messages stay on disk when a session is opened, by their number in the
/// sidecars.
pub(crate) const LAZY_ROLES: [&str; 3] = ["user", "assistant", "toolResult"];

/// A message of a role in [`LAZY_ROLES`] whose JSON is `len` bytes at `offset`, of CRC-32 `crc`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct DiskMessage {
    pub role: &'static str,
    pub offset: u64,
    pub len: u64,
    pub crc: u32,
}

impl DiskMessage {
    /// The record of `message`, when it is of a role left on disk and known to be in the file.
    pub(crate) fn of(message: &StoredMessage) -> Option<Self> {
        let role = lazy_role(message.role())?;
        let origin = message.origin()?;
        Some(Self {
            role,
            offset: origin.offset(),
            len: origin.end() - origin.offset(),
            crc: origin.crc(),
        })
    }

    /// The message this record names in `file`, left on disk until it is read.
    pub(crate) fn stored(self, file: &Arc<MessageFile>) -> StoredMessage {
        let origin = Origin::known(Arc::clone(file), self.offset, self.len, self.crc);
        StoredMessage::on_disk(origin, self.role)
    }

    /// The role's number, which the sidecars write before the record's other fields.
    pub(crate) fn tag(self) -> u8 {
        LAZY_ROLES.iter().position(|r| *r == self.role).unwrap_or(0) as u8
    }

    /// Writes the record's place (the tag is written by the caller, where its format puts it).
    pub(crate) fn write_place(self, w: &mut Writer) {
        w.u64(self.offset);
        w.u64(self.len);
        w.u32(self.crc);
    }

    /// Reads the place of a record whose tag was `tag`; `None` for a tag of no role.
    pub(crate) fn read_place(tag: u8, r: &mut Reader) -> Option<Self> {
        Some(Self {
            role: LAZY_ROLES.get(usize::from(tag))?,
            offset: r.u64()?,
            len: r.u64()?,
            crc: r.u32()?,
        })
    }
}

/// `role` as a role left on disk, if it is one.
pub(crate) fn lazy_role(role: &str) -> Option<&'static str> {
    LAZY_ROLES.into_iter().find(|r| *r == role)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_reads_back_under_its_tag() {
        let record = DiskMessage {
            role: "toolResult",
            offset: 4096,
            len: 17,
            crc: 0xfeed_f00d,
        };
        let mut bytes = Vec::new();
        record.write_place(&mut Writer(&mut bytes));
        assert_eq!(record.tag(), 2);
        let read = DiskMessage::read_place(record.tag(), &mut Reader(&bytes));
        assert_eq!(read, Some(record));
        assert_eq!(DiskMessage::read_place(3, &mut Reader(&bytes)), None);
        assert_eq!(DiskMessage::read_place(0, &mut Reader(&bytes[..19])), None);
    }
}
