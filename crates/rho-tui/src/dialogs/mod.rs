//! Modal dialogs for the interactive mode: each takes the keyboard until it closes (see
//! [`crate::input::Dialog`]) and is drawn in place of the editor. One dialog per file; they
//! share the frame (rules, title, hint line) and fuzzy filtering.

mod frame;
mod fuzzy;
mod select_list;

pub use frame::{edit_line, framed, inner_width, rule};
pub use fuzzy::{fuzzy_rank, fuzzy_score};
pub use select_list::{SelectItem, SelectList, SELECT_HINT};
