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

use std::path::{Path, PathBuf};

pub(crate) use merge::{apply_provider, custom_model};
pub use merge::{
    has_configured_api_key, merge_into, merge_models, resolve_provider_api_key,
    resolve_request_headers, ResolveError,
};
pub use schema::{
    CompatMap, Invalid, LevelMap, ModelDef, ModelOverride, ModelsConfig, PartialCost,
    ProviderConfig,
};

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

/// Reads models.json at `path`: its config, or an empty one and the reason the file was
/// ignored. A missing file is no error.
pub fn read_models_json(path: &Path) -> (ModelsConfig, Option<ModelsJsonError>) {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return (ModelsConfig::default(), None)
        }
        Err(source) => {
            let error = ModelsJsonError::Read {
                path: path.to_path_buf(),
                source,
            };
            return (ModelsConfig::default(), Some(error));
        }
    };
    match parse_models_json(&text, &path.display().to_string()) {
        Ok(config) => (config, None),
        Err(error) => (ModelsConfig::default(), Some(error)),
    }
}

#[cfg(test)]
#[path = "tests.rs"]
mod tests;
