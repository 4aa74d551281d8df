//! A minimal rho extension process in Rust (docs/extensions.md): it registers for `input`
//! and answers every input with a transform that appends ` [echo]` (text starting with `!` is
//! left alone). Run by rho as a child process; not meant to be started by hand.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{self, BufRead, Write};

use serde_json::{json, Value};

fn main() -> io::Result<()> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let mut out = io::stdout().lock();
    let mut line = String::new();
    input.read_line(&mut line)?;
    let hello: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
    if hello["type"] != "hello" {
        eprintln!("ext_echo: expected hello, got {line:?}");
        std::process::exit(2);
    }
    let register = json!({"type": "register", "name": "echo", "events": ["input"]});
    writeln!(out, "{register}")?;
    out.flush()?;
    loop {
        line.clear();
        if input.read_line(&mut line)? == 0 {
            return Ok(());
        }
        let Ok(msg) = serde_json::from_str::<Value>(&line) else {
            eprintln!("ext_echo: ignoring unparsable line");
            continue;
        };
        if msg["type"] != "event" {
            continue;
        }
        let text = msg["event"]["text"].as_str().unwrap_or_default();
        let result = if text.starts_with('!') {
            json!({"action": "continue"})
        } else {
            json!({"action": "transform", "text": format!("{text} [echo]")})
        };
        writeln!(
            out,
            "{}",
            json!({"type": "result", "id": msg["id"], "result": result})
        )?;
        out.flush()?;
    }
}
