//! The environment variables that configure rho itself, read here and nowhere else. Each has
//! rho's name and pi 1.6's (`docs/environment-variables.md`): a pi user's environment works
//! unchanged, and when both are set the `RHO_` name wins. Variables pi reads that mean nothing
//! to rho (its version check, telemetry, share viewer) are listed in the README.

/// A variable rho reads, under rho's name and pi's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Var {
    /// rho's name, read first.
    pub rho: &'static str,
    /// pi's name, read when rho's is unset or empty.
    pub pi: &'static str,
}

/// The agent dir (settings, models.json, auth.json, sessions).
pub const AGENT_DIR: Var = Var {
    rho: "RHO_CODING_AGENT_DIR",
    pi: "PI_CODING_AGENT_DIR",
};

/// Where every session file goes (one flat folder), below `--session-dir`.
pub const SESSION_DIR: Var = Var {
    rho: "RHO_CODING_AGENT_SESSION_DIR",
    pi: "PI_CODING_AGENT_SESSION_DIR",
};

/// No network activity at start-up (`--offline`): `1`, `true` or `yes`.
pub const OFFLINE: Var = Var {
    rho: "RHO_OFFLINE",
    pi: "PI_OFFLINE",
};

/// The markers every child process inherits, set once at start-up (pi's `AI_AGENT=pi` and
/// `PI_CODING_AGENT=true`, so tools that recognise pi's marker treat rho as pi, whose
/// behaviour it keeps; `RHO_CODING_AGENT=true` for those that want to tell them apart).
pub const PROCESS_MARKERS: [(&str, &str); 3] = [
    ("AI_AGENT", "pi"),
    ("PI_CODING_AGENT", "true"),
    ("RHO_CODING_AGENT", "true"),
];

impl Var {
    /// The value in `env`: rho's name, else pi's; empty values count as unset.
    pub fn read(self, env: &dyn Fn(&str) -> Option<String>) -> Option<String> {
        let set = |name: &str| env(name).filter(|v| !v.is_empty());
        set(self.rho).or_else(|| set(self.pi))
    }

    /// The value in the process environment.
    pub fn get(self) -> Option<String> {
        self.read(&process_env)
    }

    /// Whether the variable is switched on (`1`, `true` or `yes`, any case), as pi reads
    /// its boolean variables.
    pub fn is_on(self, env: &dyn Fn(&str) -> Option<String>) -> bool {
        self.read(env)
            .is_some_and(|v| matches!(v.to_ascii_lowercase().as_str(), "1" | "true" | "yes"))
    }
}

/// Reads the real process environment (for the functions taking an environment).
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env_of(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone())
    }

    #[test]
    fn rhos_name_wins_and_pis_is_read_alone() {
        let both = env_of(&[("RHO_OFFLINE", "0"), ("PI_OFFLINE", "1")]);
        assert_eq!(OFFLINE.read(&both).as_deref(), Some("0"));
        assert!(!OFFLINE.is_on(&both));
        let pi = env_of(&[("PI_CODING_AGENT_DIR", "/p")]);
        assert_eq!(AGENT_DIR.read(&pi).as_deref(), Some("/p"));
        let empty_rho = env_of(&[
            ("RHO_CODING_AGENT_SESSION_DIR", ""),
            ("PI_CODING_AGENT_SESSION_DIR", "/s"),
        ]);
        assert_eq!(SESSION_DIR.read(&empty_rho).as_deref(), Some("/s"));
        assert_eq!(SESSION_DIR.read(&env_of(&[])), None);
    }

    #[test]
    fn switches_read_as_pi_reads_them() {
        for on in ["1", "true", "YES"] {
            assert!(OFFLINE.is_on(&env_of(&[("PI_OFFLINE", on)])), "{on}");
        }
        assert!(!OFFLINE.is_on(&env_of(&[("PI_OFFLINE", "no")])));
    }
}
