//! Property test (issue 17): the settings parser takes any text without panicking and says
//! why it rejects what it rejects. The `cargo fuzz` target `config_files` in `fuzz/` explores
//! the same entry point for longer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;
use rho_core::settings::{parse_scope, Settings};

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn settings_text_parses_or_says_why(text in prop_oneof![
        ".{0,80}",
        r#"\{"(retry|compaction|httpIdleTimeoutMs|steeringMode)":(1|"x"|null|\{\}|\[\]|-1|1e99)\}"#,
    ]) {
        match parse_scope(&text) {
            Ok(scope) => {
                let s = Settings::from_scopes(scope.clone(), scope);
                let _ = (s.retry(), s.compaction(), s.http_idle_timeout(), s.provider_timeout());
                let _ = (s.steering_mode(), s.default_thinking_level());
            }
            Err(e) => prop_assert!(e.to_string().starts_with("invalid JSON ("), "{e}"),
        }
    }
}
