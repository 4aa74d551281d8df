//! Command naming and parsing (session-behavior §3, CMD-2/3).

/// Splits `/name args`: name up to the first space, args everything after it verbatim (`""`
/// without a space). `None` when the text does not start with `/`.
pub fn parse_command(text: &str) -> Option<(&str, &str)> {
    let rest = text.strip_prefix('/')?;
    Some(match rest.find(' ') {
        Some(p) => (&rest[..p], &rest[p + 1..]),
        None => (rest, ""),
    })
}

/// Invocation names for commands registered as `names` (in load order): a name used once keeps
/// it; a name used by several gets `<name>:<k>` (k its 1-based occurrence), bumping k while taken.
pub fn invocation_names(names: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for (i, name) in names.iter().enumerate() {
        let total = names.iter().filter(|n| *n == name).count();
        if total == 1 {
            out.push(name.to_string());
            continue;
        }
        let mut k = names[..=i].iter().filter(|n| *n == name).count();
        let taken = |candidate: &str, out: &[String]| {
            out.iter().any(|o| o == candidate) || names.contains(&candidate)
        };
        let mut candidate = format!("{name}:{k}");
        while taken(&candidate, &out) {
            k += 1;
            candidate = format!("{name}:{k}");
        }
        out.push(candidate);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmd_3_args_are_verbatim() {
        assert_eq!(parse_command("/hello  a b "), Some(("hello", " a b ")));
        assert_eq!(parse_command("/help"), Some(("help", "")));
        assert_eq!(parse_command("help"), None);
    }

    #[test]
    fn cmd_2_duplicates_get_numbered_names() {
        assert_eq!(
            invocation_names(&["dup", "one", "dup"]),
            ["dup:1", "one", "dup:2"]
        );
        assert_eq!(invocation_names(&["x", "x:1", "x"]), ["x:2", "x:1", "x:3"]);
    }
}
