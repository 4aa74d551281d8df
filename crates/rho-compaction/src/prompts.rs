//! The summariser's instructions. The wording is rho's own (pi's exact wording is not a
//! compatibility requirement); the structure follows the spec: a system prompt that forbids
//! continuing the conversation, a structured checkpoint with the sections Goal,
//! Constraints & Preferences, Progress (Done / In Progress / Blocked), Key Decisions,
//! Next Steps and Critical Context, an update variant for a previous summary, a turn-prefix
//! variant for split turns, and a branch variant.

/// System prompt of every summarisation request.
pub const SYSTEM_PROMPT: &str = "You summarize conversations between a user and an AI coding \
assistant. Read the conversation you are given and write the structured summary the \
instructions ask for.\n\nDo not continue the conversation and do not answer questions found in \
it. Output only the summary.";

/// First compaction: summarise the conversation into a checkpoint.
pub const SUMMARY_PROMPT: &str = "The conversation above is to be summarized. Write a \
structured checkpoint from which another model can pick up the work.

Use exactly this format:

## Goal
[What the user wants to achieve; list several goals if the session covers several tasks.]

## Constraints & Preferences
- [Requirements, constraints or preferences the user stated]
- [Or \"(none)\"]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work under way]

### Blocked
- [What prevents progress, if anything]

## Key Decisions
- **[Decision]**: [Short reason]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Data, examples or references needed to continue]
- [Or \"(none)\"]

Keep every section short. Keep file paths, function names and error messages exactly as written.";

/// Later compactions: fold the new messages into the summary in `<previous-summary>`.
pub const UPDATE_PROMPT: &str = "The conversation above holds NEW messages. Merge them into the \
existing summary given in <previous-summary> tags.

Rules:
- KEEP everything the previous summary says unless it is clearly obsolete
- ADD the new progress, decisions and context
- MOVE items from \"In Progress\" to \"Done\" once they are finished
- UPDATE \"Next Steps\" to match what has been done
- KEEP file paths, function names and error messages exactly as written

Use exactly this format:

## Goal
[Existing goals, plus new ones if the task grew]

## Constraints & Preferences
- [Existing ones, plus new ones]

## Progress
### Done
- [x] [Earlier finished items AND newly finished ones]

### In Progress
- [ ] [Current work]

### Blocked
- [Current blockers; drop resolved ones]

## Key Decisions
- **[Decision]**: [Short reason] (keep earlier ones, add new ones)

## Next Steps
1. [Updated to the current state]

## Critical Context
- [Existing important context, plus new context]

Keep every section short. Keep file paths, function names and error messages exactly as written.";

/// Split turn: summarise the beginning of a turn whose end is kept verbatim.
pub const TURN_PREFIX_PROMPT: &str = "The conversation above is the BEGINNING of a turn that was \
too long to keep. Its END (the most recent work) is kept as it is.

Summarize the beginning so the kept end makes sense:

## Original Request
[What the user asked for in this turn]

## Early Progress
- [Work done and decisions made in the beginning]

## Context for Suffix
- [What is needed to understand the kept recent work]

Be brief and focus on what the kept end needs.";

/// Branch summary: summarise a branch the user navigated away from.
pub const BRANCH_PROMPT: &str = "Write a structured summary of this conversation branch so \
the work can be resumed later.

Use exactly this format:

## Goal
[What the user wanted to achieve in this branch]

## Constraints & Preferences
- [Requirements, constraints or preferences mentioned]
- [Or \"(none)\"]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work started but not finished]

### Blocked
- [What prevented progress, if anything]

## Key Decisions
- **[Decision]**: [Short reason]

## Next Steps
1. [What should happen next to continue this work]

Keep every section short. Keep file paths, function names and error messages exactly as written.";

/// Put in front of every built-in branch summary.
pub const BRANCH_PREAMBLE: &str =
    "The user explored a different conversation branch before returning here.\nSummary of that exploration:\n\n";

/// The history summary when a split turn has no history before it.
pub const NO_PRIOR_HISTORY: &str = "No prior history.";

/// The separator between the history summary and a split turn's prefix summary.
pub const SPLIT_TURN_SEPARATOR: &str = "\n\n---\n\n**Turn Context (split turn):**\n\n";

/// The branch summary when the branch held nothing to summarise.
pub const NO_BRANCH_CONTENT: &str = "No content to summarize";
