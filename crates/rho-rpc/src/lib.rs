//! rho's non-interactive front-ends: RPC mode (`--mode rpc`: JSONL commands on stdin,
//! responses and events on stdout), JSON mode (`--mode json`: the events of one run) and
//! print mode (`-p`: the final text). Each talks to the agent session only; the binary
//! resolves flags and paths once and hands over what a mode needs ([`RpcOptions`]).

mod event_out;
pub mod first_run;
pub mod print_mode;
mod rpc;
mod terminal_text;

pub use rpc::{run, RpcOptions};
