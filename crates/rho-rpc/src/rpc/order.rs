//! Line order for commands that run in their own task (D13). Each command takes a [`Turn`]
//! when its line is read; it waits for the turn before it before it takes effect (queues a
//! message, starts a run, switches sessions) and passes the turn on once it has, so only
//! the waiting that follows runs concurrently.

use tokio::sync::oneshot;

/// Hands out turns in line order.
#[derive(Default)]
pub struct Line {
    last: Option<oneshot::Receiver<()>>,
}

impl Line {
    /// The turn of the command read now, after every command read before it.
    pub fn take(&mut self) -> Turn {
        let (done, next) = oneshot::channel();
        Turn {
            before: self.last.replace(next),
            done: Some(done),
        }
    }
}

/// One command's place in line; dropping it passes the turn on.
pub struct Turn {
    before: Option<oneshot::Receiver<()>>,
    done: Option<oneshot::Sender<()>>,
}

impl Turn {
    /// No place in line, for commands that act at once (abort, dialog answers, queries).
    pub fn free() -> Turn {
        Turn {
            before: None,
            done: None,
        }
    }

    /// True when every command before this one has taken effect.
    pub fn is_up(&mut self) -> bool {
        let Some(before) = &mut self.before else {
            return true;
        };
        let up = !matches!(before.try_recv(), Err(oneshot::error::TryRecvError::Empty));
        if up {
            self.before = None;
        }
        up
    }

    /// Waits until every command before this one has taken effect.
    pub async fn wait(&mut self) {
        if let Some(before) = self.before.take() {
            // An error means the sender was dropped: that command is over, too.
            let _ = before.await;
        }
    }

    /// This command has taken effect: the next one may go.
    pub fn pass(&mut self) {
        if let Some(done) = self.done.take() {
            let _ = done.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn turns_come_up_in_the_order_they_were_taken() {
        let mut line = Line::default();
        let mut first = line.take();
        let mut second = line.take();
        let mut third = line.take();
        assert!(first.is_up());
        assert!(!second.is_up());
        first.pass();
        assert!(second.is_up());
        assert!(!third.is_up());
        drop(second);
        third.wait().await;
        assert!(third.is_up());
    }
}
