//! The `rho` binary: parses flags and dispatches to a run mode.

mod args;

use clap::Parser;

fn main() -> anyhow::Result<()> {
    let args = args::Args::parse();
    anyhow::bail!(
        "rho {}: the {} mode is not available in this build yet",
        env!("CARGO_PKG_VERSION"),
        args.mode.as_deref().unwrap_or("interactive")
    )
}
