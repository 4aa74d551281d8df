//! rho-agent's integration tests as one binary: each module is a former `tests/<name>.rs`,
//! `common` the helpers they share.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

mod ac_queues;
mod ac_run;
mod ac_tools;
mod event_json;
mod http_loop;
mod scenarios;
mod system_messages;
