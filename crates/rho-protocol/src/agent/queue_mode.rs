//! How the agent's steering and follow-up queues deliver (settings `steeringMode` and
//! `followUpMode`, RPC `set_steering_mode` and `set_follow_up_mode`).

use serde::{Deserialize, Serialize};

/// How many queued messages one poll delivers. Its strings are the kebab-case variant names,
/// for serde and for [`Self::as_str`]/[`Self::parse`] alike.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Default,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum QueueMode {
    /// `one-at-a-time`: the oldest message only (pi's default).
    #[default]
    OneAtATime,
    /// `all`: the whole queue.
    All,
}

impl QueueMode {
    /// The settings/RPC string.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Parses the settings/RPC string.
    pub fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serde_and_the_settings_strings_agree() {
        for mode in [QueueMode::OneAtATime, QueueMode::All] {
            let json = serde_json::to_string(&mode).expect("serializes");
            assert_eq!(json, format!("\"{}\"", mode.as_str()));
            assert_eq!(QueueMode::parse(mode.as_str()), Some(mode));
        }
        assert_eq!(QueueMode::OneAtATime.as_str(), "one-at-a-time");
        assert_eq!(QueueMode::parse("One-At-A-Time"), None);
    }
}
