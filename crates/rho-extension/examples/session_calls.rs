//! A tour of the calls into rho. `/status` records the session's state in a custom entry
//! (state, `exec`, a UI question, the `--greeting` flag) and names the session;
//! `/note ROUTE TEXT` sends TEXT as a custom message by one of the five delivery routes
//! (`append`, `trigger`, `steer`, `followUp`, `nextTurn`).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_extension::{CustomMessage, DeliverAs, Error, Extension, Rho, SendOptions};
use serde_json::{json, Value};

fn status(rho: &Rho) -> Result<(), Error> {
    let state = rho.get_state()?;
    let echo = rho.exec("echo", &["hi from exec"])?;
    let confirmed = rho.confirm("Record the status?", "Without a UI this is false.")?;
    let greeting = rho.flag("greeting").cloned().unwrap_or(Value::Null);
    rho.set_status("status", Some(if state.is_idle { "idle" } else { "busy" }))?;
    rho.set_widget("status", Some(&["status recorded"]))?;
    rho.notify("status recorded", "info")?;
    rho.set_session_name("status checked")?;
    rho.append_entry(
        "status",
        Some(json!({
            "cwd": state.cwd,
            "isIdle": state.is_idle,
            "exec": echo.stdout.trim(),
            "confirm": confirmed,
            "greeting": greeting,
        })),
    )
}

fn route(name: &str) -> Result<SendOptions, Error> {
    Ok(match name {
        "append" => SendOptions::append(),
        "trigger" => SendOptions::trigger_turn(),
        "steer" => SendOptions::deliver_as(DeliverAs::Steer),
        "followUp" => SendOptions::deliver_as(DeliverAs::FollowUp),
        "nextTurn" => SendOptions::deliver_as(DeliverAs::NextTurn),
        other => return Err(Error::msg(format!("unknown route {other:?}"))),
    })
}

fn main() -> Result<(), Error> {
    let mut ext = Extension::new("session-calls");
    ext.flag("greeting", "a word the status records", "string", None);
    ext.command("status", "record the session's state", |rho, _| status(rho));
    ext.command("note", "send a note: /note ROUTE TEXT", |rho, args| {
        let (name, text) = args.split_once(' ').unwrap_or((args, ""));
        rho.send_message(CustomMessage::new("note", text), route(name)?)
    });
    ext.run()
}
