//! Polling for a device-code sign-in (RFC 8628): wait the interval, ask, and on `slow_down`
//! wait longer, until the user approved, refused or the code expired.

use std::future::Future;
use std::time::Duration;

use super::OAuthError;

/// RFC 8628 §3.2: without an `interval` the client waits 5 seconds.
const DEFAULT_INTERVAL: Duration = Duration::from_secs(5);
/// Never poll faster than this, whatever the server says.
const MIN_INTERVAL: Duration = Duration::from_secs(1);
/// RFC 8628 §3.5: `slow_down` adds 5 seconds.
const SLOW_DOWN_STEP: Duration = Duration::from_secs(5);

/// What one poll found.
#[derive(Debug, Clone, PartialEq)]
pub enum Poll<T> {
    /// Not approved yet.
    Pending,
    /// Poll less often; the server's new interval in seconds, when it sent one.
    SlowDown(Option<f64>),
    /// Approved.
    Done(T),
    /// Refused or broken; the text says why.
    Failed(String),
}

/// The timing the server announced.
#[derive(Debug, Clone, Copy, Default)]
pub struct DeviceTiming {
    /// Seconds between polls.
    pub interval_secs: Option<f64>,
    /// Seconds until the code expires.
    pub expires_in_secs: Option<f64>,
    /// Wait one interval before the first poll (the user cannot have approved yet).
    pub wait_first: bool,
}

fn seconds(value: f64) -> Option<Duration> {
    (value.is_finite() && value > 0.0).then(|| Duration::from_secs_f64(value))
}

/// Polls until `poll` says done or failed, or the code expires. Cancel by dropping the future.
pub async fn poll_device<T, F, Fut>(timing: DeviceTiming, mut poll: F) -> Result<T, OAuthError>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Result<Poll<T>, OAuthError>>,
{
    let start = tokio::time::Instant::now();
    let deadline = timing.expires_in_secs.and_then(seconds).map(|d| start + d);
    let mut interval = timing
        .interval_secs
        .and_then(seconds)
        .unwrap_or(DEFAULT_INTERVAL)
        .max(MIN_INTERVAL);
    let mut slowed = false;
    let wait = |interval: Duration| {
        let until = tokio::time::Instant::now() + interval;
        tokio::time::sleep_until(deadline.map_or(until, |d| d.min(until)))
    };
    if timing.wait_first {
        wait(interval).await;
    }
    while deadline.is_none_or(|d| tokio::time::Instant::now() < d) {
        match poll().await? {
            Poll::Done(value) => return Ok(value),
            Poll::Failed(message) => return Err(OAuthError::Invalid(message)),
            Poll::Pending => {}
            Poll::SlowDown(server) => {
                slowed = true;
                interval = server
                    .and_then(seconds)
                    .unwrap_or(interval + SLOW_DOWN_STEP)
                    .max(MIN_INTERVAL);
            }
        }
        if deadline.is_some_and(|d| tokio::time::Instant::now() >= d) {
            break;
        }
        wait(interval).await;
    }
    Err(OAuthError::Invalid(if slowed {
        "Device flow timed out after one or more slow_down responses. This is often caused by clock drift in WSL or VM environments. Please sync or restart the VM clock and try again.".into()
    } else {
        "Device flow timed out".into()
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[tokio::test(start_paused = true)]
    async fn polls_until_done_and_slows_down_when_told() {
        let calls = AtomicUsize::new(0);
        let start = tokio::time::Instant::now();
        let timing = DeviceTiming {
            interval_secs: Some(2.0),
            expires_in_secs: Some(600.0),
            wait_first: true,
        };
        let got = poll_device(timing, || async {
            Ok(match calls.fetch_add(1, Ordering::SeqCst) {
                0 => Poll::Pending,
                1 => Poll::SlowDown(None),
                _ => Poll::Done("token"),
            })
        })
        .await
        .unwrap();
        assert_eq!(got, "token");
        // 2 s before the first poll, 2 s after pending, 7 s after slow_down.
        assert_eq!(start.elapsed(), Duration::from_secs(11));
    }

    #[tokio::test(start_paused = true)]
    async fn expiry_and_refusal_end_the_flow_with_their_texts() {
        let timing = DeviceTiming {
            interval_secs: Some(1.0),
            expires_in_secs: Some(3.0),
            wait_first: false,
        };
        let err = poll_device(timing, || async { Ok(Poll::<()>::Pending) })
            .await
            .unwrap_err();
        assert_eq!(err.to_string(), "Device flow timed out");
        let err = poll_device(timing, || async { Ok(Poll::<()>::SlowDown(Some(1.0))) })
            .await
            .unwrap_err();
        assert!(err.to_string().contains("slow_down"), "{err}");
        let err = poll_device(timing, || async {
            Ok(Poll::<()>::Failed(
                "Device flow failed: access_denied".into(),
            ))
        })
        .await
        .unwrap_err();
        assert_eq!(err.to_string(), "Device flow failed: access_denied");
    }
}
