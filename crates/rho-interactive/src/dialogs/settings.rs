//! /settings: the settings a user changes while working, written to the global settings.json
//! and applied at once.

use rho_protocol::agent::QueueMode;
use rho_tui::dialogs::{SettingItem, SettingsDialog};
use rho_tui::fullscreen::WheelLines;
use rho_tui::Theme;
use serde_json::Value;

use super::active::ActiveDialog;
use super::Dialogs;
use crate::screen::Screen;
use crate::shared::Shared;

const ON_OFF: [&str; 2] = ["true", "false"];
const QUEUE_MODES: [&str; 2] = ["one-at-a-time", "all"];

/// The wheel settings /settings offers (pi's list), plus the current value.
const WHEEL_CHOICES: [&str; 6] = ["auto", "1", "2", "3", "5", "10"];

fn item(key: &str, label: &str, description: &str, values: &[&str], current: &str) -> SettingItem {
    SettingItem {
        key: key.into(),
        label: label.into(),
        description: description.into(),
        values: values.iter().map(|v| v.to_string()).collect(),
        current: values.iter().position(|v| *v == current).unwrap_or(0),
    }
}

impl Dialogs {
    /// Opens the settings list with the current values.
    pub fn open_settings(&mut self, shared: &Shared, screen: &Screen) {
        let (auto, steer, follow, hide, theme) = shared.session.with_settings(|s| {
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
        items.extend(fullscreen_setting_items(screen));
        self.open(ActiveDialog::Settings(SettingsDialog::new(items)));
    }

    /// Writes and applies each changed setting.
    pub(super) fn apply_settings(
        &mut self,
        changes: Vec<(String, String)>,
        shared: &Shared,
        screen: &mut Screen,
    ) {
        let session = &shared.session;
        for (key, value) in changes {
            let flag = value == "true";
            let written = match key.as_str() {
                "compaction.enabled" => {
                    session.set_global_setting_field("compaction", "enabled", Value::Bool(flag))
                }
                "hideThinkingBlock" => {
                    screen.set_thinking_expanded(!flag);
                    session.set_global_setting(&key, Value::Bool(flag))
                }
                "steeringMode" | "followUpMode" => {
                    let mode = QueueMode::parse(&value).unwrap_or_default();
                    if key == "steeringMode" {
                        session.set_steering_mode(mode);
                    } else {
                        session.set_follow_up_mode(mode);
                    }
                    session.set_global_setting(&key, Value::from(value.as_str()))
                }
                "theme" => {
                    if let Some(theme) = Theme::builtin(&value) {
                        screen.set_theme(theme);
                    }
                    session.set_global_setting(&key, Value::from(value.as_str()))
                }
                _ => screen.apply_fullscreen_setting(session, &key, &value),
            };
            if let Err(e) = written {
                screen.notice(format!("Cannot save {key}: {e}"), true);
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

/// pi's /settings rows for the terminal mode and the fullscreen options.
fn fullscreen_setting_items(screen: &Screen) -> Vec<SettingItem> {
    let o = screen.fullscreen_options();
    let mode = if screen.is_fullscreen() {
        "fullscreen"
    } else {
        "regular"
    };
    let wheel = match o.wheel_lines {
        WheelLines::Auto => "auto".to_string(),
        WheelLines::Fixed(n) => n.to_string(),
    };
    let mut wheel_values: Vec<&str> = WHEEL_CHOICES.to_vec();
    if !wheel_values.contains(&wheel.as_str()) {
        wheel_values.push(&wheel);
    }
    vec![
        item(
            "tuiMode",
            "Terminal mode",
            "regular: the conversation scrolls in the terminal; fullscreen: it scrolls above a fixed editor",
            &["regular", "fullscreen"],
            mode,
        ),
        item(
            "fullscreenExitOutput",
            "Fullscreen exit output",
            "What stays on screen after leaving fullscreen mode",
            &["transcript", "resume-hint"],
            o.exit_output.as_str(),
        ),
        item(
            "fullscreenScrollbar",
            "Fullscreen scrollbar",
            "auto shows it while scrolling",
            &["auto", "always", "hidden"],
            o.scrollbar.as_str(),
        ),
        item(
            "fullscreenWheelScrollLines",
            "Fullscreen wheel lines",
            "Lines per mouse-wheel notch; auto speeds up fast spins",
            &wheel_values,
            &wheel,
        ),
    ]
}
