//! Custom rendering by extensions (pi-tui components): an [`ExtensionRenderer`] draws what its
//! extension declared (tool calls and results, custom messages) and the components it
//! announced through the UI (footer, header, widgets, `ctx.ui.custom`) as lines for a width.
//! The interactive mode asks only for what was declared or announced, so an extension without
//! renderers never gets a request.

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
pub use rho_protocol::extension::{
    ComponentSlot, EditorEvent, RenderTarget, Rendered, RendererSpec, WorkingIndicator,
    WorkingUpdate,
};

use super::process::wire::Request;
use super::process::Connection;

/// Draws an extension's own parts of the screen. `Err` is the extension's error text (its
/// reply's `error`, or why it did not answer; see [`crate::process::connection::Reply`]), which the UI
/// shows in place of the part.
pub trait ExtensionRenderer: Send + Sync {
    /// The tools and message types it draws.
    fn spec(&self) -> &RendererSpec;
    /// `target` in `width` columns; `None`: the extension leaves it to rho.
    fn render(
        &self,
        target: RenderTarget,
        width: u16,
    ) -> BoxFuture<'static, Result<Option<Rendered>, String>>;
    /// A key (as terminal bytes) for the focused component `key`; `Err` as for `render`.
    // A string: the extension's reply error, as it wrote it.
    fn input(&self, key: String, data: String) -> BoxFuture<'static, Result<(), String>>;
}

/// The renderer of an extension process: `render` and `component_input` requests.
pub struct ProcessRenderer {
    conn: Connection,
    spec: RendererSpec,
    deadline: Duration,
}

impl ProcessRenderer {
    /// Renders through `conn`; each request may take up to `deadline`.
    pub fn new(conn: Connection, spec: RendererSpec, deadline: Duration) -> Arc<Self> {
        Arc::new(Self {
            conn,
            spec,
            deadline,
        })
    }
}

impl ExtensionRenderer for ProcessRenderer {
    fn spec(&self) -> &RendererSpec {
        &self.spec
    }

    fn render(
        &self,
        target: RenderTarget,
        width: u16,
    ) -> BoxFuture<'static, Result<Option<Rendered>, String>> {
        let (conn, deadline) = (self.conn.clone(), self.deadline);
        Box::pin(async move {
            let reply = conn
                .request("render", deadline, None, |id| Request::Render {
                    id,
                    target,
                    width,
                })
                .await?;
            if reply.is_null() {
                return Ok(None);
            }
            serde_json::from_value(reply)
                .map(Some)
                .map_err(|e| format!("extension {}: bad render answer: {e}", conn.path()))
        })
    }

    // `Err`: the extension's reply error, a string on the wire (see the trait).
    fn input(&self, key: String, data: String) -> BoxFuture<'static, Result<(), String>> {
        let (conn, deadline) = (self.conn.clone(), self.deadline);
        Box::pin(async move {
            conn.request("component_input", deadline, None, |id| {
                Request::ComponentInput { id, key, data }
            })
            .await
            .map(|_| ())
        })
    }
}
