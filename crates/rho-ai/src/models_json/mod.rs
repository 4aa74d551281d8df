//! Custom providers and models from `<agentDir>/models.json` (interfaces §6.4).
//!
//! The file is read whole; any problem (syntax or schema) means the whole file is ignored —
//! the built-in models still load and the error is returned for the caller to show as a
//! warning, naming the file and the field. Secrets (`apiKey`, header values) are kept as
//! written and resolved per request by [`resolve_provider_api_key`] and
//! [`resolve_request_headers`], never at load time.

mod jsonc;
mod merge;
mod schema;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use merge::{
    has_configured_api_key, merge_models, resolve_provider_api_key, resolve_request_headers,
    ResolveError,
};
pub use schema::{
    CompatMap, Invalid, LevelMap, ModelDef, ModelOverride, ModelsConfig, PartialCost,
    ProviderConfig,
};

use crate::model::Model;

/// Why models.json was ignored.
#[derive(Debug, thiserror::Error)]
pub enum ModelsJsonError {
    /// The file exists but could not be read.
    #[error("{}: cannot read the file: {source}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Not valid JSON (comments and trailing commas are allowed).
    #[error("{file}: invalid JSON at line {line}, column {column}: {message}")]
    Syntax {
        /// The file name as shown to the user.
        file: String,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// What the parser expected.
        message: String,
    },
    /// Valid JSON that breaks the schema.
    #[error("{file}: {path}: {message}")]
    Invalid {
        /// The file name as shown to the user.
        file: String,
        /// The field, e.g. `providers.ollama.models[1].contextWindow`.
        path: String,
        /// e.g. `expected a number`.
        message: String,
    },
}

/// Parses and validates models.json text; `file` names it in errors.
pub fn parse_models_json(text: &str, file: &str) -> Result<ModelsConfig, ModelsJsonError> {
    let value: serde_json::Value =
        serde_json::from_str(&jsonc::strip(text)).map_err(|e| ModelsJsonError::Syntax {
            file: file.to_string(),
            line: e.line(),
            column: e.column(),
            message: syntax_message(&e),
        })?;
    schema::validate(&value).map_err(|Invalid { path, message }| ModelsJsonError::Invalid {
        file: file.to_string(),
        path,
        message,
    })
}

/// serde_json's message without its trailing " at line L column C" (we print those).
fn syntax_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The model registry after models.json: every model, the provider settings needed at
/// request time, and the error that made the file be ignored, if any.
#[derive(Debug, Default)]
pub struct LoadedModels {
    /// Built-in and custom models, merged.
    pub models: Vec<Model>,
    /// Provider configs from the file (empty when absent or ignored).
    pub providers: BTreeMap<String, ProviderConfig>,
    /// Set when the file exists but was ignored.
    pub error: Option<ModelsJsonError>,
}

impl LoadedModels {
    /// The models.json config of `provider`, if any.
    pub fn provider(&self, provider: &str) -> Option<&ProviderConfig> {
        self.providers.get(provider)
    }
}

/// Reads `path` and merges it over `builtins`. A missing file is not an error.
pub fn load_models(path: &Path, builtins: &[Model]) -> LoadedModels {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return LoadedModels {
                models: builtins.to_vec(),
                ..LoadedModels::default()
            }
        }
        Err(source) => {
            return ignored(
                builtins,
                ModelsJsonError::Read {
                    path: path.to_path_buf(),
                    source,
                },
            )
        }
    };
    match parse_models_json(&text, &path.display().to_string()) {
        Ok(config) => LoadedModels {
            models: merge_models(builtins, &config),
            providers: config.providers,
            error: None,
        },
        Err(error) => ignored(builtins, error),
    }
}

fn ignored(builtins: &[Model], error: ModelsJsonError) -> LoadedModels {
    LoadedModels {
        models: builtins.to_vec(),
        providers: BTreeMap::new(),
        error: Some(error),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
