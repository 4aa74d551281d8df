//! codemode: the model writes a JavaScript script that calls the session's tools, and only the
//! script's output reaches the model (pi 1.6's `codemode` tool, docs/codemode.md).
//!
//! Scripts run in an embedded QuickJS VM (the `rquickjs` crate; pi runs the same engine,
//! QuickJS-NG, compiled to WebAssembly), one VM per script on a thread of its own, with a
//! 256 MB heap limit and an interrupt flag that the deadline and the abort set. Nothing
//! starts before the first script: a session that never runs one starts no thread and no VM.
//! Tool calls from a script leave the VM through one bridge and run in the host, through the
//! session's tool pipeline (see [`tool`]).

pub mod declare;
pub mod loadout;
pub mod report;
pub mod run;
pub mod source;
pub mod tool;
pub mod vm;

pub use loadout::{Mode, Presentation};
pub use run::{execute, CallHandler, Execution, ScriptError, ScriptResult, StoreWrites};
pub use tool::{
    Callable, CodemodeHost, CodemodeTool, Namespace, SaveError, CODEMODE_TOOL_NAME,
    STORE_ENTRY_TYPE,
};
pub use vm::{OutputItem, ScriptTool};
