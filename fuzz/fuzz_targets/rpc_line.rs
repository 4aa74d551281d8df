//! The RPC input path: bytes through the JSONL framing, each record through the command
//! parser. Nothing may panic; every failure is a `Failed to parse command`-style message.
#![no_main]

use libfuzzer_sys::fuzz_target;

#[allow(dead_code)]
#[path = "../../crates/rho-cli/src/rpc/framing.rs"]
mod framing;

use rho_protocol::rpc::command;

fuzz_target!(|data: &[u8]| {
    let mut splitter = framing::LineSplitter::new(4096);
    let mut frames = Vec::new();
    // Split the input in two chunks so records that straddle reads are exercised too.
    let cut = data.first().map_or(0, |&b| b as usize % (data.len() + 1));
    splitter.push(&data[..cut], &mut frames);
    splitter.push(&data[cut..], &mut frames);
    frames.extend(splitter.finish());
    for frame in frames {
        if let framing::Frame::Line(line) = frame {
            if let Err(failure) = command::parse_line(&line) {
                assert!(!failure.error.is_empty());
                assert!(!failure.command.is_empty());
            }
        }
    }
});
