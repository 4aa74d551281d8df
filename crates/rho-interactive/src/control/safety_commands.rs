//! `/permissions` (the rules, mode and sandbox in force) and `/trust` (save this folder's
//! project-trust decision to `<agent dir>/trust.json`).

use rho_core::permissions::Rule;
use rho_core::trust::TrustStore;

use crate::screen::Screen;
use crate::shared::Shared;

fn rules_line(kind: &str, rules: &[Rule]) -> String {
    let list: Vec<&str> = rules.iter().map(|r| r.text.as_str()).collect();
    if list.is_empty() {
        format!("{kind}: (none)")
    } else {
        format!("{kind}: {}", list.join(", "))
    }
}

/// /permissions: what may run and where it may write; `/permissions check <tool>
/// <argument>` tells what the rules decide for one call and why.
pub(super) fn show_permissions(args: &str, shared: &Shared, screen: &mut Screen) {
    if let Some(call) = args.strip_prefix("check") {
        return check_permission(call.trim(), shared, screen);
    }
    let p = shared.session.permissions().clone();
    let mut lines = vec![format!("Permission mode: {}", p.mode)];
    lines.push(rules_line("allow", &p.allow));
    lines.push(rules_line("ask", &p.ask));
    lines.push(rules_line("deny", &p.deny));
    match shared.session.sandbox() {
        Some(sandbox) => {
            lines.push(format!("Sandbox: {}", sandbox.describe()));
            let roots: Vec<String> = sandbox
                .policy()
                .writable_roots
                .iter()
                .map(|r| r.display().to_string())
                .collect();
            if !roots.is_empty() {
                lines.push(format!("Writable: {}", roots.join(", ")));
            }
        }
        None => lines.push("Sandbox: off".into()),
    }
    screen.notice(lines.join("\n"), false);
}

fn check_permission(call: &str, shared: &Shared, screen: &mut Screen) {
    let Some((tool, argument)) = call.split_once(char::is_whitespace) else {
        return screen.notice("Usage: /permissions check <tool> <argument>".into(), true);
    };
    let permissions = shared.session.permissions().clone();
    let cwd = shared.session.cwd().to_path_buf();
    match rho_core::permissions::check::check(&permissions, &cwd, tool, argument.trim()) {
        Ok(decision) => {
            let lines = rho_core::permissions::check::explain(&decision);
            screen.notice(lines.join("\n"), false)
        }
        Err(e) => screen.notice(e.to_string(), true),
    }
}

/// /trust [no|forget]: saves the decision for the current folder.
pub(super) fn trust(arg: Option<&str>, shared: &Shared, screen: &mut Screen) {
    let decision = match arg {
        None | Some("yes") => Some(true),
        Some("no") => Some(false),
        Some("forget") => None,
        Some(_) => return screen.notice("Usage: /trust [yes|no|forget]".into(), true),
    };
    let cwd = shared.session.cwd().to_path_buf();
    let store = TrustStore::new(&shared.options.agent_dir);
    match store.set(&cwd, decision) {
        Ok(()) => {
            let what = match decision {
                Some(true) => "Trusted",
                Some(false) => "Not trusting",
                None => "Forgot the trust decision for",
            };
            screen.notice(
                format!(
                    "{what} {}. Project resources follow this after /reload or the next start.",
                    cwd.display()
                ),
                false,
            );
        }
        Err(e) => screen.notice(e.to_string(), true),
    }
}
