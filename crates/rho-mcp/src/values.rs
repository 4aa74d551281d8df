//! `env` and `headers` values: `${VAR}` anywhere in the text is replaced by the variable (empty
//! when unset), and a value starting with `!` is a shell command whose trimmed output is the value.

use crate::error::ValueError;

/// Resolves one configured value.
pub fn resolve(raw: &str) -> Result<String, ValueError> {
    if let Some(command) = raw.strip_prefix('!') {
        return rho_ai::config_value::run_shell(command)
            .map(|out| out.trim().to_string())
            .map_err(|source| ValueError {
                command: command.to_string(),
                source,
            });
    }
    Ok(expand_vars(raw, &|name| std::env::var(name).ok()))
}

/// Replaces `${NAME}` with `env(NAME)` (empty when unset); other text is kept.
pub fn expand_vars(text: &str, env: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        let Some(len) = rest[start + 2..].find('}') else {
            break;
        };
        out.push_str(&rest[..start]);
        let name = &rest[start + 2..start + 2 + len];
        out.push_str(&env(name).unwrap_or_default());
        rest = &rest[start + 3 + len..];
    }
    out.push_str(rest);
    out
}

/// A leading `~/` names the home directory.
pub fn expand_home(text: &str) -> String {
    match (text.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expands_variables_and_commands() {
        let env = |n: &str| (n == "TOKEN").then(|| "abc".to_string());
        assert_eq!(expand_vars("Bearer ${TOKEN}", &env), "Bearer abc");
        assert_eq!(expand_vars("${MISSING}x${", &env), "x${");
        assert_eq!(resolve("!echo hi").ok().as_deref(), Some("hi"));
    }
}
