//! Entries on their way to an open session file: each is appended as one line, its message
//! learns where it landed (to be read back from there once released), and the entry index
//! beside the file follows along while it can.

use super::error::StoreError;
use super::index_keeper::IndexKeeper;
use super::lazy::set_origin;
use super::tree::SessionTree;
use super::writer::FileWriter;

/// An entry not yet on disk: its serialized line (without the line break) and its position
/// in the tree (whose entry holds its message cell, if it has one).
#[derive(Debug)]
pub(crate) struct Unsaved {
    pub line: Vec<u8>,
    pub position: usize,
}

/// Appends `unsaved` to `writer`'s file, oldest first, until one fails; the entries of the
/// tree they come from are added to `index` too (which is dropped when it cannot follow).
/// Returns how many were written, and the failure that stopped it.
pub(crate) fn append_all(
    writer: &mut FileWriter,
    unsaved: &[Unsaved],
    tree: &SessionTree,
    index: &mut Option<IndexKeeper>,
) -> (usize, Option<StoreError>) {
    for (written, pending) in unsaved.iter().enumerate() {
        let at = match writer.append_line(pending.line.clone()) {
            Ok(at) => at,
            Err(e) => return (written, Some(e)),
        };
        let entry = &tree.entries()[pending.position];
        if let Some(cell) = entry.stored_message() {
            set_origin(cell, &pending.line, writer.message_file(), at);
        }
        let file = writer.message_file().file();
        if !index
            .as_mut()
            .is_some_and(|i| i.add(file, at, &pending.line, entry))
        {
            *index = None;
        }
    }
    (unsaved.len(), None)
}
