//! The builder: what an extension registers (events, commands, tools, flags, shortcuts) and
//! the handlers behind them, turned into the `register` line.

use std::collections::HashMap;

use serde_json::Value;

use crate::protocol::{
    empty_object_schema, CommandSpec, FlagSpec, Registration, ShortcutSpec, ToolSpec,
};
use crate::rho::Rho;
use crate::tool::ToolCall;
use crate::{Error, ToolResult};

/// An event handler: the event JSON in, its result object (or `None`) out.
pub type EventFn = Box<dyn Fn(&Rho, &Value) -> Result<Option<Value>, Error> + Send + Sync>;
/// A command handler: the text after `/name `, verbatim.
pub type CommandFn = Box<dyn Fn(&Rho, &str) -> Result<(), Error> + Send + Sync>;
/// A tool: the arguments in, the result out.
pub type ToolFn = Box<dyn Fn(&ToolCall, Value) -> Result<ToolResult, Error> + Send + Sync>;
/// A shortcut handler.
pub type ShortcutFn = Box<dyn Fn(&Rho) -> Result<(), Error> + Send + Sync>;

/// A tool's declaration: what the model sees.
#[derive(Debug, Clone)]
pub struct Tool {
    spec: ToolSpec,
}

impl Tool {
    /// A tool named `name` described by `description`, taking no arguments until
    /// [`Tool::parameters`] says otherwise.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        let name = name.into();
        Self {
            spec: ToolSpec {
                label: Some(name.clone()),
                name,
                description: description.into(),
                parameters: empty_object_schema(),
            },
        }
    }

    /// The JSON Schema of the arguments.
    pub fn parameters(mut self, schema: Value) -> Self {
        self.spec.parameters = schema;
        self
    }

    /// The short label UIs show.
    pub fn label(mut self, label: impl Into<String>) -> Self {
        self.spec.label = Some(label.into());
        self
    }
}

/// An extension under construction: register handlers, then [`Extension::run`]. One handler
/// per event type (registering a type again replaces it), as in the Python and JS libraries.
pub struct Extension {
    pub(crate) name: String,
    pub(crate) events: HashMap<String, EventFn>,
    event_order: Vec<String>,
    pub(crate) commands: HashMap<String, CommandFn>,
    command_specs: Vec<CommandSpec>,
    pub(crate) tools: HashMap<String, ToolFn>,
    tool_specs: Vec<ToolSpec>,
    flags: Vec<FlagSpec>,
    pub(crate) shortcuts: HashMap<String, ShortcutFn>,
    shortcut_specs: Vec<ShortcutSpec>,
}

impl Extension {
    /// An extension called `name` that registers nothing yet.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            events: HashMap::new(),
            event_order: Vec::new(),
            commands: HashMap::new(),
            command_specs: Vec::new(),
            tools: HashMap::new(),
            tool_specs: Vec::new(),
            flags: Vec::new(),
            shortcuts: HashMap::new(),
            shortcut_specs: Vec::new(),
        }
    }

    /// Handles events of type `event` (e.g. `"input"`): `f` returns the event's result object
    /// (docs/extensions.md §3) or `None`; an `Err` is reported as `extension_error`.
    pub fn on(
        &mut self,
        event: &str,
        f: impl Fn(&Rho, &Value) -> Result<Option<Value>, Error> + Send + Sync + 'static,
    ) -> &mut Self {
        if self.events.insert(event.to_string(), Box::new(f)).is_none() {
            self.event_order.push(event.to_string());
        }
        self
    }

    /// Registers `/name`; `f` gets everything after the first space.
    pub fn command(
        &mut self,
        name: &str,
        description: &str,
        f: impl Fn(&Rho, &str) -> Result<(), Error> + Send + Sync + 'static,
    ) -> &mut Self {
        self.command_specs.retain(|c| c.name != name);
        self.command_specs.push(CommandSpec {
            name: name.to_string(),
            description: Some(description.to_string()),
            path: None,
            completes: false,
        });
        self.commands.insert(name.to_string(), Box::new(f));
        self
    }

    /// Registers a tool the model can call.
    pub fn tool(
        &mut self,
        tool: Tool,
        f: impl Fn(&ToolCall, Value) -> Result<ToolResult, Error> + Send + Sync + 'static,
    ) -> &mut Self {
        let name = tool.spec.name.clone();
        self.tool_specs.retain(|t| t.name != name);
        self.tool_specs.push(tool.spec);
        self.tools.insert(name, Box::new(f));
        self
    }

    /// Declares `--name` (`kind` is `"boolean"` or `"string"`); read its value with
    /// [`Rho::flag`], falling back to `default` yourself when absent.
    pub fn flag(
        &mut self,
        name: &str,
        description: &str,
        kind: &str,
        default: Option<Value>,
    ) -> &mut Self {
        self.flags.push(FlagSpec {
            name: name.to_string(),
            description: Some(description.to_string()),
            kind: Some(kind.to_string()),
            default,
        });
        self
    }

    /// Runs `f` when the user presses `key` (e.g. `ctrl+shift+g`) in interactive mode.
    pub fn shortcut(
        &mut self,
        key: &str,
        description: &str,
        f: impl Fn(&Rho) -> Result<(), Error> + Send + Sync + 'static,
    ) -> &mut Self {
        self.shortcut_specs.retain(|s| s.key != key);
        self.shortcut_specs.push(ShortcutSpec {
            key: key.to_string(),
            description: Some(description.to_string()),
        });
        self.shortcuts.insert(key.to_string(), Box::new(f));
        self
    }

    /// The `register` line's content.
    pub fn registration(&self) -> Registration {
        Registration {
            name: self.name.clone(),
            events: self.event_order.clone(),
            commands: self.command_specs.clone(),
            tools: self.tool_specs.clone(),
            flags: self.flags.clone(),
            shortcuts: self.shortcut_specs.clone(),
            providers: Vec::new(),
            virtual_models: Vec::new(),
            mcp_servers: Vec::new(),
            notices: Vec::new(),
            renderers: Default::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn registration_lists_what_was_registered_in_order() {
        let mut ext = Extension::new("demo");
        ext.on("tool_call", |_, _| Ok(None))
            .on("input", |_, _| Ok(None))
            .on("tool_call", |_, _| Ok(None))
            .command("ask", "ask the model", |_, _| Ok(()))
            .tool(
                Tool::new("word_count", "Counts words.")
                    .label("Word count")
                    .parameters(json!({"type": "object"})),
                |_, _| Ok(ToolResult::text("0")),
            )
            .flag("verbose", "log more", "boolean", Some(json!(false)))
            .shortcut("ctrl+g", "toggle", |_| Ok(()));
        let v = serde_json::to_value(ext.registration()).expect("encodes");
        assert_eq!(
            v,
            json!({
                "name": "demo",
                "events": ["tool_call", "input"],
                "commands": [{"name": "ask", "description": "ask the model"}],
                "tools": [{"name": "word_count", "label": "Word count",
                           "description": "Counts words.", "parameters": {"type": "object"}}],
                "flags": [{"name": "verbose", "description": "log more", "type": "boolean",
                           "default": false}],
                "shortcuts": [{"key": "ctrl+g", "description": "toggle"}]
            })
        );
    }
}
