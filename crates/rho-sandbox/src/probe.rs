//! What this machine can enforce. Detected once at startup; tests build one by hand to
//! simulate a kernel without Landlock or a machine without bubblewrap.

use std::path::PathBuf;

/// The sandboxing mechanisms available.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Probe {
    /// The Landlock ABI version the kernel offers (`None`: no Landlock).
    pub landlock_abi: Option<i32>,
    /// The `bwrap` binary, when installed.
    pub bwrap: Option<PathBuf>,
}

impl Probe {
    /// Asks the kernel and looks for `bwrap` on `PATH`.
    pub fn detect() -> Self {
        Self {
            landlock_abi: landlock_abi(),
            bwrap: find_on_path("bwrap"),
        }
    }

    /// A machine with nothing (for tests of the refusal path).
    pub fn nothing() -> Self {
        Self::default()
    }
}

#[cfg(target_os = "linux")]
fn landlock_abi() -> Option<i32> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_long = 1;
    // SAFETY: with a null attribute and size 0 this only asks for the ABI version.
    let abi = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    (abi > 0).then_some(abi as i32)
}

#[cfg(not(target_os = "linux"))]
fn landlock_abi() -> Option<i32> {
    None
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|candidate| candidate.is_file())
    })
}
