//! `bash(...)` rules against a shell line. A deny or ask rule applies when its pattern
//! could match any simple command of the line (by its words, or by its program's file name,
//! `/bin/rm` as `rm`), or the whole line as written; a command with computed parts
//! (`$X`, `$(...)`) could be anything there, and a line the grammar cannot parse is one such
//! command, so it gets the strictest rule that could match, never an allow. An allow rule
//! beats an ask for the whole tool only when every command is literal and allowed (itself or
//! through the wrapper that runs it).

use super::pattern::{could_match, matches};
use super::rules::{Decision, Permissions, Rule};
use super::shell_line::{simple_commands, SimpleCommand};

/// The decision for running `line` with the bash tool.
pub(super) fn decide(p: &Permissions, line: &str) -> Decision {
    // The line is parsed only when a bash rule with a pattern could need its commands.
    let needed = [&p.allow, &p.ask, &p.deny]
        .iter()
        .any(|rules| Permissions::naming(rules, "bash").any(|r| r.pattern().is_some()));
    let commands = if needed {
        simple_commands(line)
    } else {
        Vec::new()
    };
    let first = |rules: &[Rule]| {
        Permissions::naming(rules, "bash").find_map(|rule| {
            let matched = match rule.pattern() {
                None => Some(None),
                Some(pattern) if matches(pattern, line, false) => Some(None),
                Some(pattern) => commands
                    .iter()
                    .find(|c| could_match_command(pattern, c))
                    .map(|c| Some(c.display())),
            };
            matched.map(|command| (rule.clone(), command))
        })
    };
    let deny = first(&p.deny);
    let ask = if deny.is_none() { first(&p.ask) } else { None };
    let command = deny.as_ref().or(ask.as_ref()).and_then(|(_, c)| c.clone());
    let allows: Vec<&Rule> = Permissions::naming(&p.allow, "bash")
        .filter(|r| r.pattern().is_some())
        .collect();
    let narrower_allow = || whole_line_allow(&allows, line, &commands);
    p.judge(
        "bash",
        deny.map(|(r, _)| r),
        ask.map(|(r, _)| r),
        narrower_allow,
        command,
    )
}

fn could_match_command(pattern: &str, c: &SimpleCommand) -> bool {
    could_match(pattern, &c.text)
        || c.by_basename()
            .is_some_and(|b| could_match(pattern, &b.text))
}

/// The allow rule that covers every command of the line, if each is allowed.
fn whole_line_allow(allows: &[&Rule], line: &str, commands: &[SimpleCommand]) -> Option<Rule> {
    let rule_for = |text: &str| {
        allows
            .iter()
            .find(|r| r.pattern().is_some_and(|p| matches(p, text, false)))
            .map(|r| (*r).clone())
    };
    if commands.is_empty() {
        return rule_for(line);
    }
    let allowed: Vec<Option<Rule>> =
        commands
            .iter()
            .enumerate()
            .fold(Vec::new(), |mut done, (i, c)| {
                let own = c.is_literal().then(|| rule_for(&c.text)).flatten();
                let through_wrapper = c.via.filter(|&w| w < i).and_then(|w| done[w].clone());
                done.push(own.or(through_wrapper));
                done
            });
    let all: Option<Vec<Rule>> = allowed.into_iter().collect();
    all.and_then(|rules| rules.into_iter().next())
}
