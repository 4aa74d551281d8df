//! Running a prepared compaction: the extension verdict, the summary request(s), and the
//! result the session store writes as a `compaction` entry (COMP-13, COMP-16, COMP-19).

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
        },
        HookDecision::Proceed => Compacted {
            result: compact(preparation, summarizer, custom_instructions).await?,
            from_extension: false,
        },
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
    let p = preparation;
    let mut summary = if p.is_split_turn && !p.turn_prefix_messages.is_empty() {
        let history = async {
            if p.messages_to_summarize.is_empty() {
                return Ok(NO_PRIOR_HISTORY.to_string());
            }
            history_summary(p, summarizer, custom_instructions).await
        };
        let (history, prefix) = tokio::join!(history, turn_prefix_summary(p, summarizer));
        format!("{}{SPLIT_TURN_SEPARATOR}{}", history?, prefix?)
    } else {
        history_summary(p, summarizer, custom_instructions).await?
    };
    let lists = p.file_ops.lists();
    summary.push_str(&lists.format());
    Ok(CompactionResult {
        summary,
        first_kept_entry_id: p.first_kept_entry_id.clone(),
        tokens_before: p.tokens_before,
        details: Some(lists.to_details()),
    })
}

async fn history_summary(
    p: &CompactionPreparation,
    summarizer: &Summarizer,
    custom_instructions: Option<&str>,
) -> Result<String, CompactionError> {
    let text = history_prompt(
        &p.messages_to_summarize,
        p.previous_summary.as_deref(),
        custom_instructions,
    );
    let options = summarizer.options(p.settings.summary_max_tokens(), true);
    summarizer
        .complete(
            &summary_context(text),
            options,
            CompactionError::Summarization,
        )
        .await
}

async fn turn_prefix_summary(
    p: &CompactionPreparation,
    summarizer: &Summarizer,
) -> Result<String, CompactionError> {
    let text = turn_prefix_prompt(&p.turn_prefix_messages);
    let options = summarizer.options(p.settings.turn_prefix_max_tokens(), true);
    summarizer
        .complete(&summary_context(text), options, CompactionError::TurnPrefix)
        .await
}
