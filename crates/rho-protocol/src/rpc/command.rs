//! The RPC commands as typed values, and parsing one input record into one (interfaces spec
//! §1.3, §1.4; pi 1.6's docs/rpc-commands.md). Every failure carries what could be read (the
//! `id`, the command name) so the response can be correlated (D13: even an unknown command's
//! error keeps its id). Both dialects parse the same way; which commands a dialect knows is
//! its encoding's business ([`super::Dialect::knows`]).

use crate::agent::QueueMode;
use crate::ImageContent;
use serde_json::{Map, Value};

/// How a prompt sent while streaming is queued (P-6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(rename_all = "camelCase")
)]
pub enum StreamingBehavior {
    /// Interrupt: delivered before the next model call.
    Steer,
    /// Wait until the agent would stop.
    FollowUp,
}

impl StreamingBehavior {
    /// The wire name (`steer`, `followUp`).
    pub fn as_str(self) -> &'static str {
        match self {
            StreamingBehavior::Steer => "steer",
            StreamingBehavior::FollowUp => "followUp",
        }
    }
}

/// A parsed command with the id to echo.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// The client's `id`, echoed verbatim.
    pub id: Option<Value>,
    /// The wire `type`.
    pub name: String,
    /// What to do.
    pub command: Command,
}

/// The RPC commands (29 of pi 0.73.1, four more of pi 1.x) plus the extension-UI answer
/// (never answered itself).
#[derive(Debug, Clone, PartialEq)]
#[allow(missing_docs)]
#[cfg_attr(
    feature = "schema",
    derive(schemars::JsonSchema),
    schemars(
        tag = "type",
        rename_all = "snake_case",
        rename_all_fields = "camelCase"
    )
)]
pub enum Command {
    Prompt {
        message: String,
        #[cfg_attr(feature = "schema", schemars(default))]
        images: Vec<ImageContent>,
        streaming_behavior: Option<StreamingBehavior>,
    },
    Steer {
        message: String,
        #[cfg_attr(feature = "schema", schemars(default))]
        images: Vec<ImageContent>,
    },
    FollowUp {
        message: String,
        #[cfg_attr(feature = "schema", schemars(default))]
        images: Vec<ImageContent>,
    },
    Abort,
    /// pi 1.x: empties both queues and returns their texts.
    ClearQueue,
    NewSession {
        parent_session: Option<String>,
    },
    GetState,
    GetMessages,
    SetModel {
        provider: String,
        model_id: String,
    },
    CycleModel,
    GetAvailableModels,
    SetThinkingLevel {
        level: String,
    },
    CycleThinkingLevel,
    /// pi 1.x: the levels the current model supports.
    GetAvailableThinkingLevels,
    SetSteeringMode {
        mode: QueueMode,
    },
    SetFollowUpMode {
        mode: QueueMode,
    },
    Compact {
        custom_instructions: Option<String>,
    },
    SetAutoCompaction {
        enabled: bool,
    },
    SetAutoRetry {
        enabled: bool,
    },
    AbortRetry,
    Bash {
        command: String,
        /// pi 1.x: store the output but keep it out of the model's context.
        #[cfg_attr(feature = "schema", schemars(default))]
        exclude_from_context: bool,
    },
    AbortBash,
    GetSessionStats,
    ExportHtml {
        output_path: Option<String>,
    },
    SwitchSession {
        session_path: String,
    },
    Fork {
        entry_id: String,
    },
    Clone,
    GetForkMessages,
    /// pi 1.x: the session's entries in append order, after the entry `since` if given.
    GetEntries {
        since: Option<String>,
    },
    /// pi 1.x: the entries as a tree.
    GetTree,
    GetLastAssistantText,
    SetSessionName {
        name: String,
    },
    GetCommands,
    /// Resolves a pending extension dialog (§1.6). Its wire shape (`id` of the request plus
    /// `value`, `confirmed` or `cancelled`) is [`crate::schema`]'s `ExtensionUiResponse`.
    #[cfg_attr(feature = "schema", schemars(skip))]
    ExtensionUiResponse {
        ui_id: String,
        answer: UiAnswer,
    },
}

impl Command {
    /// True for the commands pi 1.x added (pi 0.73.1 answers them `Unknown command`).
    pub fn is_pi1_only(&self) -> bool {
        matches!(
            self,
            Command::ClearQueue
                | Command::GetAvailableThinkingLevels
                | Command::GetEntries { .. }
                | Command::GetTree
        )
    }
}

/// A client's answer to an extension dialog.
#[derive(Debug, Clone, PartialEq)]
pub enum UiAnswer {
    /// `value` (select, input, editor).
    Value(String),
    /// `confirmed` (confirm).
    Confirmed(bool),
    /// `cancelled: true`, or no usable field.
    Cancelled,
}

/// Why a command's fields are not usable. The texts are the `error` of the response (pi's
/// wording where pi has one), so each names the field and what it must be.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CommandError {
    /// A required field is absent or `null`; `kind` says what it must be.
    #[error("Missing required field \"{field}\" ({kind})")]
    Missing {
        /// The field's name.
        field: String,
        /// `a string` or `true or false`.
        kind: &'static str,
    },
    /// A field that must be a string is something else.
    #[error("Field \"{0}\" must be a string")]
    NotAString(String),
    /// A field that must be a boolean is something else.
    #[error("Field \"{0}\" must be true or false")]
    NotABool(String),
    /// `streamingBehavior` is neither `steer` nor `followUp`.
    #[error("Invalid streamingBehavior \"{0}\": use \"steer\" or \"followUp\"")]
    StreamingBehavior(String),
    /// A queue mode that does not exist.
    #[error("Invalid mode \"{0}\": use \"all\" or \"one-at-a-time\"")]
    Mode(String),
    /// `images` is not an array.
    #[error("Field \"images\" must be an array of image objects")]
    ImagesNotArray,
    /// An image whose data is not base64.
    #[error("images[{0}].data is not base64: the image must be base64-encoded bytes")]
    ImageNotBase64(usize),
    /// An image that is not an image object.
    #[error("images[{0}] must be {{\"type\":\"image\",\"data\":<base64>,\"mimeType\":<string>}}")]
    ImageShape(usize),
    /// No command of that name.
    #[error("Unknown command: {0}")]
    Unknown(String),
}

/// Why a record is not a command; becomes a `success:false` response.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseFailure {
    /// The id, when one could be read.
    pub id: Option<Value>,
    /// `parse` for unreadable records, else the command name.
    pub command: String,
    /// The error text.
    pub error: String,
}

/// Parses one record.
pub fn parse_line(line: &[u8]) -> Result<Request, ParseFailure> {
    let parse_error = |msg: String| ParseFailure {
        id: None,
        command: "parse".into(),
        error: format!("Failed to parse command: {msg}"),
    };
    let value: Value = serde_json::from_slice(line).map_err(|e| parse_error(e.to_string()))?;
    let Value::Object(obj) = value else {
        return Err(parse_error("a command must be a JSON object".into()));
    };
    let id = obj.get("id").cloned();
    let name = match obj.get("type") {
        Some(Value::String(t)) => t.clone(),
        _ => {
            return Err(ParseFailure {
                id,
                ..parse_error("the field \"type\" must be a string naming the command".into())
            })
        }
    };
    let fields = Fields(&obj);
    match parse_command(&name, &fields) {
        Ok(command) => Ok(Request { id, name, command }),
        Err(error) => Err(ParseFailure {
            id,
            command: name,
            error: error.to_string(),
        }),
    }
}

fn parse_command(name: &str, f: &Fields<'_>) -> Result<Command, CommandError> {
    Ok(match name {
        "prompt" => Command::Prompt {
            message: f.string("message")?,
            images: f.images()?,
            streaming_behavior: match f.opt_string("streamingBehavior")?.as_deref() {
                None => None,
                Some("steer") => Some(StreamingBehavior::Steer),
                Some("followUp") => Some(StreamingBehavior::FollowUp),
                Some(other) => return Err(CommandError::StreamingBehavior(other.to_string())),
            },
        },
        "steer" => Command::Steer {
            message: f.string("message")?,
            images: f.images()?,
        },
        "follow_up" => Command::FollowUp {
            message: f.string("message")?,
            images: f.images()?,
        },
        "abort" => Command::Abort,
        "clear_queue" => Command::ClearQueue,
        "new_session" => Command::NewSession {
            parent_session: f.opt_string("parentSession")?,
        },
        "get_state" => Command::GetState,
        "get_messages" => Command::GetMessages,
        "set_model" => Command::SetModel {
            provider: f.string("provider")?,
            model_id: f.string("modelId")?,
        },
        "cycle_model" => Command::CycleModel,
        "get_available_models" => Command::GetAvailableModels,
        "set_thinking_level" => Command::SetThinkingLevel {
            level: f.string("level")?,
        },
        "cycle_thinking_level" => Command::CycleThinkingLevel,
        "get_available_thinking_levels" => Command::GetAvailableThinkingLevels,
        "set_steering_mode" => Command::SetSteeringMode { mode: f.mode()? },
        "set_follow_up_mode" => Command::SetFollowUpMode { mode: f.mode()? },
        "compact" => Command::Compact {
            custom_instructions: f.opt_string("customInstructions")?,
        },
        "set_auto_compaction" => Command::SetAutoCompaction {
            enabled: f.bool("enabled")?,
        },
        "set_auto_retry" => Command::SetAutoRetry {
            enabled: f.bool("enabled")?,
        },
        "abort_retry" => Command::AbortRetry,
        "bash" => Command::Bash {
            command: f.string("command")?,
            exclude_from_context: f.opt_bool("excludeFromContext")?.unwrap_or(false),
        },
        "abort_bash" => Command::AbortBash,
        "get_session_stats" => Command::GetSessionStats,
        "export_html" => Command::ExportHtml {
            output_path: f.opt_string("outputPath")?,
        },
        "switch_session" => Command::SwitchSession {
            session_path: f.string("sessionPath")?,
        },
        "fork" => Command::Fork {
            entry_id: f.string("entryId")?,
        },
        "clone" => Command::Clone,
        "get_fork_messages" => Command::GetForkMessages,
        "get_entries" => Command::GetEntries {
            since: f.opt_string("since")?,
        },
        "get_tree" => Command::GetTree,
        "get_last_assistant_text" => Command::GetLastAssistantText,
        "set_session_name" => Command::SetSessionName {
            name: f.string("name")?,
        },
        "get_commands" => Command::GetCommands,
        // Never answered, even when malformed: an unusable id resolves nothing (§1.3).
        "extension_ui_response" => Command::ExtensionUiResponse {
            ui_id: f.opt_string("id").ok().flatten().unwrap_or_default(),
            answer: f.ui_answer(),
        },
        other => return Err(CommandError::Unknown(other.to_string())),
    })
}

/// Typed access to a command's fields with errors that name the field.
struct Fields<'a>(&'a Map<String, Value>);

impl Fields<'_> {
    fn string(&self, key: &str) -> Result<String, CommandError> {
        match self.0.get(key) {
            Some(Value::String(s)) => Ok(s.clone()),
            None | Some(Value::Null) => Err(CommandError::Missing {
                field: key.to_string(),
                kind: "a string",
            }),
            Some(_) => Err(CommandError::NotAString(key.to_string())),
        }
    }

    fn opt_string(&self, key: &str) -> Result<Option<String>, CommandError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(_) => Err(CommandError::NotAString(key.to_string())),
        }
    }

    fn bool(&self, key: &str) -> Result<bool, CommandError> {
        match self.0.get(key) {
            Some(Value::Bool(b)) => Ok(*b),
            None | Some(Value::Null) => Err(CommandError::Missing {
                field: key.to_string(),
                kind: "true or false",
            }),
            Some(_) => Err(CommandError::NotABool(key.to_string())),
        }
    }

    fn opt_bool(&self, key: &str) -> Result<Option<bool>, CommandError> {
        match self.0.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(_) => Err(CommandError::NotABool(key.to_string())),
        }
    }

    fn mode(&self) -> Result<QueueMode, CommandError> {
        let mode = self.string("mode")?;
        QueueMode::parse(&mode).ok_or(CommandError::Mode(mode))
    }

    fn images(&self) -> Result<Vec<ImageContent>, CommandError> {
        let list = match self.0.get("images") {
            None | Some(Value::Null) => return Ok(Vec::new()),
            Some(Value::Array(list)) => list,
            Some(_) => return Err(CommandError::ImagesNotArray),
        };
        list.iter()
            .enumerate()
            .map(|(i, v)| {
                let ok_type = v.get("type").is_none_or(|t| t == "image");
                match serde_json::from_value::<ImageContent>(v.clone()) {
                    Ok(img) if ok_type && is_base64(&img.data) => Ok(img),
                    Ok(_) if ok_type => Err(CommandError::ImageNotBase64(i)),
                    _ => Err(CommandError::ImageShape(i)),
                }
            })
            .collect()
    }

    fn ui_answer(&self) -> UiAnswer {
        if self.0.get("cancelled") == Some(&Value::Bool(true)) {
            return UiAnswer::Cancelled;
        }
        match (self.0.get("value"), self.0.get("confirmed")) {
            (Some(Value::String(v)), _) => UiAnswer::Value(v.clone()),
            (_, Some(Value::Bool(b))) => UiAnswer::Confirmed(*b),
            _ => UiAnswer::Cancelled,
        }
    }
}

/// True when `data` decodes as standard base64 (padding optional): providers refuse anything
/// else only after the whole request was sent, so it is refused before the prompt runs.
fn is_base64(data: &str) -> bool {
    use base64::engine::{general_purpose, DecodePaddingMode, GeneralPurpose};
    use base64::Engine as _;
    const LENIENT: GeneralPurpose = GeneralPurpose::new(
        &base64::alphabet::STANDARD,
        general_purpose::PAD.with_decode_padding_mode(DecodePaddingMode::Indifferent),
    );
    !data.is_empty() && LENIENT.decode(data).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fail(line: &str) -> ParseFailure {
        parse_line(line.as_bytes()).expect_err("refused")
    }

    #[test]
    fn parses_a_prompt_with_images_and_behaviour() {
        let r = parse_line(
            br#"{"id":"a","type":"prompt","message":"hi","streamingBehavior":"followUp","images":[{"type":"image","data":"AA==","mimeType":"image/png"}]}"#,
        )
        .expect("parses");
        assert_eq!(r.id, Some(json!("a")));
        assert_eq!(
            r.command,
            Command::Prompt {
                message: "hi".into(),
                images: vec![ImageContent {
                    data: "AA==".into(),
                    mime_type: "image/png".into()
                }],
                streaming_behavior: Some(StreamingBehavior::FollowUp),
            }
        );
    }

    #[test]
    fn malformed_json_is_a_parse_error_without_id() {
        let f = fail("{oops");
        assert_eq!(f.command, "parse");
        assert_eq!(f.id, None);
        assert!(
            f.error.starts_with("Failed to parse command: "),
            "{}",
            f.error
        );
        assert_eq!(fail("").command, "parse");
        assert_eq!(fail("[1,2]").command, "parse");
    }

    #[test]
    fn unknown_commands_keep_their_id() {
        let f = fail(r#"{"id":7,"type":"get_thing"}"#);
        assert_eq!(
            f,
            ParseFailure {
                id: Some(json!(7)),
                command: "get_thing".into(),
                error: "Unknown command: get_thing".into()
            }
        );
    }

    #[test]
    fn wrong_or_missing_fields_name_the_field() {
        let f = fail(r#"{"id":"x","type":"prompt","message":5}"#);
        assert_eq!((f.command.as_str(), f.id), ("prompt", Some(json!("x"))));
        assert_eq!(f.error, "Field \"message\" must be a string");
        let f = fail(r#"{"type":"set_model","provider":"p"}"#);
        assert_eq!(f.error, "Missing required field \"modelId\" (a string)");
        let f = fail(r#"{"type":"set_auto_retry","enabled":"yes"}"#);
        assert_eq!(f.error, "Field \"enabled\" must be true or false");
        let f = fail(r#"{"type":"set_steering_mode","mode":"some"}"#);
        assert!(f.error.contains("\"some\""));
        let f = fail(r#"{"type":"steer","message":"m","images":[{"data":1}]}"#);
        assert!(f.error.starts_with("images[0]"));
        assert_eq!(fail(r#"{"type":5}"#).command, "parse");
    }

    #[test]
    fn ui_answers() {
        let r = parse_line(br#"{"type":"extension_ui_response","id":"u","confirmed":true}"#)
            .expect("parses");
        assert_eq!(
            r.command,
            Command::ExtensionUiResponse {
                ui_id: "u".into(),
                answer: UiAnswer::Confirmed(true)
            }
        );
    }
}
