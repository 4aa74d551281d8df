//! Retrying a summary request that failed in a way worth retrying (a dropped stream, an
//! overloaded provider), as pi 1.6's `retryAssistantCall` does for compaction and branch
//! summaries: the `retry.*` settings' budget and back-off, and an event before each wait,
//! after each wait and once at the end, for the session to turn into pi's
//! `summarization_retry_*` events.

use std::sync::Arc;
use std::time::Duration;

use rho_ai::retry::{auto_retry_delay_ms, is_retryable_error_text, RetrySettings};

/// What a retry reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RetryEvent {
    /// Attempt `attempt` of `max_attempts` is sent after `delay_ms`.
    Scheduled {
        attempt: u32,
        max_attempts: u32,
        delay_ms: u64,
        error_message: String,
    },
    /// The wait is over; the request is sent again.
    AttemptStart,
    /// Retrying ended (success, a final failure or an abort).
    Finished,
}

/// Receives [`RetryEvent`]s.
pub type RetryListener = Arc<dyn Fn(RetryEvent) + Send + Sync>;

/// How a summary request is retried; the default never retries.
#[derive(Clone, Default)]
pub struct SummaryRetry {
    /// The session's `retry.*` settings (`enabled`, `maxRetries`, `baseDelayMs`,
    /// `maxAgentDelayMs`); `None` never retries.
    pub settings: Option<RetrySettings>,
    /// Hears each retry.
    pub listener: Option<RetryListener>,
}

impl SummaryRetry {
    /// Retries by `settings`, reporting to `listener`.
    pub fn new(settings: RetrySettings, listener: RetryListener) -> Self {
        Self {
            settings: Some(settings),
            listener: Some(listener),
        }
    }

    /// How many retries the budget allows.
    pub fn max_attempts(&self) -> u32 {
        self.settings
            .filter(|s| s.enabled)
            .map_or(0, |s| s.max_retries)
    }

    /// The wait before retry `attempt` (1-based), or `None` when `error` is not worth
    /// retrying or the budget is spent.
    pub fn delay(&self, attempt: u32, error: &str) -> Option<Duration> {
        let settings = self.settings.filter(|s| s.enabled)?;
        if attempt > settings.max_retries || !is_retryable_error_text(error) {
            return None;
        }
        let ms = auto_retry_delay_ms(settings.base_delay_ms, attempt, settings.max_agent_delay_ms);
        Some(Duration::from_millis(ms))
    }

    /// Tells the listener.
    pub fn report(&self, event: RetryEvent) {
        if let Some(listener) = &self.listener {
            listener(event);
        }
    }
}

impl std::fmt::Debug for SummaryRetry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SummaryRetry")
            .field("settings", &self.settings)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transient_failures_are_retried_within_the_budget_with_pis_back_off() {
        let settings = RetrySettings {
            base_delay_ms: 100,
            max_retries: 2,
            max_agent_delay_ms: 150,
            ..RetrySettings::default()
        };
        let retry = SummaryRetry::new(settings, Arc::new(|_| {}));
        assert_eq!(retry.max_attempts(), 2);
        assert_eq!(
            retry.delay(1, "terminated"),
            Some(Duration::from_millis(100))
        );
        assert_eq!(
            retry.delay(2, "503 overloaded"),
            Some(Duration::from_millis(150))
        );
        assert_eq!(retry.delay(3, "terminated"), None, "budget spent");
        assert_eq!(retry.delay(1, "400 invalid request"), None);
        let off = RetrySettings {
            enabled: false,
            ..settings
        };
        assert_eq!(
            SummaryRetry::new(off, Arc::new(|_| {})).delay(1, "terminated"),
            None
        );
        assert_eq!(SummaryRetry::default().max_attempts(), 0);
    }
}
