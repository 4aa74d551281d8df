//! Generated session files in pi's format (version 3): user → assistant (text + a tool call)
//! → tool result, repeated; about 1.2 kB per entry.

use std::io::{BufWriter, Write};
use std::path::Path;

use serde_json::json;

fn filler(i: usize, len: usize) -> String {
    let words = [
        "alpha ", "beta ", "gamma ", "delta ", "epsilon ", "zeta ", "eta ",
    ];
    let mut s = format!("entry {i}: ");
    while s.len() < len {
        s.push_str(words[(s.len() + i) % words.len()]);
    }
    s
}

fn message(i: usize) -> serde_json::Value {
    let ts = 1_740_820_502_481_i64 + i as i64;
    match i % 3 {
        0 => {
            json!({"role": "user", "content": [{"type": "text", "text": filler(i, 900)}], "timestamp": ts})
        }
        1 => json!({
            "role": "assistant",
            "content": [
                {"type": "text", "text": filler(i, 700)},
                {"type": "toolCall", "id": format!("call_{i:08}"), "name": "read",
                 "arguments": {"path": format!("src/file_{i}.rs")}}
            ],
            "api": "openai-completions", "provider": "mock", "model": "mock-model",
            "usage": {"input": 1200, "output": 300, "cacheRead": 0, "cacheWrite": 0,
                      "totalTokens": 1500,
                      "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
            "stopReason": "toolUse",
            "timestamp": ts
        }),
        _ => json!({
            "role": "toolResult", "toolCallId": format!("call_{:08}", i - 1), "toolName": "read",
            "content": [{"type": "text", "text": filler(i, 900)}], "isError": false, "timestamp": ts
        }),
    }
}

/// Writes a session of `entries` message entries for project `cwd`; returns its size in bytes.
pub fn generate(path: &Path, cwd: &Path, entries: usize) -> u64 {
    let mut out = BufWriter::new(std::fs::File::create(path).expect("create session file"));
    let header = json!({
        "type": "session", "version": 3, "id": "0195508c-6f10-7a22-9d3e-2c51a0b4e901",
        "timestamp": "2025-03-01T09:15:00.120Z", "cwd": cwd.to_string_lossy()
    });
    writeln!(out, "{header}").expect("write");
    for i in 0..entries {
        let parent = i.checked_sub(1).map(|p| format!("{p:08x}"));
        let entry = json!({
            "type": "message", "id": format!("{i:08x}"), "parentId": parent,
            "timestamp": "2025-03-01T09:15:02.481Z", "message": message(i)
        });
        writeln!(out, "{entry}").expect("write");
    }
    out.flush().expect("flush");
    std::fs::metadata(path).expect("stat").len()
}
