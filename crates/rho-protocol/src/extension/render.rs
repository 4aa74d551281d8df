//! Custom rendering (pi-tui components): an extension that draws some of the screen itself
//! declares what in its registration ([`RendererSpec`]), and rho asks it for lines at a width
//! ([`RenderTarget`] in a `render` request, answered by [`Rendered`]). Components that live in
//! the extension (footer, header, widgets, `ctx.ui.custom`) are announced with the
//! `ui_component` call and drawn the same way; keys reach a focused one in `component_input`.
//! Nothing of this is sent unless an extension declared a renderer or opened a component.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What an extension renders itself, so rho asks only for those.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RendererSpec {
    /// Tools whose call or result the extension draws (pi's `renderCall`/`renderResult`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<String>,
    /// Custom message types it draws (pi's `registerMessageRenderer`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<String>,
    /// It may announce components (`ui_component`); rho asks only such extensions to draw one.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub components: bool,
}

impl RendererSpec {
    /// True when nothing is declared.
    pub fn is_empty(&self) -> bool {
        !self.draws_transcript() && !self.components
    }

    /// Whether it draws tools or messages of the transcript.
    pub fn draws_transcript(&self) -> bool {
        !self.tools.is_empty() || !self.messages.is_empty()
    }
}

/// What to draw.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum RenderTarget {
    /// A tool call and, once there is one, its result.
    Tool {
        /// The tool's name.
        tool_name: String,
        /// The model's call id.
        tool_call_id: String,
        /// The call's arguments.
        args: Value,
        /// `{content, details, isError}` so far (absent before the tool produced anything).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        result: Option<Value>,
        /// The tool is still running (the result is partial).
        #[serde(default)]
        is_partial: bool,
        /// The user expanded tool output (ctrl+o).
        #[serde(default)]
        expanded: bool,
    },
    /// A custom message of a declared type.
    Message {
        /// The message's type tag.
        custom_type: String,
        /// Its content as sent (a string or content blocks).
        content: Value,
        /// Its details.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        details: Option<Value>,
        /// The user expanded tool output (ctrl+o).
        #[serde(default)]
        expanded: bool,
    },
    /// A component the extension announced with `ui_component`.
    Component {
        /// The key it announced.
        key: String,
    },
}

/// The answer to a `render` request (`null` means: draw it your way).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rendered {
    /// The lines of a message or component.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lines: Option<Vec<String>>,
    /// A tool's call lines (absent: rho draws the call).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Vec<String>>,
    /// A tool's result lines (absent: rho draws the result).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Vec<String>>,
}

/// Where a component announced with `ui_component` goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ComponentSlot {
    /// In place of rho's footer (pi's `setFooter`).
    Footer,
    /// In place of rho's header (pi's `setHeader`).
    Header,
    /// A widget above the editor (pi's `setWidget` with a component).
    AboveEditor,
    /// A widget below the editor.
    BelowEditor,
    /// In place of the editor, taking the keys until the extension closes it (`ctx.ui.custom`).
    Editor,
}

/// A change to the line shown while the agent works, sent with the `ui_working` call: pi's
/// `setWorkingMessage`, `setWorkingVisible`, `setWorkingIndicator` and
/// `setHiddenThinkingLabel`, each as `{"<name>": value}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum WorkingUpdate {
    /// The text after the indicator (`None`: rho's own).
    Message(Option<String>),
    /// Whether the line shows at all.
    Visible(bool),
    /// The indicator's frames (`None`: rho's spinner).
    Indicator(Option<WorkingIndicator>),
    /// What a collapsed thinking block says (`None`: rho's own).
    HiddenThinkingLabel(Option<String>),
}

/// pi's `WorkingIndicatorOptions`: frames shown verbatim in turn (none hides the indicator).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkingIndicator {
    /// The frames, styled by the extension.
    #[serde(default)]
    pub frames: Vec<String>,
    /// How long each frame shows (pi's default 80 ms when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_ms: Option<u64>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_and_answers_read_as_the_host_writes_them() {
        let target = RenderTarget::Tool {
            tool_name: "read".into(),
            tool_call_id: "c1".into(),
            args: serde_json::json!({"path": "a"}),
            result: None,
            is_partial: true,
            expanded: false,
        };
        let v = serde_json::to_value(&target).expect("encodes");
        assert_eq!(
            v,
            serde_json::json!({"kind": "tool", "toolName": "read", "toolCallId": "c1",
                "args": {"path": "a"}, "isPartial": true, "expanded": false})
        );
        let r: Rendered = serde_json::from_str(r#"{"call":["$ ls"]}"#).expect("parses");
        assert_eq!(r.call, Some(vec!["$ ls".to_string()]));
        assert_eq!(r.result, None);
        let slot: ComponentSlot = serde_json::from_str("\"belowEditor\"").expect("slot");
        assert_eq!(slot, ComponentSlot::BelowEditor);
    }

    #[test]
    fn working_updates_read_as_the_host_writes_them() {
        let read = |s: &str| serde_json::from_str::<WorkingUpdate>(s).expect(s);
        assert_eq!(read(r#"{"message":null}"#), WorkingUpdate::Message(None));
        assert_eq!(read(r#"{"visible":false}"#), WorkingUpdate::Visible(false));
        assert_eq!(
            read(r#"{"indicator":{"frames":["·","•"],"intervalMs":120}}"#),
            WorkingUpdate::Indicator(Some(WorkingIndicator {
                frames: vec!["·".into(), "•".into()],
                interval_ms: Some(120),
            }))
        );
        assert_eq!(
            read(r#"{"hiddenThinkingLabel":"Pondering"}"#),
            WorkingUpdate::HiddenThinkingLabel(Some("Pondering".into()))
        );
    }
}
