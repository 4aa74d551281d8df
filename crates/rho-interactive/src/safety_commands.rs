//! `/permissions` (the rules, mode and sandbox in force) and `/trust` (save this folder's
//! project-trust decision to `<agent dir>/trust.json`).

use rho_core::permissions::Rule;
use rho_core::trust::TrustStore;

use super::app::App;

fn rules_line(kind: &str, rules: &[Rule]) -> String {
    let list: Vec<&str> = rules.iter().map(|r| r.text.as_str()).collect();
    if list.is_empty() {
        format!("{kind}: (none)")
    } else {
        format!("{kind}: {}", list.join(", "))
    }
}

impl App {
    /// /permissions: what may run and where it may write; `/permissions check <tool>
    /// <argument>` tells what the rules decide for one call and why.
    pub(super) fn show_permissions(&mut self, args: &str) {
        if let Some(call) = args.strip_prefix("check") {
            return self.check_permission(call.trim());
        }
        let p = self.session.permissions().clone();
        let mut lines = vec![format!("Permission mode: {}", p.mode)];
        lines.push(rules_line("allow", &p.allow));
        lines.push(rules_line("ask", &p.ask));
        lines.push(rules_line("deny", &p.deny));
        match self.session.sandbox() {
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
        self.notice(lines.join("\n"), false);
    }

    fn check_permission(&mut self, call: &str) {
        let Some((tool, argument)) = call.split_once(char::is_whitespace) else {
            return self.notice("Usage: /permissions check <tool> <argument>".into(), true);
        };
        let permissions = self.session.permissions().clone();
        let cwd = self.session.cwd().to_path_buf();
        match rho_core::permissions::check::check(&permissions, &cwd, tool, argument.trim()) {
            Ok(decision) => {
                let lines = rho_core::permissions::check::explain(&decision);
                self.notice(lines.join("\n"), false)
            }
            Err(e) => self.notice(e.to_string(), true),
        }
    }

    /// /trust [no|forget]: saves the decision for the current folder.
    pub(super) fn trust(&mut self, arg: Option<&str>) {
        let decision = match arg {
            None | Some("yes") => Some(true),
            Some("no") => Some(false),
            Some("forget") => None,
            Some(_) => return self.notice("Usage: /trust [yes|no|forget]".into(), true),
        };
        let cwd = self.session.cwd().to_path_buf();
        let store = TrustStore::new(&self.options.agent_dir);
        match store.set(&cwd, decision) {
            Ok(()) => {
                let what = match decision {
                    Some(true) => "Trusted",
                    Some(false) => "Not trusting",
                    None => "Forgot the trust decision for",
                };
                self.notice(
                    format!(
                        "{what} {}. Project resources follow this after /reload or the next start.",
                        cwd.display()
                    ),
                    false,
                );
            }
            Err(e) => self.notice(e.to_string(), true),
        }
    }
}
