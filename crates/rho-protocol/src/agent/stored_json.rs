//! The JSON of many stored messages at once (`get_messages`, exports): held messages are
//! encoded, the others copied from their session file as stored, neighbours in one read, each
//! checked against its checksum instead of being parsed.

use super::stored::{ReadError, StoredMessage};

/// Bytes read at once for neighbouring messages.
const READ_BYTES: u64 = 1 << 20;

/// Copies the JSON of stored messages, reusing its buffers from one call to the next (a long
/// reply is copied in pieces, see `get_messages`).
#[derive(Debug, Default)]
pub struct JsonCopier {
    /// The last block read from a session file (its length is the largest block so far: the
    /// next read of that size or less writes over it instead of zeroing a fresh buffer).
    block: Vec<u8>,
    /// A held message, encoded.
    encoded: Vec<u8>,
}

impl JsonCopier {
    /// Passes the JSON of each message, in order, to `each` (see the module docs).
    pub fn each(
        &mut self,
        messages: &[StoredMessage],
        mut each: impl FnMut(Result<&[u8], ReadError>),
    ) {
        let mut i = 0;
        while i < messages.len() {
            if let Some(m) = messages[i].held() {
                self.encoded.clear();
                match serde_json::to_writer(&mut self.encoded, &*m) {
                    Ok(()) => each(Ok(&self.encoded)),
                    Err(e) => each(Err(ReadError {
                        path: Default::default(),
                        offset: 0,
                        reason: e.to_string(),
                    })),
                }
                i += 1;
                continue;
            }
            let group = neighbours(&messages[i..]);
            self.read_group(&messages[i..i + group], &mut each);
            i += group;
        }
    }

    /// Reads `group` (neighbours, see [`neighbours`]) with one read and checks each message.
    fn read_group(
        &mut self,
        group: &[StoredMessage],
        each: &mut impl FnMut(Result<&[u8], ReadError>),
    ) {
        let first = match group[0].origin_or_error() {
            Ok(o) => o,
            Err(e) => return each(Err(e)),
        };
        let end = group
            .last()
            .and_then(StoredMessage::origin)
            .map_or(first.end(), |o| o.end());
        let block = match first.read_into(end, &mut self.block) {
            Ok(block) => block,
            Err(e) => {
                group.iter().for_each(|_| each(Err(e.clone())));
                return;
            }
        };
        for m in group {
            let json = m.origin_or_error().and_then(|o| {
                let start = (o.offset() - first.offset()) as usize;
                let bytes = block.get(start..start + (o.end() - o.offset()) as usize);
                o.checked(bytes.unwrap_or_default())
            });
            each(json);
        }
    }
}

/// How many messages from the first (which is not held) are read together: the following
/// ones not held that come next in the same file, within [`READ_BYTES`].
fn neighbours(messages: &[StoredMessage]) -> usize {
    let Some(first) = messages[0].origin() else {
        return 1;
    };
    let mut end = first.end();
    let mut n = 1;
    for m in &messages[1..] {
        let Some(o) = m
            .origin()
            .filter(|o| o.same_file(first) && o.offset() >= end)
        else {
            break;
        };
        if o.end() - first.offset() > READ_BYTES || m.held().is_some() {
            break;
        }
        end = o.end();
        n += 1;
    }
    n
}
