//! Cross-provider message transformation (providers spec §4), applied to a context's messages
//! before a provider builds its request.

use crate::message::Message;
use crate::model::Model;

/// The messages as `model` should receive them.
pub fn transform_messages(messages: &[Message], _model: &Model) -> Vec<Message> {
    messages.to_vec()
}
