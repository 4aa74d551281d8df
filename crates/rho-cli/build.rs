//! Link settings that keep an idle agent's memory small in the release binary.
//!
//! An idle RPC agent runs under a megabyte of code, spread over 28 MB of `.text`; the kernel
//! maps the pages around each one touched (and whole large page-cache folios), so most of an
//! agent's RSS was code it never ran. `symbol-order.txt` (measured by `scripts/gen-symbol-order`)
//! lists the functions start-up, `get_state` and a first turn run; the linker places them
//! first, together. The loader's relocation table (1.4 MB, read at every start) shrinks to a
//! few kilobytes in the packed format glibc 2.36 reads (`-z pack-relative-relocs`), used when
//! the building system's glibc has it.
//!
//! Only where the linker is rustc's own lld (x86_64 Linux, no linker configured): other
//! linkers may not know these flags. A missing or stale name only costs locality.

use std::env;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=symbol-order.txt");
    println!("cargo:rerun-if-env-changed=RUSTC_LINKER");
    let release = env::var("PROFILE").is_ok_and(|p| p == "release");
    let default_lld = env::var("TARGET").is_ok_and(|t| t == "x86_64-unknown-linux-gnu");
    let linker_chosen = env::var_os("RUSTC_LINKER").is_some()
        || env::var("CARGO_ENCODED_RUSTFLAGS")
            .is_ok_and(|f| f.contains("fuse-ld") || f.contains("linker"));
    if !(release && default_lld) || linker_chosen {
        return;
    }
    let order = env::var("CARGO_MANIFEST_DIR").map(|dir| format!("{dir}/symbol-order.txt"));
    if let Some(order) = order.ok().filter(|o| std::path::Path::new(o).exists()) {
        println!("cargo:rustc-link-arg-bin=rho=-Wl,--symbol-ordering-file={order}");
        println!("cargo:rustc-link-arg-bin=rho=-Wl,--no-warn-symbol-ordering");
    }
    if glibc_version().is_some_and(|v| v >= (2, 36)) {
        println!("cargo:rustc-link-arg-bin=rho=-Wl,-z,pack-relative-relocs");
    }
}

/// The building system's glibc (`getconf GNU_LIBC_VERSION` prints `glibc 2.36`).
fn glibc_version() -> Option<(u32, u32)> {
    let out = Command::new("getconf")
        .arg("GNU_LIBC_VERSION")
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let (major, minor) = text.trim().strip_prefix("glibc ")?.split_once('.')?;
    Some((major.parse().ok()?, minor.parse().ok()?))
}
