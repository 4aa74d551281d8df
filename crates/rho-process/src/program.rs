//! Which file a program name starts. On unix the OS searches `PATH` itself. On Windows it
//! only finds `.exe` files, while `npm`, `npx` and `pnpm` are `.cmd` scripts there: a bare
//! name is looked up on `PATH` with each `PATHEXT` extension in turn, as pi's cross-spawn
//! does, so `npm install` and an MCP server's `npx -y …` run as they do under pi. (Rust's
//! standard library runs a `.cmd` it is given through `cmd.exe`, quoting its arguments.)

use std::path::{Path, PathBuf};

use crate::shell::Host;

/// Windows' extensions when `PATHEXT` is unset.
const DEFAULT_PATHEXT: &str = ".COM;.EXE;.BAT;.CMD";

/// The path to start for `name`: on Windows the first `name` + extension on `PATH` (or
/// `name` itself when it already ends in one); otherwise, and when nothing is found, `name`
/// as given.
pub(crate) fn resolve(name: &Path, host: &Host<'_>) -> PathBuf {
    let bare = name.components().count() == 1;
    let (true, true, Some(file)) = (host.windows, bare, name.to_str()) else {
        return name.to_path_buf();
    };
    let pathext = (host.var)("PATHEXT").and_then(|v| v.into_string().ok());
    let extensions: Vec<String> = pathext
        .as_deref()
        .unwrap_or(DEFAULT_PATHEXT)
        .split(';')
        .filter(|e| !e.is_empty())
        .map(str::to_ascii_lowercase)
        .collect();
    let lower = file.to_ascii_lowercase();
    let found = if extensions.iter().any(|e| lower.ends_with(e.as_str())) {
        host.find_on_path(file)
    } else {
        extensions
            .iter()
            .find_map(|e| host.find_on_path(&format!("{file}{e}")))
    };
    found.unwrap_or_else(|| name.to_path_buf())
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    fn resolve_on(windows: bool, pathext: Option<&str>, name: &str, files: &[&str]) -> PathBuf {
        let var = |var: &str| match var {
            "PATH" => Some(OsString::from("/node")),
            "PATHEXT" => pathext.map(OsString::from),
            _ => None,
        };
        let is_file = |path: &Path| files.iter().any(|f| Path::new(f) == path);
        let host = Host {
            windows,
            var: &var,
            is_file: &is_file,
        };
        resolve(Path::new(name), &host)
    }

    #[test]
    fn windows_finds_cmd_scripts_by_pathext_in_its_order() {
        let files = ["/node/npm.cmd", "/node/node.exe", "/node/npx.cmd"];
        let ext = Some(".COM;.EXE;.BAT;.CMD");
        assert_eq!(
            resolve_on(true, ext, "npm", &files),
            Path::new("/node/npm.cmd")
        );
        assert_eq!(
            resolve_on(true, None, "npx", &files),
            Path::new("/node/npx.cmd")
        );
        assert_eq!(
            resolve_on(true, ext, "node", &files),
            Path::new("/node/node.exe")
        );
        let both = ["/node/tool.cmd", "/node/tool.exe"];
        assert_eq!(
            resolve_on(true, ext, "tool", &both),
            Path::new("/node/tool.exe")
        );
        assert_eq!(
            resolve_on(true, ext, "npm.cmd", &files),
            Path::new("/node/npm.cmd")
        );
    }

    #[test]
    fn names_with_a_folder_unknown_names_and_unix_stay_as_given() {
        let files = ["/node/npm.cmd", "/node/rg.exe"];
        let ext = Some(".EXE;.CMD");
        assert_eq!(resolve_on(true, ext, "pnpm", &files), Path::new("pnpm"));
        assert_eq!(resolve_on(true, ext, "./npm", &files), Path::new("./npm"));
        assert_eq!(resolve_on(false, ext, "npm", &files), Path::new("npm"));
    }
}

#[cfg(all(test, windows))]
mod windows_tests {
    use std::ffi::OsString;

    use super::*;
    use crate::{run_to_end, ChildSpec, Output};

    /// A `.cmd` found by its bare name starts through `cmd.exe` with its argument intact (what
    /// `npm` and `npx` are on Windows).
    #[test]
    fn a_cmd_script_found_by_name_runs_with_its_arguments() {
        let dir = std::env::temp_dir().join(format!("rho-program-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::write(dir.join("greet.cmd"), "@echo hello %~1\r\n").expect("script");
        let path = OsString::from(&dir);
        let var = |var: &str| (var == "PATH").then(|| path.clone());
        let is_file = |p: &Path| p.is_file();
        let host = Host {
            windows: true,
            var: &var,
            is_file: &is_file,
        };
        let found = resolve(Path::new("greet"), &host);
        assert_eq!(found, dir.join("greet.cmd"));
        let spec = ChildSpec::new(found).args(["big world"]);
        let done = run_to_end(&spec, Output::Captured, None).expect("runs");
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(done.status.code(), Some(0));
        assert_eq!(
            String::from_utf8_lossy(&done.stdout).trim_end(),
            "hello big world"
        );
    }
}
