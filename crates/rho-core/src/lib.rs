//! rho's session core: the pi-compatible session store (JSONL files, the entry tree, LLM context
//! rebuilding) that the interactive, print and RPC modes share.

pub mod session;
