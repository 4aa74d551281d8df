//! The little binary codec of rho's session sidecars (the entry index and the leaf summary):
//! little-endian integers and length-prefixed UTF-8 strings, read back without panicking on
//! bytes cut short.

use std::borrow::Cow;

/// Appends values to a buffer.
pub(crate) struct Writer<'a>(pub(crate) &'a mut Vec<u8>);

impl Writer<'_> {
    pub(crate) fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub(crate) fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    pub(crate) fn str(&mut self, s: &str) {
        self.u64(s.len() as u64);
        self.0.extend_from_slice(s.as_bytes());
    }
    /// A flag byte, then the string when there is one.
    pub(crate) fn opt_str(&mut self, s: Option<&str>) {
        self.u8(u8::from(s.is_some()));
        if let Some(s) = s {
            self.str(s);
        }
    }
}

/// `fields` followed by their CRC-32: a sidecar's head, which is whole or not used.
pub(crate) fn sealed<const N: usize>(mut fields: Vec<u8>) -> [u8; N] {
    let crc = crc32fast::hash(&fields);
    fields.extend_from_slice(&crc.to_le_bytes());
    let mut out = [0; N];
    out.copy_from_slice(&fields);
    out
}

/// The fields of a head [`sealed`] into `bytes`' first `len` bytes, if its CRC-32 matches.
pub(crate) fn unsealed(bytes: &[u8], len: usize) -> Option<Reader<'_>> {
    let (fields, crc) = bytes.get(..len)?.split_at_checked(len.checked_sub(4)?)?;
    (crc32fast::hash(fields).to_le_bytes() == crc).then_some(Reader(fields))
}

/// Takes values off the front of a byte slice; `None` when it is cut short.
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl Reader<'_> {
    fn take<const N: usize>(&mut self) -> Option<[u8; N]> {
        let (head, rest) = self.0.split_first_chunk::<N>()?;
        self.0 = rest;
        Some(*head)
    }
    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.take::<1>().map(|[b]| b)
    }
    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.take().map(u32::from_le_bytes)
    }
    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.take().map(u64::from_le_bytes)
    }
    pub(crate) fn str(&mut self) -> Option<Cow<'static, str>> {
        let len = usize::try_from(self.u64()?).ok()?;
        let (s, rest) = self.0.split_at_checked(len)?;
        self.0 = rest;
        String::from_utf8(s.to_vec()).ok().map(Cow::Owned)
    }
    /// What [`Writer::opt_str`] wrote.
    pub(crate) fn opt_str(&mut self) -> Option<Option<Cow<'static, str>>> {
        match self.u8()? {
            0 => Some(None),
            _ => self.str().map(Some),
        }
    }
}
