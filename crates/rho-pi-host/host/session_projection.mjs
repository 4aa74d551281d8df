// pi 1.6's context reads of a SessionManager over the leaf's path (root first, as
// `getBranch()` gives it): the path with its latest compaction applied
// (`buildContextEntries`), each entry's model-visible messages with its latest context edit
// (`buildSessionProjection`), and the messages with the branch's thinking level and model
// (`buildSessionContext`).

const isSystemMessage = (e) => e.type === "message" && e.message?.role === "system";

/** The path with its latest compaction first, then the entries it kept (system messages
 * left out: the compaction carries their replay), then everything after it. */
export function buildContextEntries(path) {
  const at = path.findLastIndex((e) => e.type === "compaction");
  if (at < 0) return path;
  const compaction = path[at];
  const from = path.slice(0, at).findIndex((e) => e.id === compaction.firstKeptEntryId);
  const kept = from < 0 ? [] : path.slice(from, at).filter((e) => !isSystemMessage(e));
  return [compaction, ...kept, ...path.slice(at + 1)];
}

const ms = (timestamp) => new Date(timestamp).getTime();

/** What one entry puts in the model's context. */
function entryMessages(entry) {
  switch (entry.type) {
    case "message": {
      const m = entry.message;
      if (m?.content == null && m?.role === "system") return [{ ...m, content: "" }];
      if (m?.content == null && ["user", "assistant", "toolResult"].includes(m?.role)) return [{ ...m, content: [] }];
      return [m];
    }
    case "custom_message":
      return [{ role: "custom", customType: entry.customType, content: entry.content ?? [], display: entry.display, details: entry.details, timestamp: ms(entry.timestamp) }];
    case "branch_summary":
      return entry.summary ? [{ role: "branchSummary", summary: entry.summary, fromId: entry.fromId, timestamp: ms(entry.timestamp) }] : [];
    case "compaction": {
      const summary = { role: "compactionSummary", summary: entry.summary, tokensBefore: entry.tokensBefore, timestamp: ms(entry.timestamp) };
      return entry.systemMessage ? [entry.systemMessage, summary] : [summary];
    }
    default:
      return [];
  }
}

const EDITABLE = new Set(["user", "assistant", "toolResult", "custom"]);

/** `entry`'s messages with `edit` applied: removed, or their content replaced. */
function edited(entry, edit) {
  const messages = entryMessages(entry);
  if (!edit) return messages;
  if (edit.replacement === null) return [];
  const content = edit.replacement.content;
  return messages.map((m) => {
    if (!EDITABLE.has(m.role)) return m;
    const blocks = (m.role === "assistant" || m.role === "toolResult") && typeof content === "string";
    return { ...m, content: blocks ? [{ type: "text", text: content }] : content };
  });
}

/** The branch's thinking level (`off` without a change) and model (the last change or reply). */
function branchSettings(path) {
  let thinkingLevel = "off";
  let model = null;
  for (const e of path) {
    if (e.type === "thinking_level_change") thinkingLevel = e.thinkingLevel;
    else if (e.type === "model_change") model = { provider: e.provider, modelId: e.modelId };
    else if (e.type === "message" && e.message?.role === "assistant") model = { provider: e.message.provider, modelId: e.message.model };
  }
  return { thinkingLevel, model };
}

export function buildSessionProjection(path) {
  const selected = buildContextEntries(path);
  const edits = new Map(selected.filter((e) => e.type === "context_edit").map((e) => [e.targetId, e]));
  // Only the newest compaction, first, contributes its checkpoint and summary.
  const projected = selected.map((sourceEntry, i) => ({
    sourceEntry,
    messages: sourceEntry.type === "compaction" && i > 0 ? [] : edited(sourceEntry, edits.get(sourceEntry.id)),
  }));
  return { entries: projected, messages: projected.flatMap((e) => e.messages), ...branchSettings(path) };
}

export function buildSessionContext(path) {
  const { messages, thinkingLevel, model } = buildSessionProjection(path);
  return { messages, thinkingLevel, model };
}
