//! AgentSession tests
