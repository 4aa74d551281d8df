//! The extension hook point. The session layer asks its extensions (`session_before_compact`,
//! `session_before_tree`) and passes their verdict in as a plain value; the engine never
//! calls extensions itself.

/// What the extensions decided about a prepared compaction or branch summary.
#[derive(Debug, Clone, PartialEq)]
pub enum HookDecision<T> {
    /// No extension objected: the built-in summariser runs.
    Proceed,
    /// An extension cancelled: nothing is summarised and nothing written.
    Cancel,
    /// An extension supplied the result: used as is, no model call (`fromHook: true`).
    Replace(T),
}
