//! Encoding queued items as JSON lines, in the dialect the writer speaks: each dialect's
//! event shapes are one file ([`super::pi073`], [`super::pi1`]); responses and UI requests
//! are already encoded and are written as they are.

use rho_protocol::rpc::Dialect;

use super::backlog::Item;
use super::{pi073, pi1};

/// The dialect and its encoder's state (pi 0.73.1's folds the reply it writes, in reused
/// buffers, so encoding a growing message does not allocate per event).
pub struct Encoder {
    dialect: Dialect,
    v073: pi073::Pi073,
}

impl Encoder {
    pub fn new(dialect: Dialect) -> Self {
        Encoder {
            dialect,
            v073: pi073::Pi073::default(),
        }
    }

    /// Appends `item` as one line to `out`.
    pub fn encode(&mut self, item: Item, out: &mut Vec<u8>) {
        match item {
            Item::Event(event) => match self.dialect {
                Dialect::Pi073 => self.v073.event(&event, out),
                Dialect::Pi1 => pi1::event(&event, out),
            },
            Item::Update { usage, merged } => match self.dialect {
                Dialect::Pi073 => self.v073.update(&merged, out),
                Dialect::Pi1 => pi1::update(&usage, &merged, out),
            },
            Item::Line(line) => {
                if out.is_empty() {
                    // A large response (get_messages) becomes the buffer instead of a copy.
                    *out = line.into_bytes();
                } else {
                    out.extend_from_slice(line.as_bytes());
                }
                out.push(b'\n');
            }
            // The writer takes pieces itself, one at a time (see `run`).
            Item::Pieces(_) => {}
        }
    }
}

/// Compact JSON plus `\n` (never pretty-printed).
pub fn push_json<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) {
    let start = out.len();
    match serde_json::to_writer(&mut *out, value) {
        Ok(()) => out.push(b'\n'),
        Err(e) => {
            out.truncate(start);
            eprintln!("rho: could not serialize an output line: {e}");
        }
    }
}
