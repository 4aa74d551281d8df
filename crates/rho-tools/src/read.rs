//! The `read` tool: text files a page at a time (offset/limit, 2000 lines / 50 KiB), images
//! as image content shrunk to what providers accept.

use std::path::PathBuf;

use futures_util::future::BoxFuture;
use rho_agent::{AgentTool, ToolContext, ToolError, ToolOutput};
use rho_protocol::{ContentBlock, ImageContent};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::args::{count, parse};
use crate::blocking::run_blocking;
use crate::image::{detect_image_mime, dimension_note, prepare_image, PreparedImage, ResizeLimits};
use crate::path::resolve_read_path;
use crate::truncate::{format_size, truncate_head, DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES};

/// How `read` treats images.
#[derive(Debug, Clone, Copy)]
pub struct ReadOptions {
    /// Shrink images over the limits (`images.autoResize`, default true).
    pub auto_resize_images: bool,
    /// The limits images must fit.
    pub limits: ResizeLimits,
}

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            auto_resize_images: true,
            limits: ResizeLimits::default(),
        }
    }
}

/// Reads files for the model.
pub struct ReadTool {
    cwd: PathBuf,
    options: ReadOptions,
}

impl ReadTool {
    /// A read tool resolving relative paths against `cwd`.
    pub fn new(cwd: impl Into<PathBuf>, options: ReadOptions) -> Self {
        Self {
            cwd: cwd.into(),
            options,
        }
    }
}

#[derive(Deserialize)]
struct ReadArgs {
    path: String,
    offset: Option<f64>,
    limit: Option<f64>,
}

impl AgentTool for ReadTool {
    fn name(&self) -> &str {
        "read"
    }
    fn label(&self) -> &str {
        "read"
    }
    fn description(&self) -> &str {
        "Read the contents of a file. Supports text files and images (jpg, png, gif, webp). Images are sent as attachments. For text files, output is truncated to 2000 lines or 50KB (whichever is hit first). Use offset/limit for large files. When you need the full file, continue with offset until complete."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "Path to the file to read (relative or absolute)"},
                "offset": {"type": "number", "description": "Line number to start reading from (1-indexed)"},
                "limit": {"type": "number", "description": "Maximum number of lines to read"}
            },
            "required": ["path"]
        })
    }
    fn execute(
        &self,
        args: Value,
        ctx: ToolContext,
    ) -> BoxFuture<'static, Result<ToolOutput, ToolError>> {
        let cwd = self.cwd.clone();
        let options = self.options;
        Box::pin(async move {
            let args: ReadArgs = parse("read", args)?;
            run_blocking(&ctx.cancel, move || read_file(&cwd, &args, &options)).await
        })
    }
}

fn read_file(
    cwd: &std::path::Path,
    args: &ReadArgs,
    options: &ReadOptions,
) -> Result<ToolOutput, ToolError> {
    let abs = resolve_read_path(&args.path, cwd);
    let meta = std::fs::metadata(&abs).map_err(|err| match err.kind() {
        std::io::ErrorKind::NotFound => ToolError::new(format!("File not found: {}", args.path)),
        _ => ToolError::new(format!("Cannot read file {}: {err}", args.path)),
    })?;
    if meta.is_dir() {
        return Err(ToolError::new(format!(
            "{} is a directory, not a file. Use ls to list its contents.",
            args.path
        )));
    }
    let bytes = std::fs::read(&abs)
        .map_err(|err| ToolError::new(format!("Cannot read file {}: {err}", args.path)))?;
    if let Some(mime) = detect_image_mime(&bytes) {
        return Ok(read_image(&bytes, mime, options));
    }
    if bytes[..bytes.len().min(8192)].contains(&0) {
        return Err(ToolError::new(format!(
            "Cannot read binary file: {}. Only text files and images (jpg, png, gif, webp) can be read; use bash to inspect other files.",
            args.path
        )));
    }
    let text = String::from_utf8_lossy(&bytes);
    read_text(&text, &args.path, count(args.offset), count(args.limit))
}

fn read_image(bytes: &[u8], mime: &str, options: &ReadOptions) -> ToolOutput {
    let img = if options.auto_resize_images {
        prepare_image(bytes, mime, &options.limits)
    } else {
        Some(PreparedImage::unchanged(bytes, mime))
    };
    let Some(img) = img else {
        return ToolOutput::text(format!(
            "Read image file [{mime}]\n[Image omitted: could not be resized below the inline image size limit.]"
        ));
    };
    let mut note = format!("Read image file [{}]", img.mime_type);
    if let Some(dims) = dimension_note(&img) {
        note.push('\n');
        note.push_str(&dims);
    }
    ToolOutput {
        content: vec![
            ContentBlock::text(note),
            ContentBlock::Image(ImageContent {
                data: img.data,
                mime_type: img.mime_type,
            }),
        ],
        details: None,
    }
}

/// The text page for `offset` (1-based) and `limit`, with pi's continuation notices.
pub fn read_text(
    text: &str,
    display_path: &str,
    offset: Option<usize>,
    limit: Option<usize>,
) -> Result<ToolOutput, ToolError> {
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1))
        .collect();
    let total = line_starts.len();
    let start = offset.map_or(0, |o| o.saturating_sub(1));
    if start >= total {
        return Err(ToolError::new(format!(
            "Offset {} is beyond end of file ({total} lines total)",
            offset.unwrap_or(0)
        )));
    }
    let end_line = limit.map_or(total, |l| (start + l).min(total));
    let slice_end = if end_line >= total {
        text.len()
    } else {
        line_starts[end_line] - 1
    };
    let selected = &text[line_starts[start]..slice_end.max(line_starts[start])];
    let t = truncate_head(selected, DEFAULT_MAX_LINES, DEFAULT_MAX_BYTES);
    let first = start + 1;
    if t.first_line_exceeds_limit {
        let line_len = selected.find('\n').unwrap_or(selected.len());
        let msg = format!(
            "[Line {first} is {}, exceeds {} limit. Use bash: sed -n '{first}p' {display_path} | head -c {DEFAULT_MAX_BYTES}]",
            format_size(line_len),
            format_size(DEFAULT_MAX_BYTES)
        );
        return Ok(with_truncation(msg, &t));
    }
    if t.truncated {
        let last = first + t.output_lines - 1;
        let limit_note = if t.truncated_by == Some(crate::truncate::TruncatedBy::Lines) {
            String::new()
        } else {
            format!(" ({} limit)", format_size(DEFAULT_MAX_BYTES))
        };
        let msg = format!(
            "{}\n\n[Showing lines {first}-{last} of {total}{limit_note}. Use offset={} to continue.]",
            t.content,
            last + 1
        );
        return Ok(with_truncation(msg, &t));
    }
    if limit.is_some() && end_line < total {
        return Ok(ToolOutput::text(format!(
            "{}\n\n[{} more lines in file. Use offset={} to continue.]",
            t.content,
            total - end_line,
            end_line + 1
        )));
    }
    Ok(ToolOutput::text(t.content))
}

fn with_truncation(text: String, t: &crate::truncate::Truncation) -> ToolOutput {
    ToolOutput {
        content: vec![ContentBlock::text(text)],
        details: Some(json!({ "truncation": t })),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_of(out: &ToolOutput) -> &str {
        out.content[0].as_text().expect("text block")
    }

    #[test]
    fn whole_small_file() {
        let out = read_text("a\nb\n", "f", None, None).expect("ok");
        assert_eq!(text_of(&out), "a\nb\n");
        assert_eq!(out.details, None);
    }

    #[test]
    fn offset_and_limit_with_continuation() {
        let out = read_text("1\n2\n3\n4\n5", "f", Some(2), Some(2)).expect("ok");
        assert_eq!(
            text_of(&out),
            "2\n3\n\n[2 more lines in file. Use offset=4 to continue.]"
        );
    }

    #[test]
    fn offset_past_the_end_is_an_error() {
        let err = read_text("1\n2", "f", Some(3), None).expect_err("beyond");
        assert_eq!(
            err.message,
            "Offset 3 is beyond end of file (2 lines total)"
        );
    }

    #[test]
    fn line_limit_notice() {
        let text = (1..=2500)
            .map(|i| i.to_string())
            .collect::<Vec<_>>()
            .join("\n");
        let out = read_text(&text, "f", None, None).expect("ok");
        assert!(text_of(&out)
            .ends_with("2000\n\n[Showing lines 1-2000 of 2500. Use offset=2001 to continue.]"));
        assert_eq!(
            out.details.as_ref().expect("details")["truncation"]["truncatedBy"],
            "lines"
        );
    }

    #[test]
    fn byte_limit_notice() {
        let line = "x".repeat(99);
        let text = vec![line.as_str(); 1000].join("\n");
        let out = read_text(&text, "f", Some(11), None).expect("ok");
        assert!(text_of(&out).ends_with(
            "[Showing lines 11-522 of 1000 (50.0KB limit). Use offset=523 to continue.]"
        ));
    }

    #[test]
    fn huge_first_line_suggests_sed() {
        let text = format!("short\n{}", "y".repeat(60_000));
        let out = read_text(&text, "big.txt", Some(2), None).expect("ok");
        assert_eq!(
            text_of(&out),
            "[Line 2 is 58.6KB, exceeds 50.0KB limit. Use bash: sed -n '2p' big.txt | head -c 51200]"
        );
    }
}
