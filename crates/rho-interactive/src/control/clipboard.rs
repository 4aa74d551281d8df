//! Ctrl+V (pi's `app.clipboard.pasteImage`): an image on the system clipboard is saved to a
//! temporary file whose path goes into the editor (the model reads it with `read`); without
//! an image, the clipboard's text is inserted. The clipboard is read with the platform tools
//! pi uses: `wl-paste` on Wayland (and WSL), `xclip` on X11 (`xsel` for text), `osascript`
//! and `pbpaste` on macOS. Each tool runs detached from rho's process group (so a Ctrl+Z does
//! not stop a clipboard owner) with a time limit.

use std::path::PathBuf;
use std::time::Duration;

use super::{Control, ControlMsg, Cx};

/// Image types pi accepts, in its order of preference.
const IMAGE_TYPES: [&str; 4] = ["image/png", "image/jpeg", "image/webp", "image/gif"];
/// How long listing the clipboard's types may take.
const LIST_WAIT: Duration = Duration::from_secs(1);
/// How long reading the clipboard may take.
const READ_WAIT: Duration = Duration::from_secs(5);

impl Control {
    /// Reads the clipboard in a task; [`ControlMsg::Pasted`] inserts what it found.
    pub(super) fn paste_from_clipboard(&mut self) {
        let tx = self.tx.clone();
        tokio::spawn(async move {
            let pasted = read_clipboard().await;
            tx.send(ControlMsg::Pasted(pasted));
        });
    }

    /// Inserts what the clipboard held (nothing when empty), or says why it could not.
    pub(super) fn pasted(&mut self, pasted: Result<Option<String>, String>, cx: &mut Cx) {
        match pasted {
            Ok(Some(text)) => cx.screen.editor.insert_text(&text),
            Ok(None) => {}
            Err(why) => cx
                .screen
                .notice(format!("Failed to paste from clipboard: {why}"), true),
        }
    }
}

/// An image's path or the clipboard's text; `None` when the clipboard holds neither.
pub async fn read_clipboard() -> Result<Option<String>, String> {
    if let Some((bytes, mime)) = read_image().await {
        let ext = match mime.as_str() {
            "image/jpeg" => "jpg",
            "image/webp" => "webp",
            "image/gif" => "gif",
            _ => "png",
        };
        let path = image_path(ext);
        std::fs::write(&path, bytes)
            .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
        return Ok(Some(path.display().to_string()));
    }
    Ok(read_text().await)
}

/// Where a pasted image is kept (pi: `pi-clipboard-<uuid>.<ext>` in the temp dir).
fn image_path(ext: &str) -> PathBuf {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    std::env::temp_dir().join(format!(
        "rho-clipboard-{}-{nanos:x}.{ext}",
        std::process::id()
    ))
}

fn env_set(name: &str) -> bool {
    std::env::var_os(name).is_some_and(|v| !v.is_empty())
}

fn wayland() -> bool {
    env_set("WAYLAND_DISPLAY") || std::env::var("XDG_SESSION_TYPE").is_ok_and(|v| v == "wayland")
}

/// The clipboard's image and its type, if it holds one a model reads.
async fn read_image() -> Option<(Vec<u8>, String)> {
    if cfg!(target_os = "macos") {
        return read_image_macos().await;
    }
    if !cfg!(target_os = "linux") || env_set("TERMUX_VERSION") {
        return None;
    }
    let wsl = env_set("WSL_DISTRO_NAME") || env_set("WSL_INTEROP");
    if wayland() || wsl {
        // `Some(None)`: the Wayland clipboard answered and holds no image; X11's stale
        // contents must not be used then.
        if let Some(found) = read_image_with("wl-paste", &["--list-types"], |mime| {
            vec!["--type".into(), mime.into(), "--no-newline".into()]
        })
        .await
        {
            return found;
        }
    }
    read_image_with(
        "xclip",
        &["-selection", "clipboard", "-t", "TARGETS", "-o"],
        |mime| {
            ["-selection", "clipboard", "-t", mime, "-o"]
                .map(String::from)
                .to_vec()
        },
    )
    .await
    .flatten()
}

/// Lists the clipboard's types with `tool list`, then reads the preferred image type with
/// `tool read(type)`. `None` when the tool failed; `Some(None)` when it holds no image.
async fn read_image_with(
    tool: &str,
    list: &[&str],
    read: impl Fn(&str) -> Vec<String>,
) -> Option<Option<(Vec<u8>, String)>> {
    let types = run(tool, list, LIST_WAIT).await?;
    let types = String::from_utf8_lossy(&types);
    let listed: Vec<&str> = types
        .lines()
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    let Some(mime) = preferred_image(&listed) else {
        return Some(None);
    };
    let args = read(mime);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let bytes = run(tool, &args, READ_WAIT).await?;
    let base = mime
        .split(';')
        .next()
        .unwrap_or(mime)
        .trim()
        .to_ascii_lowercase();
    Some((!bytes.is_empty()).then_some((bytes, base)))
}

/// The first of pi's image types the clipboard offers (parameters after `;` ignored).
fn preferred_image<'a>(listed: &[&'a str]) -> Option<&'a str> {
    let base = |t: &str| t.split(';').next().unwrap_or(t).trim().to_ascii_lowercase();
    IMAGE_TYPES
        .iter()
        .find_map(|want| listed.iter().find(|t| base(t) == *want).copied())
}

/// macOS: `osascript` hands the clipboard's PNG data over as `«data PNGf…»` in hex.
async fn read_image_macos() -> Option<(Vec<u8>, String)> {
    let script = "try\nthe clipboard as «class PNGf»\non error\nreturn \"\"\nend try";
    let out = run("osascript", &["-e", script], READ_WAIT).await?;
    let text = String::from_utf8_lossy(&out);
    let hex = text.trim().strip_prefix("«data PNGf")?.strip_suffix('»')?;
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
        .collect::<Option<Vec<u8>>>()?;
    (!bytes.is_empty()).then(|| (bytes, "image/png".into()))
}

/// The clipboard's text with the tools pi tries, in its order.
async fn read_text() -> Option<String> {
    let mut tools: Vec<(&str, Vec<&str>)> = Vec::new();
    if env_set("TERMUX_VERSION") {
        tools.push(("termux-clipboard-get", vec![]));
    }
    if cfg!(target_os = "macos") {
        tools.push(("pbpaste", vec![]));
    }
    if cfg!(target_os = "linux") {
        if env_set("WAYLAND_DISPLAY") {
            tools.push(("wl-paste", vec!["--no-newline", "--type", "text"]));
        }
        if env_set("DISPLAY") {
            tools.push(("xclip", vec!["-selection", "clipboard", "-out"]));
            tools.push(("xsel", vec!["--clipboard", "--output"]));
        }
    }
    for (tool, args) in tools {
        if let Some(bytes) = run(tool, &args, READ_WAIT).await {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            return (!text.is_empty()).then_some(text);
        }
    }
    None
}

/// Runs a clipboard tool from `/`, detached, with no input; its output when it exits 0
/// within `wait`, else `None`.
async fn run(tool: &str, args: &[&str], wait: Duration) -> Option<Vec<u8>> {
    let mut command = tokio::process::Command::new(tool);
    command
        .args(args)
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    #[cfg(unix)]
    command.process_group(0);
    let output = tokio::time::timeout(wait, command.output())
        .await
        .ok()?
        .ok()?;
    output.status.success().then_some(output.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pis_image_types_are_preferred_in_its_order() {
        let listed = ["text/plain", "image/gif", "image/png;charset=binary"];
        assert_eq!(preferred_image(&listed), Some("image/png;charset=binary"));
        assert_eq!(preferred_image(&["text/plain", "image/bmp"]), None);
    }
}
