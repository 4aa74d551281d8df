//! Which pi release's encoding the RPC and JSON event streams speak (D15). Both dialects
//! carry the same session data; they differ in shapes (pi 1.x sends deltas in
//! `message_update`, acknowledges prompts with a `disposition`, adds `agent_settled`, ...).

use std::fmt;
use std::str::FromStr;

/// The encoding of `--mode rpc` and `--mode json`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// pi 0.73.1's (`@mariozechner/pi-coding-agent`), the shapes of `shared/spec/interfaces.md`.
    Pi073,
    /// pi 1.x's (`@earendil-works/pi-coding-agent`), as pi 1.6.0's `docs/rpc*.md` and
    /// `docs/json.md` define it: the default (D15), since pi 1.x is what pi users run.
    #[default]
    Pi1,
}

impl Dialect {
    /// The name users write (`--rpc-dialect`, settings key `rpcDialect`).
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Pi073 => "0.73",
            Dialect::Pi1 => "1.x",
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A dialect name rho does not know.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownDialect(pub String);

impl fmt::Display for UnknownDialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "unknown RPC dialect \"{}\": use \"1.x\" (pi 1.x) or \"0.73\" (pi 0.73.1)",
            self.0
        )
    }
}

impl std::error::Error for UnknownDialect {}

impl FromStr for Dialect {
    type Err = UnknownDialect;

    /// Accepts the names and the versions users are likely to write: `1`, `1.x`, `1.6`,
    /// `1.6.0`; `0.73`, `0.73.1`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let t = text.trim();
        let t = t.strip_prefix('v').unwrap_or(t);
        if t == "1" || t == "1.x" || t.starts_with("1.") {
            Ok(Dialect::Pi1)
        } else if t == "0.73" || t.starts_with("0.73.") || t == "0.x" {
            Ok(Dialect::Pi073)
        } else {
            Err(UnknownDialect(text.to_string()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_versions_parse() {
        for t in ["1", "1.x", "1.6", "1.6.0", "v1.6.0"] {
            assert_eq!(t.parse(), Ok(Dialect::Pi1), "{t}");
        }
        for t in ["0.73", "0.73.1", "0.x"] {
            assert_eq!(t.parse(), Ok(Dialect::Pi073), "{t}");
        }
        for d in [Dialect::Pi1, Dialect::Pi073] {
            assert_eq!(d.name().parse(), Ok(d));
        }
    }

    #[test]
    fn an_unknown_name_says_what_is_accepted() {
        let e = "2".parse::<Dialect>().unwrap_err().to_string();
        assert!(
            e.contains("\"2\"") && e.contains("1.x") && e.contains("0.73"),
            "{e}"
        );
    }
}
