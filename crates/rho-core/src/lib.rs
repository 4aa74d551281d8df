//! rho's agent session: the AgentSession prompting system of the seed diagrams, and what it
//! reads to run (settings, skills, prompt templates, context files, the system prompt,
//! permission rules, project trust). What it stands on lives below it: the session store
//! (`rho-session`), compaction (`rho-compaction`) and the extension host
//! (`rho-extension-host`).

pub mod agent_session;
pub mod auth_store;
pub mod permissions;
pub mod resources;
pub mod settings;
mod settings_edit;
pub mod system_prompt;
pub mod trust;
