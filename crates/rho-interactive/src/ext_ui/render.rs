//! Lines extensions draw themselves (pi-tui components rendered by the pi host): tool calls and
//! results, custom messages, and components that take a place on the screen (footer, header,
//! widgets, a component in place of the editor that takes the keys). Drawing is asked for in
//! the background and comes back as a [`Drawn`]; until it does, rho's own drawing (or the
//! previous lines) stay. Nothing is asked unless an extension declared a renderer or
//! announced a component.

use std::collections::HashMap;
use std::sync::Arc;

use rho_core::agent_session::AgentSession;
use rho_extension_host::render::{ComponentSlot, RenderTarget, Rendered};
use rho_extension_host::ExtensionRenderer;
use rho_tui::components::ToolStatus;
use rho_tui::input::{KeyCode, KeyModifiers};
use rho_tui::{Input, Transcript, View};
use serde_json::json;

use crate::outbox::Outbox;

/// A drawing that came back.
pub enum Drawn {
    /// A transcript component (`None`: rho draws it).
    View {
        /// The transcript it was asked for (see [`ExtRender::epoch`]).
        epoch: u64,
        /// The component's index.
        index: usize,
        /// Its revision when asked.
        revision: u64,
        /// The lines.
        rendered: Option<Rendered>,
    },
    /// A placed component's lines at `width`.
    Component {
        /// Its key.
        key: String,
        /// The width drawn for.
        width: usize,
        /// The lines (`None`: nothing to show).
        lines: Option<Vec<String>>,
        /// The renderer that drew it (keys and later drawings go there only).
        owner: Option<Arc<dyn ExtensionRenderer>>,
    },
    /// The component holding the keyboard took a key: it is drawn again.
    KeyTaken(String),
}

/// What was asked and what came back.
#[derive(Default)]
pub struct ExtRender {
    /// Changes when the transcript is rebuilt: answers for the old one are dropped.
    epoch: u64,
    /// Per transcript index: the revision and width last asked for.
    asked: HashMap<usize, (u64, usize)>,
    /// Placed components, in the order they were placed.
    components: Vec<(String, ComponentSlot)>,
    /// Per component: the width asked for.
    asked_components: HashMap<String, usize>,
    /// Per component: its last lines.
    lines: HashMap<String, Vec<String>>,
    /// Per component: the renderer that draws it.
    owners: HashMap<String, Arc<dyn ExtensionRenderer>>,
}

impl ExtRender {
    /// The transcript was rebuilt: everything is asked for again.
    pub fn restart(&mut self) {
        self.epoch += 1;
        self.asked.clear();
    }

    /// Component `key` took `slot`, or went away (`None`).
    pub fn place(&mut self, key: String, slot: Option<ComponentSlot>) {
        self.components.retain(|(k, _)| *k != key);
        self.asked_components.remove(&key);
        match slot {
            Some(slot) => self.components.push((key, slot)),
            None => {
                self.lines.remove(&key);
                self.owners.remove(&key);
            }
        }
    }

    /// Component `key` (every one when `None`) is drawn again.
    pub fn invalidate(&mut self, key: Option<&str>) {
        match key {
            Some(k) => {
                self.asked_components.remove(k);
            }
            None => self.asked_components.clear(),
        }
    }

    /// The lines of the latest component in `slot` (the footer, the header, the editor's).
    pub fn latest(&self, slot: ComponentSlot) -> Option<Vec<String>> {
        let (key, _) = self.components.iter().rev().find(|(_, s)| *s == slot)?;
        Some(self.lines.get(key).cloned().unwrap_or_default())
    }

    /// The lines of every component in `slot` (widgets), in placing order.
    pub fn all(&self, slot: ComponentSlot) -> Vec<String> {
        self.components
            .iter()
            .filter(|(_, s)| *s == slot)
            .flat_map(|(k, _)| self.lines.get(k).cloned().unwrap_or_default())
            .collect()
    }

    /// The component holding the keys, if one does.
    pub fn focused(&self) -> Option<String> {
        let (key, _) = self
            .components
            .iter()
            .rev()
            .find(|(_, s)| *s == ComponentSlot::Editor)?;
        Some(key.clone())
    }
}

/// What to ask for a transcript component, with its width; `None` when no renderer wants it.
fn target_of(
    view: &View,
    width: usize,
    renderers: &[Arc<dyn ExtensionRenderer>],
) -> Option<(Arc<dyn ExtensionRenderer>, RenderTarget, usize)> {
    match view {
        View::Tool(t) => {
            let r = renderers
                .iter()
                .find(|r| r.spec().tools.contains(&t.name))?;
            let finished = t.status != ToolStatus::Pending;
            let result = (finished || !t.output.is_empty()).then(|| {
                json!({
                    "content": [{"type": "text", "text": t.output}],
                    "details": t.details,
                    "isError": t.status == ToolStatus::Error,
                })
            });
            let target = RenderTarget::Tool {
                tool_name: t.name.clone(),
                tool_call_id: t.id.clone(),
                args: t.args.clone(),
                result,
                is_partial: !finished,
                expanded: t.expanded,
            };
            Some((r.clone(), target, width.saturating_sub(2).max(1)))
        }
        View::Custom(c) => {
            let r = renderers
                .iter()
                .find(|r| r.spec().messages.contains(&c.custom_type))?;
            let target = RenderTarget::Message {
                custom_type: c.custom_type.clone(),
                content: json!(c.text),
                details: c.details.clone(),
                expanded: c.expanded,
            };
            Some((r.clone(), target, width))
        }
        _ => None,
    }
}

fn columns(width: usize) -> u16 {
    u16::try_from(width).unwrap_or(u16::MAX)
}

/// The renderers of the loaded extensions.
fn renderers(session: &AgentSession) -> Vec<Arc<dyn ExtensionRenderer>> {
    session
        .extensions()
        .extensions()
        .iter()
        .filter_map(|e| e.renderer().cloned())
        .collect()
}

impl ExtRender {
    /// Asks for every drawing of `transcript` and of the placed components that is missing
    /// or stale at `width`; each comes back through `tx`.
    pub fn ask(
        &mut self,
        width: usize,
        session: &AgentSession,
        transcript: &mut Transcript,
        tx: &Outbox<Drawn>,
    ) {
        let renderers = renderers(session);
        let draws_transcript = renderers.iter().any(|r| r.spec().draws_transcript());
        if !draws_transcript && self.components.is_empty() {
            return;
        }
        let mut wanted = Vec::new();
        for (index, revision, view) in transcript.revisions().filter(|_| draws_transcript) {
            let Some((r, target, w)) = target_of(view, width, &renderers) else {
                continue;
            };
            if self.asked.get(&index) != Some(&(revision, w)) {
                wanted.push((index, revision, r, target, w));
            }
        }
        let epoch = self.epoch;
        for (index, revision, r, target, w) in wanted {
            self.asked.insert(index, (revision, w));
            let tx = tx.clone();
            tokio::spawn(async move {
                let rendered = r.render(target, columns(w)).await.ok().flatten();
                let drawn = Drawn::View {
                    epoch,
                    index,
                    revision,
                    rendered,
                };
                tx.send(drawn);
            });
        }
        let stale: Vec<String> = self
            .components
            .iter()
            .filter(|(k, _)| self.asked_components.get(k) != Some(&width))
            .map(|(k, _)| k.clone())
            .collect();
        for key in stale {
            self.asked_components.insert(key.clone(), width);
            let candidates = match self.owners.get(&key) {
                Some(owner) => vec![owner.clone()],
                None => renderers
                    .iter()
                    .filter(|r| r.spec().components)
                    .cloned()
                    .collect(),
            };
            let tx = tx.clone();
            tokio::spawn(async move {
                let (mut lines, mut owner) = (None, None);
                for r in candidates {
                    let target = RenderTarget::Component { key: key.clone() };
                    if let Ok(Some(drawn)) = r.render(target, columns(width)).await {
                        (lines, owner) = (drawn.lines, Some(r));
                        break;
                    }
                }
                let drawn = Drawn::Component {
                    key,
                    width,
                    lines,
                    owner,
                };
                tx.send(drawn);
            });
        }
    }

    /// Puts a drawing that came back in place (a transcript component's in `transcript`).
    pub fn drawn(&mut self, drawn: Drawn, transcript: &mut Transcript) {
        match drawn {
            Drawn::View {
                epoch,
                index,
                revision,
                rendered,
            } if epoch == self.epoch => {
                let rendered = rendered.unwrap_or_default();
                transcript.set_drawn(index, revision, |view| match view {
                    View::Tool(t) => {
                        t.custom_call = rendered.call;
                        t.custom_result = rendered.result;
                    }
                    View::Custom(c) => c.custom = rendered.lines,
                    _ => {}
                });
            }
            Drawn::View { .. } => {}
            Drawn::Component {
                key,
                width,
                lines,
                owner,
            } => {
                let placed = self.components.iter().any(|(k, _)| *k == key);
                if !placed || self.asked_components.get(&key) != Some(&width) {
                    return;
                }
                match (owner, lines) {
                    (Some(owner), Some(lines)) => {
                        self.owners.insert(key.clone(), owner);
                        self.lines.insert(key, lines);
                    }
                    // Nobody draws it any more (its host restarted): rho's own part returns.
                    _ => self.place(key, None),
                }
            }
            Drawn::KeyTaken(key) => self.invalidate(Some(&key)),
        }
    }

    /// Sends a key to component `key`, which holds the keyboard; it is drawn again after.
    pub fn component_key(&self, key: String, input: &Input, tx: &Outbox<Drawn>) {
        let Some(data) = terminal_bytes(input) else {
            return;
        };
        let Some(owner) = self.owners.get(&key).cloned() else {
            return;
        };
        let tx = tx.clone();
        tokio::spawn(async move {
            let _ = owner.input(key.clone(), data).await;
            tx.send(Drawn::KeyTaken(key));
        });
    }
}

/// A key as a terminal sends it (what pi-tui's `matchesKey` reads): the legacy bytes where they
/// say it all, else the kitty protocol's `CSI … u` / `CSI 1 ; m X` forms (Shift+Enter,
/// Ctrl+arrows, Ctrl+Shift+letters), which pi-tui reads whatever the terminal negotiated.
fn terminal_bytes(input: &Input) -> Option<String> {
    let key = match input {
        Input::Paste(text) => return Some(text.clone()),
        Input::Resize(..) | Input::Wheel { .. } => return None,
        Input::Key(key) => key,
    };
    let mods = key.modifiers - KeyModifiers::SHIFT;
    let shift = key.modifiers.contains(KeyModifiers::SHIFT);
    let modified = !mods.is_empty() || (shift && !matches!(key.code, KeyCode::Char(_)));
    if modified && key.code != KeyCode::BackTab {
        if let Some(seq) = modified_key(key.code, key.modifiers) {
            return Some(seq);
        }
    }
    let fixed = match key.code {
        KeyCode::Enter => "\r",
        KeyCode::Esc => "\x1b",
        KeyCode::Tab => "\t",
        KeyCode::BackTab => "\x1b[Z",
        KeyCode::Backspace => "\x7f",
        KeyCode::Up => "\x1b[A",
        KeyCode::Down => "\x1b[B",
        KeyCode::Right => "\x1b[C",
        KeyCode::Left => "\x1b[D",
        KeyCode::Home => "\x1b[H",
        KeyCode::End => "\x1b[F",
        KeyCode::Delete => "\x1b[3~",
        KeyCode::PageUp => "\x1b[5~",
        KeyCode::PageDown => "\x1b[6~",
        KeyCode::Char(c) if key.modifiers.contains(KeyModifiers::CONTROL) => {
            let code = (c.to_ascii_lowercase() as u32) & 0x1f;
            return char::from_u32(code).map(String::from);
        }
        KeyCode::Char(c) if key.modifiers.contains(KeyModifiers::ALT) => {
            return Some(format!("\x1b{c}"));
        }
        KeyCode::Char(c) => return Some(c.to_string()),
        _ => return None,
    };
    Some(fixed.to_string())
}

/// The kitty protocol's encoding of a key with modifiers legacy bytes cannot carry; `None`
/// for keys legacy bytes say well enough (Ctrl+letter, Alt+letter).
fn modified_key(code: KeyCode, mods: KeyModifiers) -> Option<String> {
    let mut m = 1;
    for (bit, flag) in [
        (1, KeyModifiers::SHIFT),
        (2, KeyModifiers::ALT),
        (4, KeyModifiers::CONTROL),
        (8, KeyModifiers::SUPER),
    ] {
        if mods.contains(flag) {
            m += bit;
        }
    }
    let csi_u = |cp: u32| Some(format!("\x1b[{cp};{m}u"));
    match code {
        KeyCode::Enter => csi_u(13),
        KeyCode::Tab => csi_u(9),
        KeyCode::Backspace => csi_u(127),
        KeyCode::Esc => csi_u(27),
        KeyCode::Up => Some(format!("\x1b[1;{m}A")),
        KeyCode::Down => Some(format!("\x1b[1;{m}B")),
        KeyCode::Right => Some(format!("\x1b[1;{m}C")),
        KeyCode::Left => Some(format!("\x1b[1;{m}D")),
        KeyCode::Home => Some(format!("\x1b[1;{m}H")),
        KeyCode::End => Some(format!("\x1b[1;{m}F")),
        KeyCode::Delete => Some(format!("\x1b[3;{m}~")),
        KeyCode::PageUp => Some(format!("\x1b[5;{m}~")),
        KeyCode::PageDown => Some(format!("\x1b[6;{m}~")),
        KeyCode::Char(c) if m > 5 || mods.contains(KeyModifiers::SUPER) => {
            csi_u(u32::from(c.to_ascii_lowercase()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_reach_components_as_terminal_bytes() {
        assert_eq!(
            terminal_bytes(&Input::key(KeyCode::Esc)).as_deref(),
            Some("\x1b")
        );
        assert_eq!(terminal_bytes(&Input::ctrl('c')).as_deref(), Some("\x03"));
        assert_eq!(terminal_bytes(&Input::char('x')).as_deref(), Some("x"));
        assert_eq!(
            terminal_bytes(&Input::key(KeyCode::Up)).as_deref(),
            Some("\x1b[A")
        );
        assert_eq!(terminal_bytes(&Input::Resize(1, 2)), None);
        let shift_enter = Input::with_mods(KeyCode::Enter, KeyModifiers::SHIFT);
        assert_eq!(terminal_bytes(&shift_enter).as_deref(), Some("\x1b[13;2u"));
        let ctrl_up = Input::with_mods(KeyCode::Up, KeyModifiers::CONTROL);
        assert_eq!(terminal_bytes(&ctrl_up).as_deref(), Some("\x1b[1;5A"));
        let ctrl_shift_p = Input::with_mods(
            KeyCode::Char('P'),
            KeyModifiers::CONTROL | KeyModifiers::SHIFT,
        );
        assert_eq!(
            terminal_bytes(&ctrl_shift_p).as_deref(),
            Some("\x1b[112;6u")
        );
        let shift_a = Input::with_mods(KeyCode::Char('A'), KeyModifiers::SHIFT);
        assert_eq!(terminal_bytes(&shift_a).as_deref(), Some("A"));
    }

    #[test]
    fn the_latest_component_of_a_slot_shows_and_leaves() {
        let mut r = ExtRender::default();
        r.place("a".into(), Some(ComponentSlot::Editor));
        r.lines.insert("a".into(), vec!["todos".into()]);
        assert_eq!(r.focused().as_deref(), Some("a"));
        assert_eq!(r.latest(ComponentSlot::Editor), Some(vec!["todos".into()]));
        r.place("a".into(), None);
        assert_eq!(r.focused(), None);
        assert_eq!(r.latest(ComponentSlot::Editor), None);
    }
}
