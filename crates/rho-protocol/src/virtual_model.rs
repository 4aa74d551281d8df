//! Virtual models (pi 1.6's `registerVirtualModel`, docs/virtual-models.md): a selectable model
//! that picks a physical model for each request. Its catalog entry is an ordinary [`Model`]
//! whose `api` is [`VIRTUAL_MODEL_API`], so selection, `/model`, `--model`, scoped models and
//! settings treat it like any other; no provider ever receives it, because the session asks
//! the extension's router for the physical model of each request first.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::{InputKind, Model, ModelCost, ThinkingLevel};

/// The `api` of a virtual model's catalog entry (pi's `VIRTUAL_MODEL_API`).
pub const VIRTUAL_MODEL_API: &str = "pi-virtual";

/// The custom entry type that stores router state on the session branch (pi's
/// `VIRTUAL_MODEL_STATE_ENTRY`); its data is `{provider, modelId, state}`.
pub const VIRTUAL_MODEL_STATE_ENTRY: &str = "pi.virtual-model-state";

/// What an extension declares of a virtual model (`registerVirtualModel`'s definition without
/// its `route` function, which stays in the extension).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VirtualModelSpec {
    /// The provider it is listed under (any id, also one with physical models).
    pub provider: String,
    /// Its id under that provider.
    pub id: String,
    /// Display name.
    #[serde(default)]
    pub name: String,
    /// The levels offered for selection; `["off"]` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thinking_levels: Option<Vec<String>>,
    /// Shown before the first response; unknown (0) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// Shown before the first response; unknown (0) when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Input types offered for selection; text and images when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Vec<InputKind>>,
}

impl VirtualModelSpec {
    /// The catalog entry (pi's `createVirtualModel`): every level the definition lists maps
    /// to itself, every other to `null`; it reasons when it offers a level besides `off`.
    pub fn model(&self) -> Model {
        let offered = self
            .thinking_levels
            .clone()
            .unwrap_or_else(|| vec!["off".to_string()]);
        let map: BTreeMap<String, Option<String>> = ThinkingLevel::ALL
            .iter()
            .map(|level| {
                let name = level.as_str().to_string();
                let value = offered.contains(&name).then(|| name.clone());
                (name, value)
            })
            .collect();
        Model {
            id: self.id.clone(),
            name: self.name.clone(),
            api: VIRTUAL_MODEL_API.to_string(),
            provider: self.provider.clone(),
            base_url: String::new(),
            reasoning: offered.iter().any(|l| l != "off"),
            thinking_level_map: Some(map),
            input: self
                .input
                .clone()
                .unwrap_or_else(|| vec![InputKind::Text, InputKind::Image]),
            cost: ModelCost::default(),
            context_window: self.context_window.unwrap_or(0),
            max_tokens: self.max_tokens.unwrap_or(0),
            ..Model::default()
        }
    }
}

impl Model {
    /// Whether this is a virtual model's catalog entry (routed before every request).
    pub fn is_virtual(&self) -> bool {
        self.api == VIRTUAL_MODEL_API
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(levels: Option<&[&str]>) -> VirtualModelSpec {
        VirtualModelSpec {
            provider: "router".into(),
            id: "auto".into(),
            name: "Auto".into(),
            thinking_levels: levels.map(|l| l.iter().map(|s| s.to_string()).collect()),
            context_window: None,
            max_tokens: Some(1000),
            input: None,
        }
    }

    #[test]
    fn offers_exactly_the_declared_levels() {
        let model = spec(Some(&["low", "high"])).model();
        assert!(model.is_virtual() && model.reasoning);
        assert_eq!(
            model.supported_thinking_levels(),
            [ThinkingLevel::Low, ThinkingLevel::High]
        );
        assert_eq!(
            model.clamp_thinking_level(ThinkingLevel::Medium),
            ThinkingLevel::High
        );
        assert_eq!((model.context_window, model.max_tokens), (0, 1000));
        assert!(model.supports_images());
    }

    #[test]
    fn without_levels_it_offers_off_and_does_not_reason() {
        let model = spec(None).model();
        assert!(!model.reasoning);
        assert_eq!(model.supported_thinking_levels(), [ThinkingLevel::Off]);
    }
}
