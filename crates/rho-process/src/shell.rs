//! Which shell runs a command, found as pi finds it (pi 1.6 `docs/windows.md`):
//!
//! - `shellPath` from settings, which must exist;
//! - unix: `/bin/bash`, then `bash` on `PATH`, then `sh`;
//! - Windows: Git Bash at `%ProgramFiles%\Git\bin\bash.exe`, then at
//!   `%ProgramFiles(x86)%\Git\bin\bash.exe`, then `bash.exe` on `PATH` (Cygwin, MSYS2), else
//!   an error naming what was searched;
//! - and for the `powershell` tool (Windows only): `pwsh.exe` on `PATH`,
//!   `%ProgramFiles%\PowerShell\7\pwsh.exe`, `powershell.exe` on `PATH`, then
//!   `%SystemRoot%\System32\WindowsPowerShell\v1.0\powershell.exe`.
//!
//! The lookups take the machine as a [`Host`] value, so both platforms' orders are tested
//! everywhere. They live here, beside the one way a child is started, because the `bash`
//! tool and `!command` config values (pi runs those through the same shell on Windows) both
//! need them.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// No shell where pi looks for one (its texts).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShellNotFound {
    /// The configured shell is missing.
    #[error("Custom shell path not found: {0}. Fix shellPath in settings.json or remove it.")]
    MissingShell(String),
    /// Windows: no Git Bash and no `bash.exe` on PATH, listing where it looked.
    #[error(
        "No bash shell found. Options:\n  1. Install Git for Windows: https://git-scm.com/download/win\n  2. Add your bash to PATH (Cygwin, MSYS2, etc.)\n  3. Set shellPath in settings.json\n\nSearched Git Bash in:\n{searched}"
    )]
    NoBash {
        /// The Git Bash locations checked, one indented line each.
        searched: String,
    },
    /// The `powershell` tool asked for outside Windows.
    #[error("The powershell tool is only available on Windows.")]
    PowerShellOnlyOnWindows,
    /// No PowerShell anywhere pi looks.
    #[error(
        "No PowerShell executable found. Install PowerShell or add powershell.exe/pwsh.exe to PATH."
    )]
    NoPowerShell,
}

/// What a lookup may ask of the machine.
pub struct Host<'a> {
    /// Whether this is Windows (its search order and `.exe` names).
    pub windows: bool,
    /// An environment variable.
    pub var: &'a dyn Fn(&str) -> Option<OsString>,
    /// Whether a file exists there.
    pub is_file: &'a dyn Fn(&Path) -> bool,
}

impl Host<'_> {
    /// This machine.
    pub fn current() -> Host<'static> {
        Host {
            windows: cfg!(windows),
            var: &|name| std::env::var_os(name),
            is_file: &|path| path.is_file(),
        }
    }

    pub(crate) fn find_on_path(&self, name: &str) -> Option<PathBuf> {
        let paths = (self.var)("PATH")?;
        std::env::split_paths(&paths)
            .map(|dir| dir.join(name))
            .find(|candidate| (self.is_file)(candidate))
    }

    /// `<%var%>\<parts…>`, when the variable is set.
    fn under(&self, var: &str, parts: &[&str]) -> Option<PathBuf> {
        let mut path = PathBuf::from((self.var)(var)?);
        path.extend(parts);
        Some(path)
    }
}

/// The shell for the `bash` tool, `!cmd`, RPC `bash` (and on Windows `!command` values).
pub fn bash(shell_path: Option<&Path>, host: &Host<'_>) -> Result<PathBuf, ShellNotFound> {
    if let Some(path) = shell_path {
        if (host.is_file)(path) {
            return Ok(path.to_path_buf());
        }
        return Err(ShellNotFound::MissingShell(path.display().to_string()));
    }
    if host.windows {
        return git_bash(host);
    }
    let bin_bash = Path::new("/bin/bash");
    if (host.is_file)(bin_bash) {
        return Ok(bin_bash.to_path_buf());
    }
    Ok(host
        .find_on_path("bash")
        .unwrap_or_else(|| PathBuf::from("sh")))
}

fn git_bash(host: &Host<'_>) -> Result<PathBuf, ShellNotFound> {
    let searched: Vec<PathBuf> = ["ProgramFiles", "ProgramFiles(x86)"]
        .iter()
        .filter_map(|var| host.under(var, &["Git", "bin", "bash.exe"]))
        .collect();
    if let Some(found) = searched.iter().find(|p| (host.is_file)(p)) {
        return Ok(found.clone());
    }
    if let Some(found) = host.find_on_path("bash.exe") {
        return Ok(found);
    }
    let searched = searched
        .iter()
        .map(|p| format!("  {}", p.display()))
        .collect::<Vec<_>>()
        .join("\n");
    Err(ShellNotFound::NoBash { searched })
}

/// The PowerShell for the `powershell` tool, preferring PowerShell 7.
pub fn powershell(host: &Host<'_>) -> Result<PathBuf, ShellNotFound> {
    if !host.windows {
        return Err(ShellNotFound::PowerShellOnlyOnWindows);
    }
    host.find_on_path("pwsh.exe")
        .or_else(|| {
            host.under("ProgramFiles", &["PowerShell", "7", "pwsh.exe"])
                .filter(|p| (host.is_file)(p))
        })
        .or_else(|| host.find_on_path("powershell.exe"))
        .or_else(|| {
            host.under(
                "SystemRoot",
                &["System32", "WindowsPowerShell", "v1.0", "powershell.exe"],
            )
            .filter(|p| (host.is_file)(p))
        })
        .ok_or(ShellNotFound::NoPowerShell)
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    /// A machine with these variables and files (paths written with `/`, which both
    /// platforms' `Path` join and compare the same way here).
    fn check<T>(
        windows: bool,
        vars: &[(&str, &str)],
        files: &[&str],
        f: impl FnOnce(&Host<'_>) -> T,
    ) -> T {
        let vars: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        let files: Vec<PathBuf> = files.iter().map(PathBuf::from).collect();
        let var = move |name: &str| vars.get(name).cloned();
        let is_file = move |path: &Path| files.iter().any(|f| f == path);
        f(&Host {
            windows,
            var: &var,
            is_file: &is_file,
        })
    }

    #[test]
    fn shell_path_wins_and_must_exist() {
        let found = check(true, &[], &["/opt/bash"], |h| {
            bash(Some(Path::new("/opt/bash")), h)
        });
        assert_eq!(found.expect("found"), PathBuf::from("/opt/bash"));
        let missing = check(false, &[], &[], |h| bash(Some(Path::new("/no/bash")), h));
        assert_eq!(
            missing.expect_err("missing").to_string(),
            "Custom shell path not found: /no/bash. Fix shellPath in settings.json or remove it."
        );
    }

    #[test]
    fn unix_takes_bin_bash_then_path_then_sh() {
        let path = [("PATH", "/usr/local/bin")];
        let bin = check(false, &path, &["/bin/bash", "/usr/local/bin/bash"], |h| {
            bash(None, h)
        });
        assert_eq!(bin.expect("found"), PathBuf::from("/bin/bash"));
        let on_path = check(false, &path, &["/usr/local/bin/bash"], |h| bash(None, h));
        assert_eq!(
            on_path.expect("found"),
            PathBuf::from("/usr/local/bin/bash")
        );
        let sh = check(false, &path, &[], |h| bash(None, h));
        assert_eq!(sh.expect("found"), PathBuf::from("sh"));
    }

    #[test]
    fn windows_takes_git_bash_in_program_files_then_bash_exe_on_path() {
        let vars = [
            ("ProgramFiles", "/pf"),
            ("ProgramFiles(x86)", "/pf86"),
            ("PATH", "/msys/usr/bin"),
        ];
        let x86 = check(
            true,
            &vars,
            &["/pf86/Git/bin/bash.exe", "/msys/usr/bin/bash.exe"],
            |h| bash(None, h),
        );
        assert_eq!(x86.expect("found"), PathBuf::from("/pf86/Git/bin/bash.exe"));
        let both = check(
            true,
            &vars,
            &["/pf/Git/bin/bash.exe", "/pf86/Git/bin/bash.exe"],
            |h| bash(None, h),
        );
        assert_eq!(both.expect("found"), PathBuf::from("/pf/Git/bin/bash.exe"));
        let on_path = check(true, &vars, &["/msys/usr/bin/bash.exe"], |h| bash(None, h));
        assert_eq!(
            on_path.expect("found"),
            PathBuf::from("/msys/usr/bin/bash.exe")
        );
        // Never /bin/bash or plain `sh` on Windows.
        let none = check(true, &vars, &["/bin/bash"], |h| bash(None, h));
        let err = none.expect_err("no bash").to_string();
        assert!(
            err.starts_with("No bash shell found. Options:\n  1. Install Git for Windows"),
            "{err}"
        );
        let git_bash = |root: &str| Path::new(root).join("Git").join("bin").join("bash.exe");
        let searched = format!(
            "Searched Git Bash in:\n  {}\n  {}",
            git_bash("/pf").display(),
            git_bash("/pf86").display()
        );
        assert!(err.ends_with(&searched), "{err}");
    }

    #[test]
    fn powershell_prefers_pwsh_then_windows_powershell() {
        let vars = [
            ("ProgramFiles", "/pf"),
            ("SystemRoot", "/win"),
            ("PATH", "/bin1"),
        ];
        let ps5 = "/win/System32/WindowsPowerShell/v1.0/powershell.exe";
        let on_path = check(
            true,
            &vars,
            &["/bin1/pwsh.exe", "/pf/PowerShell/7/pwsh.exe"],
            powershell,
        );
        assert_eq!(on_path.expect("found"), PathBuf::from("/bin1/pwsh.exe"));
        let pwsh7 = check(true, &vars, &["/pf/PowerShell/7/pwsh.exe", ps5], powershell);
        assert_eq!(
            pwsh7.expect("found"),
            PathBuf::from("/pf/PowerShell/7/pwsh.exe")
        );
        let legacy = check(true, &vars, &["/bin1/powershell.exe", ps5], powershell);
        assert_eq!(
            legacy.expect("found"),
            PathBuf::from("/bin1/powershell.exe")
        );
        let system = check(true, &vars, &[ps5], powershell);
        assert_eq!(system.expect("found"), PathBuf::from(ps5));
        let none = check(true, &vars, &[], powershell);
        assert_eq!(
            none.expect_err("none").to_string(),
            "No PowerShell executable found. Install PowerShell or add powershell.exe/pwsh.exe to PATH."
        );
        let linux = check(false, &vars, &["/bin1/pwsh.exe"], powershell);
        assert_eq!(
            linux.expect_err("not windows").to_string(),
            "The powershell tool is only available on Windows."
        );
    }

    /// This machine's own lookup: on Windows (CI: Wine, which has no Git Bash) the error lists
    /// the real `%ProgramFiles%` path, or names the bash it found.
    #[cfg(windows)]
    #[test]
    fn windows_lists_the_real_git_bash_locations() {
        match bash(None, &Host::current()) {
            Ok(found) => assert!(found.ends_with("bash.exe") && found.is_file(), "{found:?}"),
            Err(err) => {
                let program_files = std::env::var("ProgramFiles").expect("ProgramFiles");
                let expected = format!("  {program_files}\\Git\\bin\\bash.exe");
                assert!(err.to_string().contains(&expected), "{err}");
            }
        }
    }
}
