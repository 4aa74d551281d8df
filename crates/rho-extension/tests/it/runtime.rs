//! The library's request loop driven in-process over pipes, playing rho's side of the
//! protocol line by line: handshake, overlapping requests, calls, cancellation, errors.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader, Write};
use std::sync::mpsc::{channel, Receiver};
use std::thread;
use std::time::Duration;

use rho_extension::{CustomMessage, DeliverAs, Error, Extension, SendOptions, Tool, ToolResult};
use serde_json::{json, Value};

/// rho's end of the pipes: write requests, read the extension's lines (bounded waits).
struct FakeRho {
    to_ext: std::io::PipeWriter,
    from_ext: Receiver<Value>,
    done: thread::JoinHandle<Result<(), Error>>,
}

impl FakeRho {
    fn start(ext: Extension, flags: Value) -> (Self, Value) {
        let (ext_in, to_ext) = std::io::pipe().expect("pipe");
        let (from_ext_raw, ext_out) = std::io::pipe().expect("pipe");
        let done = thread::spawn(move || ext.run_with(BufReader::new(ext_in), ext_out));
        let (tx, from_ext) = channel();
        thread::spawn(move || {
            for line in BufReader::new(from_ext_raw).lines() {
                let Ok(line) = line else { return };
                let v: Value = serde_json::from_str(&line).expect("the extension writes JSON");
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let mut rho = Self {
            to_ext,
            from_ext,
            done,
        };
        rho.send(
            json!({"type": "hello", "protocolVersion": 1, "cwd": "/w", "hasUI": false,
                        "flags": flags}),
        );
        let register = rho.next();
        (rho, register)
    }

    fn send(&mut self, msg: Value) {
        writeln!(self.to_ext, "{msg}").expect("extension reads");
    }

    fn next(&self) -> Value {
        self.from_ext
            .recv_timeout(Duration::from_secs(5))
            .expect("the extension answers within 5 s")
    }

    fn finish(self) -> Result<(), Error> {
        drop(self.to_ext);
        self.done.join().expect("run does not panic")
    }
}

#[test]
fn handshake_registers_and_events_answer_by_id() {
    let mut ext = Extension::new("t");
    ext.on("input", |rho, event| {
        let suffix = rho.flag("suffix").and_then(Value::as_str).unwrap_or("!");
        let text = event["text"].as_str().unwrap_or_default();
        Ok(Some(
            json!({"action": "transform", "text": format!("{text}{suffix}")}),
        ))
    });
    let (mut rho, register) = FakeRho::start(ext, json!({"suffix": "?"}));
    assert_eq!(register["type"], "register");
    assert_eq!(register["events"], json!(["input"]));
    rho.send(json!({"type": "event", "id": 7, "event": {"type": "input", "text": "hi"}}));
    assert_eq!(
        rho.next(),
        json!({"type": "result", "id": 7, "result": {"action": "transform", "text": "hi?"}})
    );
    rho.send(json!({"type": "event", "id": 8, "event": {"type": "agent_start"}}));
    assert_eq!(
        rho.next(),
        json!({"type": "result", "id": 8, "result": null})
    );
    rho.finish().expect("stdin closed ends the loop");
}

#[test]
fn a_command_waiting_on_a_call_does_not_stall_other_requests() {
    let mut ext = Extension::new("t");
    ext.command("ask", "", |rho, args| {
        let message = CustomMessage::new("q", args).with_details(json!({"n": 1}));
        rho.send_message(message, SendOptions::deliver_as(DeliverAs::NextTurn))
    });
    ext.on("turn_start", |_, _| Ok(Some(json!({"seen": true}))));
    let (mut rho, _) = FakeRho::start(ext, json!({}));
    rho.send(json!({"type": "command", "id": 1, "name": "ask", "args": "why not"}));
    let call = rho.next();
    assert_eq!(
        call,
        json!({"type": "call", "id": 1, "method": "send_message", "params": {
            "triggerTurn": false, "deliverAs": "nextTurn",
            "message": {"customType": "q", "content": "why not", "display": true,
                        "details": {"n": 1}}}})
    );
    rho.send(json!({"type": "event", "id": 2, "event": {"type": "turn_start"}}));
    assert_eq!(
        rho.next(),
        json!({"type": "result", "id": 2, "result": {"seen": true}}),
        "the event is served while the command waits"
    );
    rho.send(json!({"type": "reply", "id": 1, "result": null}));
    assert_eq!(
        rho.next(),
        json!({"type": "result", "id": 1, "result": null})
    );
    rho.finish().expect("ends");
}

#[test]
fn call_errors_and_handler_errors_become_error_results() {
    let mut ext = Extension::new("t");
    ext.command("state", "", |rho, _| {
        rho.get_state()?;
        Ok(())
    });
    ext.on("tool_call", |_, _| Err(Error::msg("not today")));
    let (mut rho, _) = FakeRho::start(ext, json!({}));
    rho.send(json!({"type": "command", "id": 1, "name": "state", "args": ""}));
    let call = rho.next();
    assert_eq!(call["method"], "get_state");
    rho.send(json!({"type": "reply", "id": call["id"], "error": "not initialized"}));
    assert_eq!(
        rho.next(),
        json!({"type": "result", "id": 1, "error": "get_state: not initialized"})
    );
    rho.send(json!({"type": "event", "id": 2, "event": {"type": "tool_call"}}));
    assert_eq!(
        rho.next(),
        json!({"type": "result", "id": 2, "error": "not today"})
    );
    rho.send(json!({"type": "command", "id": 3, "name": "missing", "args": ""}));
    assert_eq!(
        rho.next(),
        json!({"type": "result", "id": 3, "error": "no command named missing"})
    );
    rho.finish().expect("ends");
}

#[test]
fn a_tool_streams_updates_and_stops_when_cancelled() {
    let mut ext = Extension::new("t");
    ext.tool(Tool::new("wait", "waits"), |call, args| {
        call.update(&ToolResult::text(format!(
            "started {}",
            call.tool_call_id()
        )))?;
        if args["block"] == true {
            call.wait_cancelled();
            return Ok(ToolResult::error(format!(
                "cancelled: {}",
                call.is_cancelled()
            )));
        }
        Ok(ToolResult::text("quick"))
    });
    let (mut rho, register) = FakeRho::start(ext, json!({}));
    assert_eq!(register["tools"][0]["label"], "wait");
    rho.send(
        json!({"type": "tool", "id": 4, "name": "wait", "toolCallId": "c4",
                    "args": {"block": true}}),
    );
    assert_eq!(
        rho.next(),
        json!({"type": "tool_update", "id": 4,
               "partial": {"content": [{"type": "text", "text": "started c4"}]}})
    );
    rho.send(json!({"type": "tool", "id": 5, "name": "wait", "toolCallId": "c5", "args": {}}));
    let mut quick = [rho.next(), rho.next()];
    quick.sort_by_key(|v| v["type"].as_str().map(str::to_string));
    assert_eq!(quick[0]["type"], "result");
    assert_eq!(quick[0]["result"]["content"][0]["text"], "quick");
    rho.send(json!({"type": "cancel", "id": 4}));
    assert_eq!(
        rho.next(),
        json!({"type": "result", "id": 4, "result": {
            "content": [{"type": "text", "text": "cancelled: true"}], "isError": true}})
    );
    rho.finish().expect("ends");
}

#[test]
fn a_first_line_that_is_not_hello_fails_the_run() {
    let ext = Extension::new("t");
    let input = b"{\"type\":\"event\",\"id\":1,\"event\":{}}\n".as_slice();
    let err = ext.run_with(input, Vec::new()).expect_err("not a hello");
    assert!(err.to_string().contains("expected hello first"), "{err}");
    let empty = Extension::new("t").run_with(b"".as_slice(), Vec::new());
    assert!(empty.is_ok(), "rho closing before hello is a clean end");
}
