//! Real processes under the sandbox: what they may and may not change, on this machine's
//! Landlock, under bubblewrap, and with nothing available.
#![allow(clippy::unwrap_used, clippy::expect_used)]
#![cfg(target_os = "linux")]

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Output;

use rho_sandbox::{Mechanism, NetworkAccess, Probe, Sandbox, SandboxMode, SandboxPolicy};

/// Where the test worlds live: the target's temp folder, unless the checkout itself sits under a
/// temp dir (CI may clone into /tmp), which `workspace-write` opens; then a folder in the home dir.
fn worlds_root() -> PathBuf {
    let target = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let opened = [
        std::env::temp_dir(),
        PathBuf::from("/tmp"),
        PathBuf::from("/var/tmp"),
    ];
    if !opened.iter().any(|t| target.starts_with(t)) {
        return target.to_path_buf();
    }
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/root"))
        .join(".rho-sandbox-tests")
        .join(std::process::id().to_string())
}

/// A project, a home and an outside folder, none of them under a temp dir the policy opens.
struct World {
    root: PathBuf,
}

impl World {
    fn new(name: &str) -> Self {
        Self::with(
            name,
            &["proj/.git/hooks", "proj/src", "home/.cache", "outside/keep"],
        )
    }

    /// A project whose protected folders do not exist yet: a repository without `hooks`,
    /// no `.rho`, no `.pi`.
    fn bare(name: &str) -> Self {
        Self::with(
            name,
            &["proj/.git", "proj/src", "home/.cache", "outside/keep"],
        )
    }

    fn with(name: &str, dirs: &[&str]) -> Self {
        let root = worlds_root().join(format!("sandbox-{name}"));
        let _ = std::fs::remove_dir_all(&root);
        for dir in dirs {
            std::fs::create_dir_all(root.join(dir)).expect("mkdir");
        }
        std::fs::write(root.join("outside/keep/file"), "precious").expect("write");
        std::fs::write(root.join("home/.bashrc"), "# mine").expect("write");
        Self { root }
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    fn policy(&self, mode: SandboxMode, network: NetworkAccess) -> SandboxPolicy {
        SandboxPolicy::new(
            mode,
            network,
            &self.path("proj"),
            Some(&self.path("home")),
            None,
            &[],
        )
    }

    fn run(&self, sandbox: &Sandbox, script: &str) -> Output {
        let mut cmd = sandbox
            .command(Path::new("/bin/sh"), &["-c".into(), script.into()])
            .expect("command");
        cmd.current_dir(self.path("proj"))
            .env("HOME", self.path("home"))
            .output()
            .expect("spawn")
    }
}

fn detected(policy: SandboxPolicy) -> Sandbox {
    let sandbox = Sandbox::new(policy, &Probe::detect());
    assert_eq!(
        sandbox.mechanism(),
        &Mechanism::Landlock,
        "this machine has Landlock"
    );
    sandbox
}

fn check_workspace_write(world: &World, sandbox: &Sandbox) {
    let outside = world.path("outside");
    let out = world.run(sandbox, &format!("rm -rf {}", outside.display()));
    assert!(!out.status.success(), "rm outside must fail");
    assert_eq!(
        std::fs::read_to_string(outside.join("keep/file")).expect("intact"),
        "precious"
    );
    let out = world.run(sandbox, "echo evil >> \"$HOME/.bashrc\"");
    assert!(!out.status.success());
    assert_eq!(
        std::fs::read_to_string(world.path("home/.bashrc")).expect("intact"),
        "# mine"
    );
    let out = world.run(sandbox, "echo 'curl evil' > .git/hooks/pre-commit");
    assert!(!out.status.success(), "hooks stay read-only");
    assert!(!world.path("proj/.git/hooks/pre-commit").exists());
    let out = world.run(
        sandbox,
        "echo ok > src/new.rs && mkdir -p build && touch build/x && echo c > \"$HOME/.cache/c\" && echo t > /tmp/rho-sandbox-test-$$ && rm /tmp/rho-sandbox-test-$$ && echo quiet >/dev/null",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(world.path("proj/src/new.rs")).expect("written"),
        "ok\n"
    );
}

/// Planting code that runs later outside the sandbox (a project extension, project settings,
/// a git hook) fails even where the folder does not exist yet; ordinary new folders work.
fn check_protected_folders_cannot_be_created(world: &World, sandbox: &Sandbox) {
    for script in [
        "mkdir -p .rho/extensions && echo 'evil' > .rho/extensions/evil.py",
        "mkdir -p .pi && echo '{}' > .pi/settings.json",
        "mkdir -p .git/hooks && echo 'curl evil' > .git/hooks/pre-commit",
        "rmdir .rho && mkdir .rho && echo x > .rho/settings.json",
        "mv .pi .pi-old; mkdir -p .pi/extensions && touch .pi/extensions/x.ts",
    ] {
        let out = world.run(sandbox, script);
        assert!(!out.status.success(), "{script} must fail");
    }
    for planted in [
        ".rho/extensions/evil.py",
        ".pi/settings.json",
        ".git/hooks/pre-commit",
        ".rho/settings.json",
        ".pi/extensions/x.ts",
        ".pi-old",
    ] {
        assert!(
            !world.path("proj").join(planted).exists(),
            "{planted} was created"
        );
    }
    let out = world.run(
        sandbox,
        "mkdir -p build/.rho && touch build/.rho/ok .agents-ok",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn protected_folders_cannot_be_created_under_landlock() {
    let world = World::bare("landlock-missing");
    let sandbox = detected(world.policy(SandboxMode::WorkspaceWrite, NetworkAccess::On));
    check_protected_folders_cannot_be_created(&world, &sandbox);
}

#[test]
fn protected_folders_cannot_be_created_under_bubblewrap() {
    let world = World::bare("bwrap-missing");
    let sandbox = Sandbox::new(
        world.policy(SandboxMode::WorkspaceWrite, NetworkAccess::On),
        &bubblewrap_only(),
    );
    check_protected_folders_cannot_be_created(&world, &sandbox);
}

/// A machine with bubblewrap and no Landlock.
fn bubblewrap_only() -> Probe {
    let Some(bwrap) = Probe::detect().bwrap else {
        panic!("bubblewrap must be installed (.ci/run installs it)");
    };
    Probe {
        landlock_abi: None,
        bwrap: Some(bwrap),
    }
}

#[test]
fn workspace_write_confines_writes_to_the_project_under_landlock() {
    let world = World::new("landlock-ww");
    let sandbox = detected(world.policy(SandboxMode::WorkspaceWrite, NetworkAccess::On));
    check_workspace_write(&world, &sandbox);
}

#[test]
fn read_only_blocks_project_writes() {
    let world = World::new("landlock-ro");
    let sandbox = detected(world.policy(SandboxMode::ReadOnly, NetworkAccess::On));
    let out = world.run(&sandbox, "echo x > src/new.rs");
    assert!(!out.status.success());
    assert!(!world.path("proj/src/new.rs").exists());
    let out = world.run(&sandbox, "cat ../outside/keep/file");
    assert_eq!(String::from_utf8_lossy(&out.stdout), "precious");
}

/// bash's `/dev/tcp` opens a TCP connection with `socket` + `connect`.
fn connect_script(listener: &TcpListener) -> String {
    let port = listener.local_addr().expect("addr").port();
    format!("exec /bin/bash -c 'exec 3<>/dev/tcp/127.0.0.1/{port} && echo connected'")
}

#[test]
fn network_off_blocks_connections_and_on_allows_them() {
    let world = World::new("net");
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let off = detected(world.policy(SandboxMode::WorkspaceWrite, NetworkAccess::Off));
    let out = world.run(&off, &connect_script(&listener));
    assert!(!out.status.success());
    assert!(!String::from_utf8_lossy(&out.stdout).contains("connected"));
    let on = detected(world.policy(SandboxMode::WorkspaceWrite, NetworkAccess::On));
    let out = world.run(&on, &connect_script(&listener));
    assert_eq!(String::from_utf8_lossy(&out.stdout), "connected\n");
}

#[test]
fn network_off_still_allows_unix_sockets() {
    let world = World::new("unix");
    let off = detected(world.policy(SandboxMode::Off, NetworkAccess::Off));
    let out = world.run(
        &off,
        "python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"u\"); print(b.recv(1).decode())'",
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "u\n");
}

#[test]
fn without_landlock_bubblewrap_enforces_the_same_policy() {
    let world = World::new("bwrap");
    let probe = bubblewrap_only();
    let sandbox = Sandbox::new(
        world.policy(SandboxMode::WorkspaceWrite, NetworkAccess::On),
        &probe,
    );
    assert!(matches!(sandbox.mechanism(), Mechanism::Bubblewrap(_)));
    check_workspace_write(&world, &sandbox);
}

#[test]
fn without_landlock_or_bubblewrap_the_mode_is_refused() {
    let world = World::new("refused");
    let sandbox = Sandbox::new(
        world.policy(SandboxMode::WorkspaceWrite, NetworkAccess::On),
        &Probe::nothing(),
    );
    let warning = sandbox.warning().expect("a warning");
    assert!(
        warning.contains("workspace-write is not available"),
        "{warning}"
    );
    assert!(warning.contains("--sandbox off"), "{warning}");
    let err = sandbox
        .command(Path::new("/bin/sh"), &["-c".into(), "true".into()])
        .expect_err("refused");
    assert_eq!(err.to_string(), warning);
    let off = Sandbox::new(SandboxPolicy::off(), &Probe::nothing());
    assert_eq!(off.mechanism(), &Mechanism::None);
}
