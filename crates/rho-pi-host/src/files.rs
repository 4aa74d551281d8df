//! The host program's files (embedded) and which extension paths are pi extensions.

use std::path::{Path, PathBuf};

/// The host's entry file name.
pub const HOST_ENTRY: &str = "host.mjs";

/// The host's modules, written side by side.
const FILES: [(&str, &str); 13] = [
    ("host.mjs", include_str!("../host/host.mjs")),
    ("hooks.mjs", include_str!("../host/hooks.mjs")),
    ("wire.mjs", include_str!("../host/wire.mjs")),
    ("api.mjs", include_str!("../host/api.mjs")),
    ("events.mjs", include_str!("../host/events.mjs")),
    ("session_api.mjs", include_str!("../host/session_api.mjs")),
    (
        "session_setup.mjs",
        include_str!("../host/session_setup.mjs"),
    ),
    ("providers.mjs", include_str!("../host/providers.mjs")),
    (
        "provider_object.mjs",
        include_str!("../host/provider_object.mjs"),
    ),
    (
        "session_projection.mjs",
        include_str!("../host/session_projection.mjs"),
    ),
    ("render.mjs", include_str!("../host/render.mjs")),
    ("theme.mjs", include_str!("../host/theme.mjs")),
    ("editor.mjs", include_str!("../host/editor.mjs")),
];

/// A directory name that changes whenever the embedded files do, so a running rho of another
/// version never sees its host rewritten underneath it.
fn version_dir() -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (name, text) in FILES {
        for b in name.bytes().chain(text.bytes()) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("host-{hash:016x}")
}

/// Writes the host into `<dir>/host-<hash>/` (once) and returns its entry file.
pub fn install_host(dir: &Path) -> std::io::Result<PathBuf> {
    let root = dir.join(version_dir());
    let entry = root.join(HOST_ENTRY);
    if entry.is_file() {
        return Ok(entry);
    }
    let staging = dir.join(format!("{}.{}.tmp", version_dir(), std::process::id()));
    std::fs::create_dir_all(&staging)?;
    for (name, text) in FILES {
        std::fs::write(staging.join(name), text)?;
    }
    if std::fs::rename(&staging, &root).is_err() {
        // Another rho installed the same version meanwhile.
        let _ = std::fs::remove_dir_all(&staging);
    }
    Ok(entry)
}

/// Whether `path` is a pi extension (run by the host) rather than a program speaking rho's
/// protocol: TypeScript files, directories (an `index.ts`/`index.js` or a `package.json`), and
/// JavaScript modules with a default export (rho's own JS extensions are scripts that call
/// `run()` and export nothing).
pub fn is_pi_extension(path: &Path) -> bool {
    if path.is_dir() {
        return ["index.ts", "index.js", "index.mjs", "package.json"]
            .iter()
            .any(|f| path.join(f).is_file());
    }
    match path.extension().and_then(|e| e.to_str()) {
        Some("ts" | "mts" | "cts") => true,
        Some("js" | "mjs") => std::fs::read_to_string(path)
            .map(|text| text.contains("export default"))
            .unwrap_or(false),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pi_extensions_are_told_from_protocol_programs() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let file = |name: &str, text: &str| {
            let p = tmp.path().join(name);
            std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
            std::fs::write(&p, text).expect("write");
            p
        };
        assert!(is_pi_extension(&file("a.ts", "")));
        assert!(is_pi_extension(&file(
            "b.js",
            "export default function (pi) {}"
        )));
        assert!(!is_pi_extension(&file("c.mjs", "ext.run();")));
        assert!(!is_pi_extension(&file("d.py", "")));
        file("dir/index.ts", "");
        assert!(is_pi_extension(&tmp.path().join("dir")));
        file("empty/readme.md", "");
        assert!(!is_pi_extension(&tmp.path().join("empty")));
    }

    #[test]
    fn the_host_is_written_once_per_version() {
        let tmp = tempfile::tempdir().expect("tempdir");
        let entry = install_host(tmp.path()).expect("install");
        assert!(entry.ends_with(HOST_ENTRY));
        for (name, text) in FILES {
            let on_disk = std::fs::read_to_string(entry.with_file_name(name)).expect("file");
            assert_eq!(on_disk, text);
        }
        assert_eq!(install_host(tmp.path()).expect("again"), entry);
    }
}
