//! The loop over real HTTP: the default stream function (`rho_ai::stream`, Anthropic
//! Messages) against the loopback server, two tool rounds, then a final text reply.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use futures_util::future::BoxFuture;
use rho_agent::{
    Agent, AgentEvent, AgentMessage, AgentOptions, AgentTool, ToolContext, ToolError, ToolOutput,
};
use rho_ai::{Model, StreamOptions};
use rho_testkit::anthropic::{text_reply, tool_calls_reply, ToolCallScript, Usage};
use rho_testkit::{MockResponse, MockServer};
use serde_json::{json, Value};

struct Upper;

impl AgentTool for Upper {
    fn name(&self) -> &str {
        "upper"
    }
    fn label(&self) -> &str {
        "Upper"
    }
    fn description(&self) -> &str {
        "Uppercases text"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
    }
    fn execute(
        &self,
        args: Value,
        _ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            Ok(ToolOutput::text(
                args["text"].as_str().unwrap_or("").to_uppercase(),
            ))
        })
    }
}

fn usage() -> Usage {
    Usage {
        input: 10,
        output: 3,
        ..Default::default()
    }
}

fn call(id: &'static str, fragments: Vec<&'static str>) -> MockResponse {
    MockResponse::sse(tool_calls_reply(
        "msg",
        "claude-test",
        &[ToolCallScript {
            id,
            name: "upper",
            fragments,
        }],
        usage(),
    ))
}

#[tokio::test]
async fn two_tool_rounds_over_http() {
    let server = MockServer::start().await;
    server.push(call("toolu_a", vec!["", "{\"text\":", "\"one\"}"]));
    server.push(call("toolu_b", vec!["{\"te", "xt\":\"two\"}"]));
    server.push(MockResponse::sse(text_reply(
        "msg",
        "claude-test",
        &["ONE ", "TWO"],
        usage(),
    )));
    let model: Model = serde_json::from_value(json!({
        "id": "claude-test", "name": "t", "api": "anthropic-messages", "provider": "anthropic",
        "baseUrl": server.url(), "maxTokens": 1024
    }))
    .expect("model");
    let agent = Agent::new(AgentOptions {
        stream_options: StreamOptions {
            api_key: Some("sk-test".into()),
            ..Default::default()
        },
        ..AgentOptions::default()
    });
    agent.set_model(model);
    agent.set_tools(vec![Arc::new(Upper)]);
    let mut rx = agent.subscribe();
    agent.prompt("shout twice").await.expect("runs");
    let roles: Vec<&str> = agent.messages().iter().map(|m| m.role()).collect();
    assert_eq!(
        roles,
        [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "toolResult",
            "assistant"
        ]
    );
    let results: Vec<String> = agent
        .messages()
        .iter()
        .filter_map(|m| match m {
            AgentMessage::ToolResult(t) => Some(rho_ai::message::join_text(&t.content)),
            _ => None,
        })
        .collect();
    assert_eq!(results, ["ONE", "TWO"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let third = requests[2].json();
    let sent = third["messages"].to_string();
    assert!(
        sent.contains("\"tool_use_id\":\"toolu_a\"")
            && sent.contains("\"tool_use_id\":\"toolu_b\"")
    );
    assert_eq!(requests[0].header("x-api-key"), Some("sk-test"));
    let mut turn_ends = 0;
    while let Some(e) = rx.try_recv() {
        if matches!(&*e, AgentEvent::TurnEnd { .. }) {
            turn_ends += 1;
        }
    }
    assert_eq!(turn_ends, 3);
}
