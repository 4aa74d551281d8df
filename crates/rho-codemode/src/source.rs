//! The script source: JavaScript, optionally led by one `// @options: {...}` line that sets
//! `max_output_tokens` and `timeout_ms`. Errors carry pi's texts; an options line anywhere but
//! the first line fails the call before the script runs.

/// The prefix of the options line.
pub const OPTIONS_PREFIX: &str = "// @options:";
const FIELDS_TEXT: &str = "`max_output_tokens` and `timeout_ms`";
/// Largest `timeout_ms` (what a JavaScript timer can hold; pi's bound).
pub const MAX_TIMEOUT_MS: u64 = 2_147_483_647;

/// What the options line asked for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ScriptOptions {
    pub max_output_tokens: Option<u64>,
    pub timeout_ms: Option<u64>,
}

/// A script ready to run: the code (the options line replaced by an empty line, so line
/// numbers in stack traces match the input) and its options.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    pub code: String,
    pub options: ScriptOptions,
}

/// Why a script did not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct SourceError(pub String);

fn fail(text: impl Into<String>) -> SourceError {
    SourceError(text.into())
}

/// Splits the optional options line from the script.
pub fn parse(input: &str) -> Result<Source, SourceError> {
    if input.trim().is_empty() {
        return Err(fail(
            "Expected JavaScript source text (non-empty). Provide JS only, optionally with a first line `// @options: {\"max_output_tokens\": 1000}`.",
        ));
    }
    if let Some(line) = input
        .split('\n')
        .enumerate()
        .skip(1)
        .find(|(_, l)| l.trim_start().starts_with(OPTIONS_PREFIX))
        .map(|(i, _)| i + 1)
    {
        return Err(fail(format!(
            "The {OPTIONS_PREFIX} line must be the first line of the input; found one on line {line}"
        )));
    }
    let (first, rest) = match input.find('\n') {
        Some(i) => (&input[..i], &input[i..]),
        None => (input, ""),
    };
    let Some(directive) = first
        .trim_end_matches('\r')
        .trim_start()
        .strip_prefix(OPTIONS_PREFIX)
    else {
        return Ok(Source {
            code: input.to_string(),
            options: ScriptOptions::default(),
        });
    };
    if rest.trim().is_empty() {
        return Err(fail(
            "The @options line must be followed by JavaScript source on subsequent lines",
        ));
    }
    Ok(Source {
        code: rest.to_string(),
        options: parse_options(directive.trim())?,
    })
}

fn parse_options(directive: &str) -> Result<ScriptOptions, SourceError> {
    let not_object = || {
        fail(format!(
            "@options must be a JSON object with supported fields {FIELDS_TEXT}"
        ))
    };
    if directive.is_empty() {
        return Err(not_object());
    }
    let value: serde_json::Value = serde_json::from_str(directive).map_err(|e| {
        fail(format!(
            "@options must be valid JSON with supported fields {FIELDS_TEXT}: {e}"
        ))
    })?;
    let fields = value.as_object().ok_or_else(not_object)?;
    if let Some(key) = fields
        .keys()
        .find(|k| !["max_output_tokens", "timeout_ms"].contains(&k.as_str()))
    {
        return Err(fail(format!(
            "@options only supports {FIELDS_TEXT}; got `{key}`"
        )));
    }
    let max_output_tokens = match fields.get("max_output_tokens") {
        None => None,
        Some(v) => Some(safe_integer(v).ok_or_else(|| {
            fail("@options field `max_output_tokens` must be a non-negative safe integer")
        })?),
    };
    let timeout_ms = match fields.get("timeout_ms") {
        None => None,
        Some(v) => Some(
            safe_integer(v)
                .filter(|n| (1..=MAX_TIMEOUT_MS).contains(n))
                .ok_or_else(|| {
                    fail(format!(
                        "@options field `timeout_ms` must be a positive integer up to {MAX_TIMEOUT_MS}"
                    ))
                })?,
        ),
    };
    Ok(ScriptOptions {
        max_output_tokens,
        timeout_ms,
    })
}

/// A non-negative integer JavaScript represents exactly (`1e3` counts, `1.5` does not).
fn safe_integer(v: &serde_json::Value) -> Option<u64> {
    const MAX_SAFE: u64 = (1 << 53) - 1;
    v.as_u64()
        .or_else(|| {
            v.as_f64()
                .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f <= MAX_SAFE as f64)
                .map(|f| f as u64)
        })
        .filter(|n| *n <= MAX_SAFE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_scripts_pass_unchanged() {
        let s = parse("return 1").unwrap();
        assert_eq!(s.code, "return 1");
        assert_eq!(s.options, ScriptOptions::default());
    }

    #[test]
    fn the_options_line_is_replaced_by_an_empty_line() {
        let s = parse("// @options: {\"max_output_tokens\": 20, \"timeout_ms\": 1e3}\nreturn 1")
            .unwrap();
        assert_eq!(s.code, "\nreturn 1");
        assert_eq!(s.options.max_output_tokens, Some(20));
        assert_eq!(s.options.timeout_ms, Some(1000));
    }

    #[test]
    fn bad_options_fail_with_pi_texts() {
        let e = |input: &str| parse(input).unwrap_err().0;
        assert!(e("  ").starts_with("Expected JavaScript source text (non-empty)."));
        assert_eq!(
            e("x()\n// @options: {}\n"),
            "The // @options: line must be the first line of the input; found one on line 2"
        );
        assert_eq!(
            e("// @options: {\"timeout_ms\": 5}"),
            "The @options line must be followed by JavaScript source on subsequent lines"
        );
        assert_eq!(
            e("// @options: {\"depth\": 1}\nx"),
            "@options only supports `max_output_tokens` and `timeout_ms`; got `depth`"
        );
        assert_eq!(
            e("// @options: {\"timeout_ms\": 0}\nx"),
            "@options field `timeout_ms` must be a positive integer up to 2147483647"
        );
        assert_eq!(
            e("// @options: {\"max_output_tokens\": -1}\nx"),
            "@options field `max_output_tokens` must be a non-negative safe integer"
        );
        assert_eq!(
            e("// @options: [1]\nx"),
            "@options must be a JSON object with supported fields `max_output_tokens` and `timeout_ms`"
        );
        assert!(e("// @options: {nope}\nx")
            .starts_with("@options must be valid JSON with supported fields"));
    }
}
