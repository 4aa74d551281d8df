//! Names of MCP tools as the model sees them (pi's rules): `mcp__<server>__<tool>` with every
//! character other than `[A-Za-z0-9_]` replaced by `_`, at most 64 characters; a name that is too
//! long or taken by another tool gets an 8-hex-digit sha256 suffix.

use sha2::{Digest, Sha256};

/// Provider tool names are limited to 64 characters.
const MAX_TOOL_NAME_LENGTH: usize = 64;

/// The model-facing name of `tool` of `server`; `is_taken` reports names used by another tool.
pub fn tool_name(server: &str, tool: &str, is_taken: &dyn Fn(&str) -> bool) -> String {
    let name: String = format!("mcp__{server}__{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if name.len() <= MAX_TOOL_NAME_LENGTH && !is_taken(&name) {
        return name;
    }
    let digest = Sha256::digest(format!("{server}\0{tool}").as_bytes());
    let hash: String = digest.iter().take(4).map(|b| format!("{b:02x}")).collect();
    let keep = name.len().min(MAX_TOOL_NAME_LENGTH - hash.len() - 1);
    format!("{}_{hash}", &name[..keep])
}

/// The namespace of a server's tools; names differing only in `-`/`_` share one.
pub fn namespace(server: &str) -> String {
    format!("mcp__{}", server.replace('-', "_"))
}

/// Names for all tools of one server: sanitised names that collide all get the hash suffix.
pub fn server_tool_names(
    server: &str,
    tools: &[String],
    taken: &dyn Fn(&str) -> bool,
) -> Vec<String> {
    let plain: Vec<String> = tools
        .iter()
        .map(|t| tool_name(server, t, &|_| false))
        .collect();
    tools
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let collides = plain
                .iter()
                .enumerate()
                .any(|(j, other)| j != i && *other == plain[i]);
            tool_name(server, t, &|name| collides || taken(name))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sanitises_and_suffixes_collisions() {
        assert_eq!(
            tool_name("everything", "get-sum", &|_| false),
            "mcp__everything__get_sum"
        );
        let names = server_tool_names("s", &["a-b".into(), "a_b".into(), "c".into()], &|_| false);
        assert_eq!(names[2], "mcp__s__c");
        assert!(names[0].starts_with("mcp__s__a_b_") && names[0].len() == "mcp__s__a_b_".len() + 8);
        assert_ne!(names[0], names[1]);
        let long = tool_name("srv", &"x".repeat(80), &|_| false);
        assert_eq!(long.len(), 64);
    }

    #[test]
    fn namespaces_join_dash_and_underscore() {
        assert_eq!(namespace("dev-radius"), namespace("dev_radius"));
    }
}
