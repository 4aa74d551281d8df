//! Modal dialogs for the interactive mode: each takes the keyboard until it closes (see
//! [`crate::input::Dialog`]) and is drawn in place of the editor. One dialog per file; they
//! share the frame (rules, title, hint line) and fuzzy filtering.

mod confirm;
mod frame;
mod fuzzy;
mod hotkeys;
mod input_prompt;
mod line_edit;
mod model_selector;
mod select_list;
mod session_picker;
mod settings;
mod text_area;
mod thinking_selector;
mod tree_rows;
mod tree_selector;

pub use confirm::ConfirmDialog;
pub use frame::{edit_line, framed, inner_width, rule};
pub use fuzzy::{fuzzy_rank, fuzzy_score};
pub use hotkeys::HotkeysView;
pub use input_prompt::InputDialog;
pub use line_edit::LineEdit;
pub use model_selector::ModelSelector;
pub use select_list::{SelectItem, SelectList, SELECT_HINT};
pub use session_picker::{relative_age, SessionPicker, SessionScope};
pub use settings::{SettingItem, SettingsDialog};
pub use text_area::TextAreaDialog;
pub use thinking_selector::{thinking_description, ThinkingSelector};
pub use tree_rows::{entry_text, tree_rows, TreeRow};
pub use tree_selector::TreeSelector;
