//! The actionable boundaries' fold (pi 1.6 `emitBoundary`): proposals chain in load order,
//! each handler sees the context rebuilt from the proposal so far, a returned field replaces
//! only that field, failures are isolated, and an invalid final proposal appends nothing.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::runner::{ctx, handler, runner};
use rho_extension_host::*;
use rho_protocol::extension::boundary::DraftError;

fn settle() -> Boundary {
    Boundary::AgentBeforeSettle {
        outcome: "completed".into(),
    }
}

/// A preview that counts the proposal's entries and refuses one whose `type` is `bad`.
fn preview() -> BoundaryPreview {
    Arc::new(|entries: &[Value]| {
        if entries.iter().any(|e| e["type"] == "bad") {
            let reason = "draft type \"bad\" is not allowed".to_string();
            return Err(PreviewError::Draft(DraftError { index: 0, reason }));
        }
        Ok(json!({ "count": entries.len() }))
    })
}

/// An extension whose handler proposes a draft [`preview`] refuses, and continuation.
fn proposing_a_bad_draft() -> Extension {
    let mut a = Extension::new("a.ext");
    a.on(
        "agent_before_settle",
        handler(|_, _| {
            Ok(Some(
                json!({"entries": [{"type": "bad"}], "continue": true}),
            ))
        }),
    );
    a
}

/// What a handler saw: (entries, continue, context).
fn seen(e: &ExtensionEvent) -> (Vec<Value>, bool, Value) {
    match e {
        ExtensionEvent::AgentBeforeSettle {
            entries,
            continue_,
            context,
            ..
        } => (entries.clone(), *continue_, context.clone()),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn later_handlers_see_earlier_proposals_and_replace_only_what_they_return() {
    let mut a = Extension::new("a.ext");
    a.on(
        "agent_before_settle",
        handler(|e, _| {
            let (entries, cont, context) = seen(&e);
            assert_eq!(
                (entries.len(), cont, context),
                (0, false, json!({"count": 0}))
            );
            Ok(Some(
                json!({"entries": [{"type": "custom", "customType": "a"}], "continue": true}),
            ))
        }),
    );
    let mut b = Extension::new("b.ext");
    b.on(
        "agent_before_settle",
        handler(|e, _| {
            let (mut entries, cont, context) = seen(&e);
            assert_eq!(
                (entries.len(), cont, context),
                (1, true, json!({"count": 1}))
            );
            entries.push(json!({"type": "custom", "customType": "b"}));
            Ok(Some(json!({ "entries": entries })))
        }),
    );
    let (runner, reports) = runner(vec![a, b]);
    let out = runner.emit_boundary(&settle(), preview(), &ctx()).await;
    assert!(out.continue_, "b left continue as a set it");
    let types: Vec<&Value> = out.entries.iter().map(|e| &e["customType"]).collect();
    assert_eq!(types, [&json!("a"), &json!("b")]);
    assert!(reports.lock().unwrap().is_empty());
}

#[tokio::test]
async fn a_failing_handler_is_reported_and_the_next_still_runs() {
    let mut a = Extension::new("a.ext");
    a.on("agent_before_settle", handler(|_, _| Err("boom".into())));
    let mut b = Extension::new("b.ext");
    b.on(
        "agent_before_settle",
        handler(|_, _| Ok(Some(json!({"continue": true})))),
    );
    let (runner, reports) = runner(vec![a, b]);
    let out = runner.emit_boundary(&settle(), preview(), &ctx()).await;
    assert!(out.continue_);
    let reports = reports.lock().unwrap();
    assert_eq!(reports.len(), 1);
    assert_eq!(
        (
            reports[0].extension_path.as_str(),
            reports[0].event.as_str(),
            reports[0].error.as_str()
        ),
        ("a.ext", "agent_before_settle", "boom")
    );
}

#[tokio::test]
async fn an_invalid_final_proposal_appends_nothing_and_does_not_continue() {
    let a = proposing_a_bad_draft();
    let (runner, reports) = runner(vec![a]);
    let out = runner.emit_boundary(&settle(), preview(), &ctx()).await;
    assert_eq!(out, BoundaryOutcome::default());
    let reports = reports.lock().unwrap();
    assert_eq!(
        reports[0].error,
        "Invalid boundary entries: entries[0]: draft type \"bad\" is not allowed"
    );
}

#[tokio::test]
async fn a_later_handler_can_repair_an_invalid_proposal() {
    let a = proposing_a_bad_draft();
    let mut b = Extension::new("b.ext");
    b.on(
        "agent_before_settle",
        handler(|e, _| {
            let (_, _, context) = seen(&e);
            // The context stays the last one that could be built.
            assert_eq!(context, json!({"count": 0}));
            Ok(Some(json!({"entries": []})))
        }),
    );
    let (runner, reports) = runner(vec![a, b]);
    let out = runner.emit_boundary(&settle(), preview(), &ctx()).await;
    assert_eq!((out.entries.len(), out.continue_), (0, true));
    assert_eq!(
        reports.lock().unwrap().len(),
        1,
        "a's proposal was reported"
    );
}

#[tokio::test]
async fn failures_a_process_names_in_its_result_are_reported_under_their_extension() {
    let mut host = Extension::new("pi-host");
    host.on(
        "agent_before_settle",
        handler(|_, _| {
            Ok(Some(json!({
                "continue": true,
                "errors": [{"extensionPath": "/exts/one.ts", "error": "thrown"}],
            })))
        }),
    );
    let (runner, reports) = runner(vec![host]);
    let out = runner.emit_boundary(&settle(), preview(), &ctx()).await;
    assert!(out.continue_);
    let reports = reports.lock().unwrap();
    assert_eq!(
        (
            reports[0].extension_path.as_str(),
            reports[0].error.as_str()
        ),
        ("/exts/one.ts", "thrown")
    );
}
