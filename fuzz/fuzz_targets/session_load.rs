//! The session loader over arbitrary file contents: it must return a session or a clear
//! error, never panic; a loaded session's context must build, and each of its messages
//! (left on disk by the loader) must read back or give a clear error.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rho_session::{build_context, load_file, SessionTree};

fuzz_target!(|data: &[u8]| {
    let dir = std::env::temp_dir().join(format!("rho-fuzz-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("session.jsonl");
    if std::fs::write(&path, data).is_err() {
        return;
    }
    match load_file(&path) {
        Ok(loaded) => {
            let tree = SessionTree::from_entries(loaded.entries);
            for message in build_context(&tree).messages {
                if let Err(e) = message.get() {
                    assert!(!e.to_string().is_empty());
                }
            }
        }
        Err(e) => assert!(!e.to_string().is_empty()),
    }
});
