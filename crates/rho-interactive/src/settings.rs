//! /settings: the settings a user changes while working, written to the global settings.json
//! and applied at once.

use rho_protocol::agent::QueueMode;
use rho_tui::dialogs::{SettingItem, SettingsDialog};
use rho_tui::Theme;
use serde_json::Value;

use super::app::App;
use super::dialogs::ActiveDialog;

const ON_OFF: [&str; 2] = ["true", "false"];
const QUEUE_MODES: [&str; 2] = ["one-at-a-time", "all"];

pub(super) fn item(
    key: &str,
    label: &str,
    description: &str,
    values: &[&str],
    current: &str,
) -> SettingItem {
    SettingItem {
        key: key.into(),
        label: label.into(),
        description: description.into(),
        values: values.iter().map(|v| v.to_string()).collect(),
        current: values.iter().position(|v| *v == current).unwrap_or(0),
    }
}

impl App {
    /// Opens the settings list with the current values.
    pub(super) fn open_settings(&mut self) {
        let (auto, steer, follow, hide, theme) = self.session.with_settings(|s| {
            (
                s.compaction_enabled(),
                s.steering_mode(),
                s.follow_up_mode(),
                s.hide_thinking_block(),
                s.theme().unwrap_or("dark").to_string(),
            )
        });
        let bool_str = |b: bool| if b { "true" } else { "false" };
        let mut items = vec![
            item(
                "compaction.enabled",
                "Auto-compact",
                "Compact the context when it nears the window",
                &ON_OFF,
                bool_str(auto),
            ),
            item(
                "steeringMode",
                "Steering mode",
                "Deliver queued steering messages one at a time or all together",
                &QUEUE_MODES,
                queue_mode_str(steer),
            ),
            item(
                "followUpMode",
                "Follow-up mode",
                "Deliver queued follow-up messages one at a time or all together",
                &QUEUE_MODES,
                queue_mode_str(follow),
            ),
            item(
                "hideThinkingBlock",
                "Hide thinking",
                "Collapse thinking blocks in replies",
                &ON_OFF,
                bool_str(hide),
            ),
            item("theme", "Theme", "Colour theme", &["dark", "light"], &theme),
        ];
        items.extend(self.fullscreen_setting_items());
        self.open(ActiveDialog::Settings(SettingsDialog::new(items)));
    }

    /// Writes and applies each changed setting.
    pub(super) fn apply_settings(&mut self, changes: Vec<(String, String)>) {
        for (key, value) in changes {
            let flag = value == "true";
            let written = match key.as_str() {
                "compaction.enabled" => self.session.set_global_setting_field(
                    "compaction",
                    "enabled",
                    Value::Bool(flag),
                ),
                "hideThinkingBlock" => {
                    self.thinking_expanded = !flag;
                    self.transcript.set_thinking_expanded(!flag);
                    self.session.set_global_setting(&key, Value::Bool(flag))
                }
                "steeringMode" | "followUpMode" => {
                    let mode = QueueMode::parse(&value).unwrap_or_default();
                    if key == "steeringMode" {
                        self.session.set_steering_mode(mode);
                    } else {
                        self.session.set_follow_up_mode(mode);
                    }
                    self.session
                        .set_global_setting(&key, Value::from(value.as_str()))
                }
                "theme" => {
                    if let Some(theme) = Theme::builtin(&value) {
                        self.theme = theme.clone();
                        self.transcript.set_theme(theme);
                    }
                    self.session
                        .set_global_setting(&key, Value::from(value.as_str()))
                }
                _ => self.apply_fullscreen_setting(&key, &value),
            };
            if let Err(e) = written {
                self.notice(format!("Cannot save {key}: {e}"), true);
            }
        }
    }
}

fn queue_mode_str(mode: QueueMode) -> &'static str {
    match mode {
        QueueMode::OneAtATime => "one-at-a-time",
        QueueMode::All => "all",
    }
}
