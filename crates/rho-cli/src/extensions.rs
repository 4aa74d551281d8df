//! Starting extension processes: `-e PATH` (always), then, unless `--no-extensions`, the
//! settings `extensions` list and the extension directories `<agentDir>/extensions/` and
//! `<project>/.rho/extensions/` (docs/extensions.md). A failing extension is a warning; the
//! session starts without it.

use std::path::{Path, PathBuf};

use rho_core::extensions::process::{ProcessExtension, ProcessOptions};
use rho_core::extensions::Extension;
use rho_core::settings::Settings;

use crate::args::Args;

/// The interpreter for an extension file: `python3` for `.py`, `node` for `.js`/`.mjs`/`.cjs`,
/// else the file itself is run.
pub fn program_for(path: &Path) -> (String, Vec<String>) {
    let file = path.display().to_string();
    match path.extension().and_then(|e| e.to_str()) {
        Some("py") => ("python3".into(), vec![file]),
        Some("js" | "mjs" | "cjs") => ("node".into(), vec![file]),
        _ => (file, Vec::new()),
    }
}

/// Extension files in `dir` (sorted; dot files skipped).
fn discover(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| {
            p.is_file()
                && !p
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with('.'))
        })
        .collect();
    files.sort();
    files
}

/// Every extension path to start, in load order, each once.
pub fn sources(
    args: &Args,
    settings: &Settings,
    agent_dir: &Path,
    project_dir: Option<&Path>,
    cwd: &Path,
) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = args.extensions.iter().map(|p| cwd.join(p)).collect();
    if !args.no_extensions {
        paths.extend(settings.string_list("extensions").iter().map(|p| {
            let expanded =
                rho_core::session::paths::expand_tilde(p, &rho_core::session::paths::process_env);
            agent_dir.join(expanded)
        }));
        if let Some(project_dir) = project_dir {
            paths.extend(discover(&project_dir.join("extensions")));
        }
        paths.extend(discover(&agent_dir.join("extensions")));
    }
    let mut seen = Vec::new();
    paths.retain(|p| {
        let key = std::fs::canonicalize(p).unwrap_or_else(|_| p.clone());
        let new = !seen.contains(&key);
        seen.push(key);
        new
    });
    paths
}

/// Starts every extension; failures become warnings.
pub async fn load(
    paths: &[PathBuf],
    cwd: &Path,
    has_ui: bool,
    warnings: &mut Vec<String>,
) -> Vec<Extension> {
    let mut loaded = Vec::new();
    for path in paths {
        let (program, args) = program_for(path);
        let options = ProcessOptions {
            cwd: Some(cwd.to_path_buf()),
            has_ui,
            ..ProcessOptions::default()
        };
        match ProcessExtension::spawn(&program, &args, options).await {
            Ok(ext) => loaded.push(ext.extension()),
            Err(e) => warnings.push(e.to_string()),
        }
    }
    loaded
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interpreters_by_extension() {
        assert_eq!(
            program_for(Path::new("/x/a.py")),
            ("python3".to_string(), vec!["/x/a.py".to_string()])
        );
        assert_eq!(program_for(Path::new("/x/a.mjs")).0, "node");
        assert_eq!(
            program_for(Path::new("/x/tool")),
            ("/x/tool".to_string(), vec![])
        );
    }
}
