//! Running a prepared compaction: the extension verdict, the summary request(s), and the
//! result the session store writes as a `compaction` entry (COMP-13, COMP-16, COMP-19).

use rho_ai::Usage;
pub use rho_protocol::session::CompactionResult;

use super::error::CompactionError;
use super::hook::HookDecision;
use super::prepare::CompactionPreparation;
use super::prompts::{NO_PRIOR_HISTORY, SPLIT_TURN_SEPARATOR};
use super::summarize::{history_prompt, summary_context, turn_prefix_prompt, Summarizer};

/// A finished compaction, ready to be written.
#[derive(Debug, Clone, PartialEq)]
pub struct Compacted {
    /// The result.
    pub result: CompactionResult,
    /// True when an extension supplied it (`fromHook` on the entry, `fromExtension` in
    /// `session_compact`).
    pub from_extension: bool,
    /// What the summary requests cost (`usage` on the entry, as pi 1.x writes it); `None`
    /// when an extension supplied the result.
    pub usage: Option<Usage>,
}

/// Runs a prepared compaction with the extensions' verdict. `Cancel` (or the summariser's
/// signal) yields [`CompactionError::Cancelled`]; `Replace` is used as is.
pub async fn run_compaction(
    preparation: &CompactionPreparation,
    summarizer: &Summarizer,
    custom_instructions: Option<&str>,
    hook: HookDecision<CompactionResult>,
) -> Result<Compacted, CompactionError> {
    let compacted = match hook {
        HookDecision::Cancel => return Err(CompactionError::Cancelled),
        HookDecision::Replace(result) => Compacted {
            result,
            from_extension: true,
            usage: None,
        },
        HookDecision::Proceed => {
            let (result, usage) =
                compact_with_usage(preparation, summarizer, custom_instructions).await?;
            Compacted {
                result,
                from_extension: false,
                usage: Some(usage),
            }
        }
    };
    if summarizer.cancel.is_cancelled() {
        return Err(CompactionError::Cancelled);
    }
    Ok(compacted)
}

/// The built-in summariser: one history request, plus (for a split turn, concurrently) a
/// turn-prefix request; the two are joined under `**Turn Context (split turn):**`, and
/// the file lists are appended.
pub async fn compact(
    preparation: &CompactionPreparation,
    summarizer: &Summarizer,
    custom_instructions: Option<&str>,
) -> Result<CompactionResult, CompactionError> {
    Ok(
        compact_with_usage(preparation, summarizer, custom_instructions)
            .await?
            .0,
    )
}

/// [`compact`], with the summed usage of its request(s).
pub async fn compact_with_usage(
    preparation: &CompactionPreparation,
    summarizer: &Summarizer,
    custom_instructions: Option<&str>,
) -> Result<(CompactionResult, Usage), CompactionError> {
    let p = preparation;
    let (mut summary, usage) = if p.is_split_turn && !p.turn_prefix_messages.is_empty() {
        let history = async {
            if p.messages_to_summarize.is_empty() {
                return Ok((NO_PRIOR_HISTORY.to_string(), Usage::default()));
            }
            history_summary(p, summarizer, custom_instructions).await
        };
        let (history, prefix) = tokio::join!(history, turn_prefix_summary(p, summarizer));
        let ((history, mut usage), (prefix, more)) = (history?, prefix?);
        add_usage(&mut usage, &more);
        (format!("{history}{SPLIT_TURN_SEPARATOR}{prefix}"), usage)
    } else {
        history_summary(p, summarizer, custom_instructions).await?
    };
    let lists = p.file_ops.lists();
    summary.push_str(&lists.format());
    let result = CompactionResult {
        summary,
        first_kept_entry_id: p.first_kept_entry_id.clone(),
        tokens_before: p.tokens_before,
        details: Some(lists.to_details()),
    };
    Ok((result, usage))
}

/// Adds `more` to `total`, costs included.
fn add_usage(total: &mut Usage, more: &Usage) {
    total.input += more.input;
    total.output += more.output;
    total.cache_read += more.cache_read;
    total.cache_write += more.cache_write;
    total.total_tokens += more.total_tokens;
    total.cost.input += more.cost.input;
    total.cost.output += more.cost.output;
    total.cost.cache_read += more.cost.cache_read;
    total.cost.cache_write += more.cost.cache_write;
    total.cost.total += more.cost.total;
}

async fn history_summary(
    p: &CompactionPreparation,
    summarizer: &Summarizer,
    custom_instructions: Option<&str>,
) -> Result<(String, Usage), CompactionError> {
    let text = history_prompt(
        &p.messages_to_summarize,
        p.previous_summary.as_deref(),
        custom_instructions,
    );
    let options = summarizer.options(p.settings.summary_max_tokens(), true);
    summarizer
        .complete_with_usage(
            &summary_context(text),
            options,
            CompactionError::Summarization,
        )
        .await
}

async fn turn_prefix_summary(
    p: &CompactionPreparation,
    summarizer: &Summarizer,
) -> Result<(String, Usage), CompactionError> {
    let text = turn_prefix_prompt(&p.turn_prefix_messages);
    let options = summarizer.options(p.settings.turn_prefix_max_tokens(), true);
    summarizer
        .complete_with_usage(&summary_context(text), options, CompactionError::TurnPrefix)
        .await
}
