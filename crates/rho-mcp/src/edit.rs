//! `rho mcp add` / `remove` and `/mcp`'s enable and disable: change one entry of an `mcp.json`,
//! keeping every other key, their order and the file's indentation (pi's `addMcpServerConfig`
//! / `removeMcpServerConfig` / `updateMcpServerConfig`).

use std::path::Path;

use crate::ordered::Json;

/// Why a file could not be edited.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
}

/// Adds or replaces `name`; returns true when an entry was replaced.
pub fn add_server(path: &Path, name: &str, entry: Json) -> Result<bool, EditError> {
    let mut replaced = false;
    edit(path, |servers| {
        replaced = servers.get(name).is_some();
        servers.set(name, entry);
        true
    })?;
    Ok(replaced)
}

/// Removes `name`; false when the file does not define it.
pub fn remove_server(path: &Path, name: &str) -> Result<bool, EditError> {
    if !path.exists() {
        return Ok(false);
    }
    let mut removed = false;
    edit(path, |servers| {
        removed = servers.remove(name);
        removed
    })?;
    Ok(removed)
}

/// Sets `key` of server `name`'s entry (e.g. `enabled`); false when the file does not define
/// the server.
pub fn set_field(path: &Path, name: &str, key: &str, value: Json) -> Result<bool, EditError> {
    let mut found = false;
    edit(path, |servers| {
        let Some(mut entry) = servers.get(name).cloned() else {
            return false;
        };
        found = true;
        entry.set(key, value);
        servers.set(name, entry);
        true
    })?;
    Ok(found)
}

fn edit(path: &Path, change: impl FnOnce(&mut Json) -> bool) -> Result<(), EditError> {
    let shown = path.display().to_string();
    let invalid = |message: String| EditError::Invalid {
        path: shown.clone(),
        message,
    };
    let text = match std::fs::read_to_string(path) {
        Ok(t) => Some(t.trim_start_matches('\u{feff}').to_string()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(source) => {
            return Err(EditError::Io {
                path: shown,
                source,
            })
        }
    };
    let mut root = match &text {
        Some(t) => Json::parse(t).map_err(|e| invalid(e.to_string()))?,
        None => Json::Object(Vec::new()),
    };
    let shape = || invalid("expected an object with an \"mcpServers\" object".into());
    if root.as_object().is_none() {
        return Err(shape());
    }
    let mut servers = match root.get("mcpServers") {
        None => Json::Object(Vec::new()),
        Some(s @ Json::Object(_)) => s.clone(),
        Some(_) => return Err(shape()),
    };
    if !change(&mut servers) {
        return Ok(());
    }
    root.set("mcpServers", servers);
    let indent = text
        .as_deref()
        .and_then(detect_indent)
        .unwrap_or("  ".into());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| EditError::Io {
            path: shown.clone(),
            source,
        })?;
    }
    std::fs::write(path, format!("{}\n", root.to_pretty(&indent))).map_err(|source| EditError::Io {
        path: shown,
        source,
    })
}

/// The indentation of the first indented line.
fn detect_indent(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let ws: String = l.chars().take_while(|c| *c == ' ' || *c == '\t').collect();
        (!ws.is_empty() && l.len() > ws.len()).then_some(ws)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn add_and_remove_keep_other_content() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("mcp.json");
        let original = "{\n    \"zeta\": {\"keep\": [1, 2]},\n    \"mcpServers\": {\n        \"b\": {\"command\": \"x\"},\n        \"a\": {\"url\": \"http://h/mcp\"}\n    },\n    \"autoEnableCodemode\": false\n}\n";
        std::fs::write(&path, original).expect("write");
        let entry = Json::parse("{\"command\": \"npx\", \"args\": [\"-y\", \"s\"]}").expect("json");
        assert!(!add_server(&path, "new", entry).expect("add"));
        let added = std::fs::read_to_string(&path).expect("read");
        assert!(added.starts_with("{\n    \"zeta\""), "{added}");
        assert!(
            added.find("\"b\"") < added.find("\"a\"")
                && added.find("\"a\"") < added.find("\"new\"")
        );
        assert!(remove_server(&path, "new").expect("remove"));
        let back = std::fs::read_to_string(&path).expect("read");
        assert_eq!(Json::parse(&back).ok(), Json::parse(original).ok());
        assert!(back.contains("\"autoEnableCodemode\": false"));
        assert!(!remove_server(&path, "missing").expect("remove"));
        assert!(set_field(&path, "b", "enabled", Json::Bool(false)).expect("set"));
        let off = std::fs::read_to_string(&path).expect("read");
        assert!(off.contains("\"enabled\": false"), "{off}");
        assert!(off.find("\"zeta\"") < off.find("\"mcpServers\""));
        assert!(!set_field(&path, "missing", "enabled", Json::Bool(true)).expect("set"));
    }
}
