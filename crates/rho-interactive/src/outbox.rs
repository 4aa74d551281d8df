//! How a part's background tasks (a session operation, a drawing, a list read off the loop)
//! report back to the loop. Each part speaks in the message type of the part it reports to
//! (a notice for the screen, a dialog to open, ...); the top-level wraps each into the loop's
//! own message on the one channel. So no part names the top-level, and the top-level
//! stays the one place that knows every part.

use std::sync::Arc;

/// A sender of `M` into the loop; cheap to clone into a task.
pub struct Outbox<M>(Arc<dyn Fn(M) -> bool + Send + Sync>);

impl<M> Clone for Outbox<M> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<M> Outbox<M> {
    /// An outbox that hands each message to `send` (false once the loop is gone).
    pub fn new(send: impl Fn(M) -> bool + Send + Sync + 'static) -> Self {
        Self(Arc::new(send))
    }

    /// Sends `message`; false when the loop has ended (nobody would read it).
    pub fn send(&self, message: M) -> bool {
        (self.0)(message)
    }
}
