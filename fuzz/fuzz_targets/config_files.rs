//! models.json and settings.json parsing: the first byte picks the file. Nothing may panic;
//! a models.json error always names the file.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rho_ai::models_json::parse_models_json;
use rho_core::settings::{parse_scope, Settings};

fuzz_target!(|data: &[u8]| {
    let [which, rest @ ..] = data else { return };
    let Ok(text) = std::str::from_utf8(rest) else { return };
    if which % 2 == 0 {
        if let Err(e) = parse_models_json(text, "models.json") {
            assert!(e.to_string().contains("models.json"), "{e}");
        }
    } else if let Ok(scope) = parse_scope(text) {
        let s = Settings::from_scopes(scope.clone(), scope);
        let _ = (s.default_thinking_level(), s.steering_mode(), s.follow_up_mode());
        let _ = (s.compaction(), s.retry(), s.string_list("packages"), s.theme());
    }
});
