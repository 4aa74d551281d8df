//! Reply bodies that end before their API's terminal event, for every wire API rho speaks
//! (issue 43): the start of a real reply up to one valid text delta, a text delta carrying
//! invalid UTF-8, and the events that end the reply properly, from which each [`Fault`]
//! builds a `200 text/event-stream` response.

use serde_json::json;

use crate::server::{Chunk, MockResponse};
use crate::sse_event;

/// The text the valid delta carries.
pub const PARTIAL: &str = "partial ";

/// The text of the delta with invalid UTF-8: `a`, the byte `0xFF`, `b`.
pub const BAD_UTF8_TEXT: &[u8] = b"a\xffb";

/// What a client keeps of [`BAD_UTF8_TEXT`]: the bad byte becomes U+FFFD.
pub const BAD_UTF8_DECODED: &str = "a\u{FFFD}b";

/// One wire API's reply, in pieces.
#[derive(Debug, Clone)]
pub struct Wire {
    /// The model's `api`.
    pub api: &'static str,
    /// pi 1.6's error text for a stream of this API that ends after a delta.
    pub pi_ended_early: &'static str,
    /// pi 1.6's text for a body with no event at all (Anthropic's differs: no
    /// `message_start` either).
    pub pi_no_events: &'static str,
    /// The reply's start through one valid text delta of [`PARTIAL`].
    pub head: Vec<u8>,
    /// One more text delta, of [`BAD_UTF8_TEXT`].
    pub bad_delta: Vec<u8>,
    /// The events that end the reply properly.
    pub tail: Vec<u8>,
    /// The reply's content type (`text/event-stream`, or Bedrock's binary event stream).
    pub content_type: &'static str,
}

/// How a body goes wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fault {
    /// The connection closes after a valid delta.
    Cut,
    /// Lines that are no SSE field follow the valid data, then the connection closes.
    Garbage,
    /// A delta with invalid UTF-8 follows, then the connection closes.
    BadUtf8Cut,
    /// A delta with invalid UTF-8, then the proper end: a complete reply.
    BadUtf8Complete,
    /// `200` with an empty body.
    Empty,
    /// `200` with an HTML page instead of an event stream.
    NotSse,
}

impl Fault {
    /// Every fault that must end in an error.
    pub const ERRORS: [Fault; 5] = [
        Fault::Cut,
        Fault::Garbage,
        Fault::BadUtf8Cut,
        Fault::Empty,
        Fault::NotSse,
    ];
}

/// The page a misconfigured `baseUrl` returns.
pub const NOT_SSE_BODY: &str = "<html><body>Welcome to nginx!</body></html>\n";

/// Lines that are no SSE field: skipped by the parser, so the stream just ends.
pub const GARBAGE: &[u8] = b"\x00\x01garbage{{{ not an event\n<html>oops</html>\n\n";

impl Wire {
    /// The body `fault` sends.
    pub fn body(&self, fault: Fault) -> Vec<u8> {
        let pieces: Vec<&[u8]> = match fault {
            Fault::Cut => vec![&self.head],
            Fault::Garbage => vec![&self.head, GARBAGE],
            Fault::BadUtf8Cut => vec![&self.head, &self.bad_delta],
            Fault::BadUtf8Complete => vec![&self.head, &self.bad_delta, &self.tail],
            Fault::Empty => vec![],
            Fault::NotSse => vec![NOT_SSE_BODY.as_bytes()],
        };
        pieces.concat()
    }

    /// A `200` response of the API's content type with `fault`'s body, ending with a clean
    /// close.
    pub fn response(&self, fault: Fault) -> MockResponse {
        let body = self.body(fault);
        MockResponse {
            status: 200,
            headers: vec![("content-type".into(), self.content_type.into())],
            chunks: if body.is_empty() {
                vec![]
            } else {
                vec![Chunk::Bytes(body)]
            },
        }
    }

    /// An API key the API accepts: for Codex a ChatGPT token naming an account.
    pub fn key(&self) -> String {
        use base64::Engine;
        if self.api != "openai-codex-responses" {
            return "sk-literal-test-key".into();
        }
        let claims = json!({"https://api.openai.com/auth": {"chatgpt_account_id": "acc-43"}});
        let claims = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(claims.to_string());
        format!("eyJhbGciOiJub25lIn0.{claims}.sig")
    }

    /// The complete reply: the start, then the proper end.
    pub fn complete(&self) -> MockResponse {
        let body = [&self.head[..], &self.tail].concat();
        MockResponse {
            status: 200,
            headers: vec![("content-type".into(), self.content_type.into())],
            chunks: vec![Chunk::Bytes(body)],
        }
    }
}

/// Every wire API, its valid delta saying [`PARTIAL`].
pub fn all() -> Vec<Wire> {
    all_saying(PARTIAL)
}

/// The wire of `api` whose valid delta says `text`.
pub fn wire(api: &str, text: &str) -> Wire {
    all_saying(text)
        .into_iter()
        .find(|w| w.api == api)
        .expect("a known api")
}

fn all_saying(text: &str) -> Vec<Wire> {
    let responses = responses(text);
    let mut codex = responses.clone();
    codex.api = "openai-codex-responses";
    // Azure OpenAI parses its stream as OpenAI Responses, with pi's text for it.
    let mut azure = responses.clone();
    azure.api = "azure-openai-responses";
    let mut vertex = google(text);
    vertex.api = "google-vertex";
    vertex.pi_ended_early = "Google Vertex stream ended without a finish reason";
    vertex.pi_no_events = vertex.pi_ended_early;
    vec![
        anthropic(text),
        chat(text),
        responses,
        codex,
        google(text),
        vertex,
        azure,
        mistral(text),
        bedrock(text),
    ]
}

/// A framed event with the text `"\u{1}"` in it replaced by [`BAD_UTF8_TEXT`].
fn with_bad_utf8(framed: &str) -> Vec<u8> {
    let (before, after) = framed.split_once("\\u0001").expect("a marker in the event");
    [before.as_bytes(), BAD_UTF8_TEXT, after.as_bytes()].concat()
}

fn anthropic(text: &str) -> Wire {
    use crate::anthropic as a;
    let usage = a::Usage {
        input: 5,
        output: 1,
        ..Default::default()
    };
    let head = [
        a::message_start("msg_43", "claude-sonnet-4-5", usage),
        a::text_start(0),
        a::text_delta(0, text),
    ];
    let delta = json!({"type": "content_block_delta", "index": 0,
        "delta": {"type": "text_delta", "text": "\u{1}"}});
    Wire {
        api: "anthropic-messages",
        pi_ended_early: "Anthropic stream ended before message_stop",
        pi_no_events: "Anthropic stream ended without a stop reason",
        head: head.concat().into_bytes(),
        bad_delta: with_bad_utf8(&sse_event(Some("content_block_delta"), &delta.to_string())),
        tail: [
            a::block_stop(0),
            a::message_delta("end_turn", 3),
            a::message_stop(),
        ]
        .concat()
        .into_bytes(),
        content_type: SSE,
    }
}

fn chat(text: &str) -> Wire {
    use crate::openai_chat::ChatStream;
    let chunk = |delta: serde_json::Value| {
        json!({"id": "chatcmpl-43", "object": "chat.completion.chunk", "created": 1_735_689_600,
            "model": "m", "choices": [{"index": 0, "delta": delta, "finish_reason": null}]})
    };
    let head = ChatStream::new("chatcmpl-43", "m").role().text(text);
    let tail = ChatStream::new("chatcmpl-43", "m")
        .finish("stop")
        .usage(5, 3, None)
        .done();
    Wire {
        api: "openai-completions",
        pi_ended_early: "Stream ended without finish_reason",
        pi_no_events: "Stream ended without finish_reason",
        head: head.sse_text().into_bytes(),
        bad_delta: with_bad_utf8(&sse_event(
            None,
            &chunk(json!({"content": "\u{1}"})).to_string(),
        )),
        tail: tail.sse_text().into_bytes(),
        content_type: SSE,
    }
}

fn responses(text: &str) -> Wire {
    let event = |kind: &str, mut data: serde_json::Value| {
        data["type"] = json!(kind);
        (kind.to_string(), data)
    };
    let framed =
        |(kind, data): (String, serde_json::Value)| sse_event(Some(&kind), &data.to_string());
    let response = |status: &str| {
        json!({"id": "resp_43", "object": "response", "status": status, "model": "m", "output": [],
        "usage": if status == "completed" {
            json!({"input_tokens": 5, "output_tokens": 3, "total_tokens": 8})
        } else {
            json!(null)
        }})
    };
    let item = json!({"id": "msg_43", "type": "message", "status": "in_progress", "role": "assistant", "content": []});
    let delta = |t: &str| {
        event(
            "response.output_text.delta",
            json!({"item_id": "msg_43", "output_index": 0, "content_index": 0, "delta": t}),
        )
    };
    let head = [
        event(
            "response.created",
            json!({"response": response("in_progress")}),
        ),
        event(
            "response.output_item.added",
            json!({"output_index": 0, "item": item}),
        ),
        delta(text),
    ];
    let (kind, data) = delta("\u{1}");
    Wire {
        api: "openai-responses",
        pi_ended_early: "OpenAI Responses stream ended before a terminal response event",
        pi_no_events: "OpenAI Responses stream ended before a terminal response event",
        head: head
            .into_iter()
            .map(framed)
            .collect::<String>()
            .into_bytes(),
        bad_delta: with_bad_utf8(&sse_event(Some(&kind), &data.to_string())),
        tail: framed(event(
            "response.completed",
            json!({"response": response("completed")}),
        ))
        .into_bytes(),
        content_type: SSE,
    }
}

fn google(text: &str) -> Wire {
    use crate::google::{self as g, GeminiStream};
    let chunk = |t: &str| json!({"candidates": [{"content": {"parts": [{"text": t}], "role": "model"}, "index": 0}]});
    let head = GeminiStream::new("resp-43", "gemini-2.5-flash")
        .parts(vec![g::text(text)])
        .chunks();
    let tail = GeminiStream::new("resp-43", "gemini-2.5-flash").finish(
        vec![g::text("")],
        "STOP",
        g::usage(5, 3, 0, 0),
    );
    Wire {
        api: "google-generative-ai",
        pi_ended_early: "Google stream ended without a finish reason",
        pi_no_events: "Google stream ended without a finish reason",
        head: head.concat().into_bytes(),
        bad_delta: with_bad_utf8(&g::frame(&chunk("\u{1}").to_string())),
        tail: tail.concat().into_bytes(),
        content_type: SSE,
    }
}

/// The content type of every SSE API.
const SSE: &str = "text/event-stream";

fn mistral(text: &str) -> Wire {
    use crate::mistral as m;
    Wire {
        api: "mistral-conversations",
        pi_ended_early: "Mistral stream ended without a finish reason",
        pi_no_events: "Mistral stream ended without a finish reason",
        head: m::text(text).into_bytes(),
        bad_delta: with_bad_utf8(&m::text("\u{1}")),
        tail: [m::finish("stop", m::usage(5, 3, 0)), m::done()]
            .concat()
            .into_bytes(),
        content_type: SSE,
    }
}

fn bedrock(text: &str) -> Wire {
    use crate::bedrock as b;
    let delta = json!({"contentBlockIndex": 0, "delta": {"text": "\u{1}"}}).to_string();
    let (before, after) = delta.split_once("\\u0001").expect("a marker in the event");
    let bad = [before.as_bytes(), BAD_UTF8_TEXT, after.as_bytes()].concat();
    Wire {
        api: "bedrock-converse-stream",
        pi_ended_early: "Bedrock stream ended without a stop reason",
        pi_no_events: "Bedrock stream ended without a stop reason",
        head: [b::message_start(), b::text(0, text)].concat(),
        bad_delta: b::event_raw("contentBlockDelta", &bad),
        tail: [
            b::block_stop(0),
            b::message_stop("end_turn"),
            b::metadata(5, 3, 0, 0),
        ]
        .concat(),
        content_type: b::CONTENT_TYPE,
    }
}
