//! Modal dialogs for the interactive mode: each takes the keyboard until it closes (see
//! [`crate::input::Dialog`]) and is drawn in place of the editor. One dialog per file; they
//! share the frame (rules, title, hint line) and fuzzy filtering.
//!
//! The extension UI pieces that are not modal (status bar, widget areas, notifications) live
//! here too, as [`crate::components::Component`]s, because extensions drive them through the
//! same `ctx.ui` calls as their dialogs.

mod choice;
mod confirm;
mod frame;
mod hotkeys;
mod input_prompt;
mod line_edit;
mod model_selector;
mod notification;
mod scoped_models;
mod select_list;
mod session_picker;
mod settings;
mod status_bar;
mod text_area;
mod thinking_selector;
mod tree;
mod widget_area;

pub use crate::fuzzy::{fuzzy_rank, fuzzy_score};
pub use choice::ChoiceDialog;
pub use confirm::ConfirmDialog;
pub use frame::{edit_line, framed, inner_width, rule};
pub use hotkeys::HotkeysView;
pub use input_prompt::InputDialog;
pub use line_edit::LineEdit;
pub use model_selector::ModelSelector;
pub use notification::{Notification, NotificationKind};
pub use scoped_models::{ScopedModels, ScopedModelsDialog};
pub use select_list::{SelectItem, SelectList, SELECT_HINT};
pub use session_picker::{
    DeleteError, Deleted, SessionPick, SessionPicker, SessionScope, SortMode,
};
pub use settings::{SettingItem, SettingsDialog};
pub use status_bar::StatusBar;
pub use text_area::TextAreaDialog;
pub use thinking_selector::{thinking_description, ThinkingSelector};
pub use tree::{TreeFilter, TreePick, TreeSelector};
pub use widget_area::{WidgetArea, WidgetPlacement};
