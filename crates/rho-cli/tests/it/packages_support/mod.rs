//! A world for package tests: a temp home with rho's agent dir (`agent/`), a project
//! (`work/`), pi's agent dir where pi puts it (`.pi/agent/`), an `.npmrc` pointing npm at a
//! closed loopback port so nothing reaches the internet, fixture packages built in the temp
//! dir (packed with `npm pack`, or committed to a `git init` repository), and the real `rho`
//! binary run as a command or as an RPC session asked for its commands.

#![allow(dead_code)]

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use rho_testkit::git::git;
use serde_json::{json, Value};

/// One test's files.
pub struct World {
    pub home: tempfile::TempDir,
    /// A folder put first on PATH (npm and git shims that log their calls).
    pub shims: Option<PathBuf>,
}

impl World {
    pub fn new() -> World {
        let home = tempfile::tempdir().expect("tempdir");
        let root = home.path().canonicalize().expect("canonical");
        for dir in ["agent", "work", "pkgs"] {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
        }
        // Port 9 on loopback is closed: any registry request fails at once.
        std::fs::write(
            root.join(".npmrc"),
            "registry=http://127.0.0.1:9/\nfetch-retries=0\nupdate-notifier=false\naudit=false\nfund=false\n",
        )
        .expect(".npmrc");
        World { home, shims: None }
    }

    pub fn root(&self) -> PathBuf {
        self.home.path().canonicalize().expect("canonical")
    }
    pub fn agent(&self) -> PathBuf {
        self.root().join("agent")
    }
    pub fn work(&self) -> PathBuf {
        self.root().join("work")
    }
    pub fn pi_agent(&self) -> PathBuf {
        self.root().join(".pi/agent")
    }

    fn path_var(&self) -> String {
        let path = std::env::var("PATH").unwrap_or_default();
        match &self.shims {
            Some(dir) => format!("{}:{path}", dir.display()),
            None => path,
        }
    }

    /// `rho` with a clean environment in `cwd`.
    pub fn command(&self, cwd: &Path, args: &[&str]) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_rho"));
        cmd.args(args)
            .current_dir(cwd)
            .env_clear()
            .env("PATH", self.path_var())
            .env("HOME", self.root())
            .env("RHO_CODING_AGENT_DIR", self.agent())
            .stdin(Stdio::null());
        cmd
    }

    /// Runs `rho args` in the project.
    pub fn rho(&self, args: &[&str]) -> Output {
        self.command(&self.work(), args).output().expect("rho runs")
    }

    /// Starts an RPC session in the project with `args`, asks `get_commands` and returns
    /// the commands and rho's stderr.
    pub fn commands(&self, args: &[&str]) -> (Vec<Value>, String) {
        let mut all = vec!["--mode", "rpc", "--no-session"];
        all.extend_from_slice(args);
        get_commands(self.command(&self.work(), &all))
    }

    /// Adds `key: value` to rho's settings.json (keeping what `rho install` wrote).
    pub fn set_setting(&self, key: &str, value: Value) {
        let file = self.agent().join("settings.json");
        let mut settings: Value = std::fs::read_to_string(&file)
            .ok()
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_else(|| json!({}));
        settings[key] = value;
        std::fs::write(file, settings.to_string()).expect("settings");
    }

    /// npm and git shims first on PATH, each logging its arguments to the returned file.
    pub fn log_processes(&mut self) -> PathBuf {
        let dir = self.root().join("shims");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let log = self.root().join("processes.log");
        for program in ["npm", "git"] {
            let real = which(program);
            let script = format!(
                "#!/bin/sh\necho \"{program} $*\" >> '{}'\nexec '{}' \"$@\"\n",
                log.display(),
                real.display()
            );
            let shim = dir.join(program);
            std::fs::write(&shim, script).expect("shim");
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&shim, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        }
        self.shims = Some(dir);
        log
    }
}

fn which(program: &str) -> PathBuf {
    let out = Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .expect("sh");
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

/// Starts `agent` (an RPC session of rho or pi), asks `get_commands` and returns the
/// commands and its stderr.
pub fn get_commands(mut agent: Command) -> (Vec<Value>, String) {
    let mut child = agent
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the agent starts");
    let mut stdin = child.stdin.take().expect("stdin");
    stdin
        .write_all(b"{\"id\":\"c\",\"type\":\"get_commands\"}\n")
        .expect("ask");
    drop(stdin);
    let mut out = String::new();
    child
        .stdout
        .take()
        .expect("stdout")
        .read_to_string(&mut out)
        .expect("read");
    let mut err = String::new();
    child
        .stderr
        .take()
        .expect("stderr")
        .read_to_string(&mut err)
        .expect("read");
    child.wait().expect("exit");
    let response = out
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|v| v["id"] == "c")
        .unwrap_or_else(|| panic!("no get_commands response: {out}\n{err}"));
    let list = response["data"]["commands"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    (list, err)
}

/// The calls the shims logged.
pub fn logged(log: &Path) -> String {
    std::fs::read_to_string(log).unwrap_or_default()
}

/// A package folder `dir` named `name` (version `version`): an extension registering the
/// command `<name>-hello` (TypeScript), a skill `<name>-skill`, prompts `<name>-review` and
/// `<name>-draft`, a theme named `<name>-theme`.
pub fn fixture(dir: &Path, name: &str, version: &str) {
    let write = |rel: &str, text: String| {
        let path = dir.join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    let pkg = json!({"name": name, "version": version, "keywords": ["pi-package"]});
    write("package.json", pkg.to_string());
    write(
        &format!("extensions/{name}.ts"),
        format!(
            "export default function (pi: any): void {{\n  pi.registerCommand(\"{name}-hello\", {{ description: \"from {name}\", handler: async () => {{}} }});\n}}\n"
        ),
    );
    write(
        &format!("skills/{name}-skill/SKILL.md"),
        format!("---\nname: {name}-skill\ndescription: The {name} skill.\n---\nDo it.\n"),
    );
    for prompt in ["review", "draft"] {
        write(
            &format!("prompts/{name}-{prompt}.md"),
            format!("---\ndescription: {prompt} with {name}\n---\n{prompt} $1\n"),
        );
    }
    write(
        &format!("themes/{name}.json"),
        json!({"name": format!("{name}-theme"), "vars": {}, "colors": {}}).to_string(),
    );
}

/// `npm pack` of `dir` into `into`; the tarball's path.
pub fn pack(dir: &Path, into: &Path) -> PathBuf {
    let out = Command::new("npm")
        .args(["pack", "--pack-destination"])
        .arg(into)
        .current_dir(dir)
        .output()
        .expect("npm pack");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let name = String::from_utf8_lossy(&out.stdout)
        .trim()
        .lines()
        .last()
        .expect("name")
        .to_string();
    into.join(name)
}

/// `dir` as a git repository with everything committed.
pub fn commit_all(dir: &Path, message: &str) -> String {
    if !dir.join(".git").exists() {
        git(dir, &["init", "-q"]);
    }
    git(dir, &["add", "-A"]);
    git(dir, &["commit", "-qm", message]);
    git(dir, &["rev-parse", "HEAD"])
}

/// The command named `name`.
pub fn command<'a>(commands: &'a [Value], name: &str) -> Option<&'a Value> {
    commands.iter().find(|c| c["name"] == name)
}

/// The names of all commands.
pub fn names(commands: &[Value]) -> Vec<String> {
    commands
        .iter()
        .filter_map(|c| c["name"].as_str().map(str::to_string))
        .collect()
}

/// Stdout and stderr of a command run, joined.
pub fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// A node that runs pi extensions, or why not (the extension checks then skip).
pub fn node() -> Option<PathBuf> {
    match crate::pi_support::node() {
        Ok(n) => Some(n),
        Err(why) => {
            eprintln!("extension checks skipped: {why}");
            None
        }
    }
}
