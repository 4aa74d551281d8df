//! What every part of the screen reads and none owns alone: the session, the flags and paths
//! the binary resolved, the model switcher and the keys in effect. The top-level holds it and
//! lends it to the part an input or a message goes to.

use std::sync::Arc;

use rho_core::agent_session::{AgentSession, ModelControl};
use rho_tui::Keymap;

use crate::options::InteractiveOptions;

/// The session and what was resolved for it.
pub struct Shared {
    /// The session.
    pub session: AgentSession,
    /// Model and thinking-level switching, with the `--models` scope Ctrl+P cycles through.
    pub models: ModelControl,
    /// What the binary resolved for this mode (flags, the agent dir) and its services.
    pub options: InteractiveOptions,
    /// What keys do (pi's defaults, keybindings.json applied).
    pub keymap: Arc<Keymap>,
}

impl Shared {
    /// The session with the options the binary resolved; pi's default keys until
    /// [`Shared::load_keybindings`].
    pub fn new(session: AgentSession, options: InteractiveOptions) -> Self {
        Self {
            models: ModelControl::new(session.clone(), options.scoped_models.clone()),
            session,
            options,
            keymap: Default::default(),
        }
    }

    /// Whether the agent, a compaction or a retry is running.
    pub fn is_busy(&self) -> bool {
        self.session.is_streaming() || self.session.is_compacting()
    }

    /// Reads keybindings.json from the agent dir (at start and on /reload); returns a warning
    /// per problem in it.
    pub fn load_keybindings(&mut self) -> Vec<String> {
        let (keymap, warnings) = crate::keybindings::load(&self.options.agent_dir);
        self.keymap = Arc::new(keymap);
        warnings
    }
}
