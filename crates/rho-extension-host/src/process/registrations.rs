//! What a process registers after the handshake (pi's `registerTool`, `registerCommand`,
//! `registerProvider`, `registerVirtualModel`, `registerMcpServer` from a handler or a command,
//! and the unregistrations): each call builds the same forwarding parts `register` does, over a handle
//! of the calling connection, and hands them to the session. Served in the order read, so a
//! handler's registrations are in place before its result is read.

use std::sync::Arc;

use rho_protocol::extension::calls::{
    RegisterCommand, RegisterMcpServer, RegisterProvider, RegisterTool, RegisterVirtualModel,
    UnregisterMcpServer, UnregisterProvider, UnregisterVirtualModel, REGISTER_COMMAND,
    REGISTER_MCP_SERVER, REGISTER_PROVIDER, REGISTER_TOOL, REGISTER_VIRTUAL_MODEL,
    UNREGISTER_MCP_SERVER, UNREGISTER_PROVIDER, UNREGISTER_VIRTUAL_MODEL,
};
use serde_json::Value;

use super::{calls, Connection, ProcessTool};
use crate::{ExtensionContext, HostError};

/// Whether `method` is one of the registration calls.
pub(crate) fn is_registration(method: &str) -> bool {
    [
        REGISTER_TOOL,
        REGISTER_COMMAND,
        REGISTER_PROVIDER,
        UNREGISTER_PROVIDER,
        REGISTER_VIRTUAL_MODEL,
        UNREGISTER_VIRTUAL_MODEL,
        REGISTER_MCP_SERVER,
        UNREGISTER_MCP_SERVER,
    ]
    .contains(&method)
}

/// Serves the registration call `method`: what it registers runs in the process behind
/// `conn` (a handle that does not own the process).
pub(crate) fn register(
    conn: &Connection,
    method: &str,
    params: Value,
    ctx: &ExtensionContext,
) -> Result<Value, HostError> {
    let options = conn.options();
    let host = &ctx.host;
    match method {
        REGISTER_TOOL => {
            let RegisterTool { tool } = calls::params(method, params)?;
            let tool = ProcessTool::new(tool, conn.clone(), options.tool_timeout);
            host.register_tool(Arc::new(tool))?;
        }
        REGISTER_COMMAND => {
            let RegisterCommand { command } = calls::params(method, params)?;
            let def = super::command_def(conn.clone(), &command, options);
            let path = command.path.unwrap_or_else(|| conn.path().to_string());
            host.register_command(def, path)?;
        }
        REGISTER_PROVIDER => {
            let RegisterProvider { provider } = calls::params(method, params)?;
            host.register_provider(super::provider_def(provider, conn, options))?;
        }
        UNREGISTER_PROVIDER => {
            let UnregisterProvider { name } = calls::params(method, params)?;
            host.unregister_provider(name)?;
        }
        REGISTER_VIRTUAL_MODEL => {
            let RegisterVirtualModel { model } = calls::params(method, params)?;
            host.register_virtual_model(super::virtual_model_def(model, conn, options))?;
        }
        UNREGISTER_VIRTUAL_MODEL => {
            let UnregisterVirtualModel { provider, id } = calls::params(method, params)?;
            host.unregister_virtual_model(provider, id)?;
        }
        REGISTER_MCP_SERVER => {
            let RegisterMcpServer { server } = calls::params(method, params)?;
            let answer = host.register_mcp_server(server)?;
            return serde_json::to_value(answer).map_err(HostError::Encode);
        }
        UNREGISTER_MCP_SERVER => {
            let UnregisterMcpServer {
                name,
                extension_path,
            } = calls::params(method, params)?;
            host.unregister_mcp_server(name, extension_path)?;
        }
        _ => return Err(HostError::UnknownMethod(method.to_string())),
    }
    Ok(Value::Null)
}
