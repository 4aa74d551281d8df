//! rho's session core: what sits between the agent loop and the session file.

pub mod compaction;
