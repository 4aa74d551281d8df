//! The record of the calls a tool made through [`crate::nested::NestedCalls`], kept as
//! `nestedCalls` on the tool result message of the call the model made (pi 1.x's
//! `NestedCallRecorder`): `{ calls: [{ id, name, status, arguments | argumentsBytes,
//! durationMs, error? }], complete }`. Calls made by nested tools join the same record. The
//! record is bounded so a script looping over a tool cannot bloat the session file: arguments
//! over the per-call or total size keep only their size, calls past the count are dropped,
//! and either marks the record incomplete.

use std::sync::Mutex;
use std::time::Instant;

use serde_json::{json, Value};

/// At most this many calls are recorded.
pub const MAX_CALLS: usize = 256;
/// Arguments larger than this (JSON bytes) keep only their size.
pub const MAX_ARGUMENT_BYTES_PER_CALL: usize = 8 * 1024;
/// Arguments kept across all calls, in JSON bytes.
pub const MAX_ARGUMENT_BYTES_TOTAL: usize = 32 * 1024;
/// A failed call's error text is cut to this many characters.
pub const MAX_ERROR_CHARS: usize = 500;

/// The calls of one model-issued tool call. Shared by every level of nesting.
#[derive(Default)]
pub(crate) struct Recorder {
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    calls: Vec<Record>,
    argument_bytes: usize,
    dropped: bool,
}

struct Record {
    entry: Value,
    started: Instant,
    finished: bool,
}

/// Where a started call sits in the record; `None` when it was dropped.
pub(crate) type Slot = Option<usize>;

impl Recorder {
    /// Records a call as it starts.
    pub fn start(&self, id: &str, name: &str, args: &Value) -> Slot {
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.calls.len() >= MAX_CALLS {
            s.dropped = true;
            return None;
        }
        let mut entry = json!({"id": id, "name": name, "status": "unfinished"});
        let bytes = args.to_string().len();
        if bytes > MAX_ARGUMENT_BYTES_PER_CALL
            || s.argument_bytes + bytes > MAX_ARGUMENT_BYTES_TOTAL
        {
            entry["argumentsBytes"] = json!(bytes);
            s.dropped = true;
        } else {
            entry["arguments"] = args.clone();
            s.argument_bytes += bytes;
        }
        s.calls.push(Record {
            entry,
            started: Instant::now(),
            finished: false,
        });
        Some(s.calls.len() - 1)
    }

    /// Records how a call ended; `error` is its text when it failed.
    pub fn finish(&self, slot: Slot, error: Option<&str>) {
        let Some(i) = slot else { return };
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        let Some(r) = s.calls.get_mut(i) else { return };
        r.finished = true;
        r.entry["status"] = json!(if error.is_some() { "error" } else { "ok" });
        r.entry["durationMs"] = json!(r.started.elapsed().as_millis() as u64);
        if let Some(text) = error.filter(|t| !t.is_empty()) {
            r.entry["error"] = json!(text.chars().take(MAX_ERROR_CHARS).collect::<String>());
        }
    }

    /// The record so far, or `None` when no call was made.
    pub fn snapshot(&self) -> Option<Value> {
        let s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        if s.calls.is_empty() && !s.dropped {
            return None;
        }
        let complete = !s.dropped && s.calls.iter().all(|r| r.finished);
        let calls: Vec<Value> = s.calls.iter().map(|r| r.entry.clone()).collect();
        Some(json!({"calls": calls, "complete": complete}))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_recorded_with_status_and_error() {
        let r = Recorder::default();
        assert_eq!(r.snapshot(), None);
        let a = r.start("c/1", "read", &json!({"path": "a"}));
        let b = r.start("c/2", "bash", &json!({"command": "false"}));
        r.finish(a, None);
        let s = r.snapshot().unwrap();
        assert_eq!(s["complete"], false, "one call is unfinished");
        r.finish(b, Some(&"x".repeat(600)));
        let s = r.snapshot().unwrap();
        assert_eq!(s["complete"], true);
        assert_eq!(s["calls"][0]["status"], "ok");
        assert_eq!(s["calls"][0]["arguments"], json!({"path": "a"}));
        assert_eq!(s["calls"][1]["status"], "error");
        assert_eq!(
            s["calls"][1]["error"].as_str().unwrap().len(),
            MAX_ERROR_CHARS
        );
        assert!(s["calls"][1]["durationMs"].is_u64());
    }

    #[test]
    fn large_arguments_keep_their_size_and_extra_calls_are_dropped() {
        let r = Recorder::default();
        let big = json!({"content": "y".repeat(MAX_ARGUMENT_BYTES_PER_CALL)});
        let slot = r.start("c/1", "write", &big);
        r.finish(slot, None);
        let s = r.snapshot().unwrap();
        assert_eq!(s["calls"][0]["argumentsBytes"], big.to_string().len());
        assert!(s["calls"][0].get("arguments").is_none());
        assert_eq!(s["complete"], false);
        for i in 1..MAX_CALLS {
            let slot = r.start(&format!("c/{}", i + 1), "ls", &json!({}));
            r.finish(slot, None);
        }
        assert_eq!(r.start("c/x", "ls", &json!({})), None);
        assert_eq!(
            r.snapshot().unwrap()["calls"].as_array().unwrap().len(),
            MAX_CALLS
        );
    }
}
