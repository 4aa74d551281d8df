//! What an extension registers in its `register` line: commands, tools, flags and shortcuts.

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A `/command` the extension registers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CommandSpec {
    /// Invocation name without the slash.
    pub name: String,
    /// Shown in completions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The file that registered it, when one process hosts several extensions (the pi host):
    /// `get_commands`' `sourceInfo.path`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path: Option<String>,
    /// The command completes its arguments (pi's `getArgumentCompletions`): rho asks with
    /// `command_completions` requests as the user types `/name <prefix>`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub completes: bool,
}

/// One completion of a command's arguments (pi's `AutocompleteItem`): what `command_completions`
/// answers a list of.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArgumentCompletion {
    /// What replaces the typed prefix.
    pub value: String,
    /// What the list shows (the value when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Dim text beside it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A tool the extension registers; it joins the model's tool list.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The name the model calls it by.
    pub name: String,
    /// Short label for UIs (rho uses the name when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of the arguments.
    #[serde(default = "empty_object_schema")]
    pub parameters: Value,
}

/// `{"type":"object","properties":{}}`: the schema of a tool without arguments.
pub fn empty_object_schema() -> Value {
    serde_json::json!({"type": "object", "properties": {}})
}

/// A command-line flag the extension declares (`--name`); its value arrives in [`Hello`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FlagSpec {
    /// Flag name without dashes.
    pub name: String,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// `"boolean"` or `"string"`.
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The value the extension assumes when the flag is not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
}

/// A keyboard shortcut the extension declares; interactive mode sends `shortcut` requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShortcutSpec {
    /// Key chord, e.g. `ctrl+shift+g`.
    pub key: String,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// A model provider the extension registers (pi's `registerProvider`): its models join the
/// session's registry; the user's models.json entry of the same name overrides `baseUrl`,
/// `apiKey` and `headers`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProviderSpec {
    /// Provider name.
    pub name: String,
    /// As a models.json provider: `baseUrl`, `apiKey`, `api`, `headers`, `models`.
    pub config: Value,
    /// Whether the extension streams the replies itself (`stream` requests); otherwise rho
    /// speaks the provider's `api`.
    #[serde(default)]
    pub streams: bool,
    /// Whether the provider has `refreshModels` (pi 1.6's dynamic discovery): rho asks it
    /// with `refresh_models` requests, and the models it returns replace the provider's.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub refreshes: bool,
    /// The provider's sign-in (pi's `oauth` config): /login lists it and runs it through
    /// `oauth_login` requests; a stored credential is refreshed with `oauth_refresh` and
    /// turned into the request's key with `oauth_api_key`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oauth: Option<OAuthSpec>,
}

/// What rho keeps of a provider's sign-in: its name (the functions stay in the extension).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OAuthSpec {
    /// What /login shows ("GitLab Duo").
    pub name: String,
}

/// An MCP server an extension registers (pi's `registerMcpServer`): rho validates `config` as
/// an `mcpServers` entry of mcp.json and connects it beside the configured servers, which
/// take precedence over a registration of the same name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct McpServerSpec {
    /// The server's name (`mcp__<name>__<tool>`).
    pub name: String,
    /// The entry, as in mcp.json's `mcpServers`.
    pub config: Value,
    /// The extension file that registered it (`/mcp` shows it as the source).
    #[serde(rename = "extensionPath")]
    pub extension_path: String,
}

/// The answer to `hello`: everything the extension registers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Registration {
    /// Human name.
    pub name: String,
    /// Event types it handles, e.g. `["input", "tool_call"]`.
    #[serde(default)]
    pub events: Vec<String>,
    /// Commands.
    #[serde(default)]
    pub commands: Vec<CommandSpec>,
    /// Tools.
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    /// Flags.
    #[serde(default)]
    pub flags: Vec<FlagSpec>,
    /// Shortcuts.
    #[serde(default)]
    pub shortcuts: Vec<ShortcutSpec>,
    /// Model providers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub providers: Vec<ProviderSpec>,
    /// Virtual models (pi's `registerVirtualModel`): each request with one selected becomes
    /// a `route` request first.
    #[serde(
        default,
        rename = "virtualModels",
        skip_serializing_if = "Vec::is_empty"
    )]
    pub virtual_models: Vec<crate::virtual_model::VirtualModelSpec>,
    /// MCP servers registered while loading: they connect when the session starts.
    #[serde(default, rename = "mcpServers", skip_serializing_if = "Vec::is_empty")]
    pub mcp_servers: Vec<McpServerSpec>,
    /// Messages for the user about loading (rho shows them as warnings), e.g. the pi host's
    /// "extension x.ts was not loaded: ..." or an unsupported call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    /// What it draws itself (rho asks with `render` requests only for these).
    #[serde(default, skip_serializing_if = "super::RendererSpec::is_empty")]
    pub renderers: super::RendererSpec,
}
