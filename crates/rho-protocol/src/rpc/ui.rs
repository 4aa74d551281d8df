//! The extension UI sub-protocol's requests (interfaces spec §1.6): `extension_ui_request`
//! lines; dialogs wait for an `extension_ui_response` with the same id, the rest are notices.

use serde::{Deserialize, Serialize};

/// One `{"type":"extension_ui_request","id","method",...}` line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct UiRequest {
    /// Always `"extension_ui_request"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A UUID v4; a dialog's answer carries it back.
    pub id: String,
    /// The method and its fields.
    #[serde(flatten)]
    pub request: UiRequestKind,
}

impl UiRequest {
    /// The request `request` under `id`.
    pub fn new(id: String, request: UiRequestKind) -> Self {
        Self {
            kind: "extension_ui_request".into(),
            id,
            request,
        }
    }
}

/// What is asked or shown, tagged by `method` (pi's names: some camelCase, some snake_case).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "method", rename_all_fields = "camelCase")]
pub enum UiRequestKind {
    /// Pick one of `options`; answered with `value` or `cancelled`.
    #[serde(rename = "select")]
    Select {
        title: String,
        options: Vec<String>,
        /// The extension's `timeout` in ms, after which it stops waiting (pi sends it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// Yes or no; answered with `confirmed`.
    #[serde(rename = "confirm")]
    Confirm {
        title: String,
        message: String,
        /// As for `select`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// One line of text; answered with `value` or `cancelled`.
    #[serde(rename = "input")]
    Input {
        title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        placeholder: Option<String>,
        /// As for `select`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        timeout: Option<u64>,
    },
    /// Several lines of text; answered with `value` or `cancelled`.
    #[serde(rename = "editor")]
    Editor {
        title: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        prefill: Option<String>,
    },
    /// A notice; `notifyType` is the extension's type (`info`, `warning`, `error`), absent
    /// when it gave none.
    #[serde(rename = "notify")]
    Notify {
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        notify_type: Option<String>,
    },
    /// A footer status (cleared without `statusText`).
    #[serde(rename = "setStatus")]
    SetStatus {
        status_key: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        status_text: Option<String>,
    },
    /// Lines above the editor (cleared without `widgetLines`).
    #[serde(rename = "setWidget")]
    SetWidget {
        widget_key: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        widget_lines: Option<Vec<String>>,
        /// `belowEditor` for a widget placed under the editor (absent: above it).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        widget_placement: Option<String>,
    },
    /// The terminal title.
    #[serde(rename = "setTitle")]
    SetTitle { title: String },
    /// Replaces the editor's text.
    #[serde(rename = "set_editor_text")]
    SetEditorText { text: String },
}
