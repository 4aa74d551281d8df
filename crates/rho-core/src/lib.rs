//! rho's session core: the AgentSession prompting system and everything it stands on
//! (session files, compaction, skills, prompt templates, context files, settings, pi packages).

pub mod agent_session;
pub mod packages;
pub mod permissions;
pub mod resources;
pub mod settings;
mod settings_edit;
pub mod system_prompt;
pub mod trust;
