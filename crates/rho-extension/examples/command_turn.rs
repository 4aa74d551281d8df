//! A command that sends a custom message and triggers a turn: `/ask why` asks the model.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use rho_extension::{CustomMessage, Error, Extension, SendOptions};

fn main() -> Result<(), Error> {
    let mut ext = Extension::new("ask");
    ext.command("ask", "ask the model a question", |rho, args| {
        let message = CustomMessage::new("question", format!("question: {args}"));
        rho.send_message(message, SendOptions::trigger_turn())
    });
    ext.run()
}
