//! Markdown for assistant text, rendered to styled lines of a given width.
//!
//! Supported: ATX headings, paragraphs (single newlines kept, as models mean them), emphasis
//! (`**`, `__`, `*`, `_`, `~~`), inline code, links, bullet and numbered lists (nested by
//! indentation), block quotes, rules and fenced code blocks with [`crate::highlight`]. A fence
//! still open at the end (a streaming reply) renders as a code block. Pipe tables are drawn by
//! [`crate::table`]. HTML is shown as written.

use crate::ansi::wrap;
use crate::highlight::highlight_line;
use crate::table::{is_table, render_table};
use crate::theme::{bold, italic, strikethrough, underline, Theme};

/// Renders `text` to lines no wider than `width` columns. Blocks are separated by one blank
/// line; no blank line leads or trails.
pub fn render_markdown(text: &str, width: usize, theme: &Theme) -> Vec<String> {
    let width = width.max(4);
    let mut out: Vec<String> = Vec::new();
    let mut lines = text.lines().peekable();
    let mut para: Vec<&str> = Vec::new();
    // The previous block was a list item / quote line: consecutive ones are not separated.
    let mut prev_list = false;
    let mut prev_quote = false;
    let mut gap = |out: &mut Vec<String>| {
        if !out.is_empty() && out.last().is_some_and(|l| !l.is_empty()) {
            out.push(String::new());
        }
    };
    while let Some(line) = lines.next() {
        let trimmed = line.trim_start();
        let block_start = is_fence(trimmed).is_some()
            || heading(trimmed).is_some()
            || is_rule(trimmed)
            || list_item(line).is_some()
            || trimmed.starts_with('>');
        if trimmed.is_empty() || (block_start && !para.is_empty()) {
            flush_paragraph(&mut para, &mut out, width, theme, &mut gap);
            if trimmed.is_empty() {
                continue;
            }
        }
        let (was_list, was_quote) = (prev_list, prev_quote);
        prev_list = false;
        prev_quote = false;
        if let Some((fence, lang)) = is_fence(trimmed) {
            gap(&mut out);
            let mut code = Vec::new();
            for l in lines.by_ref() {
                if l.trim_start().starts_with(fence)
                    && l.trim().trim_start_matches(fence).is_empty()
                {
                    break;
                }
                code.push(l);
            }
            code_block(&code, lang, width, theme, &mut out);
        } else if let Some((level, title)) = heading(trimmed) {
            gap(&mut out);
            out.extend(wrap(
                &heading_style(level, &inline(title, theme), theme),
                width,
            ));
        } else if is_rule(trimmed) {
            gap(&mut out);
            out.push(theme.fg(theme.colors.md_hr, &"─".repeat(width)));
        } else if let Some(item) = list_item(line) {
            if !was_list {
                gap(&mut out);
            }
            prev_list = true;
            list_line(&item, width, theme, &mut out);
        } else if let Some(q) = trimmed.strip_prefix('>') {
            if !was_quote {
                gap(&mut out);
            }
            prev_quote = true;
            let body = italic(&theme.fg(theme.colors.md_quote, &inline(q.trim_start(), theme)));
            let border = theme.fg(theme.colors.md_quote_border, "│ ");
            for l in wrap(&body, width - 2) {
                out.push(format!("{border}{l}"));
            }
        } else {
            para.push(line);
        }
    }
    flush_paragraph(&mut para, &mut out, width, theme, &mut gap);
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

fn flush_paragraph(
    para: &mut Vec<&str>,
    out: &mut Vec<String>,
    width: usize,
    theme: &Theme,
    gap: &mut impl FnMut(&mut Vec<String>),
) {
    if para.is_empty() {
        return;
    }
    gap(out);
    if is_table(para) {
        out.extend(render_table(para, width, theme));
    } else {
        let joined = para.join("\n");
        out.extend(wrap(&inline(&joined, theme), width));
    }
    para.clear();
}

fn heading_style(level: usize, text: &str, theme: &Theme) -> String {
    let c = theme.colors.md_heading;
    match level {
        1 => theme.fg(c, &bold(&underline(text))),
        2 => theme.fg(c, &bold(text)),
        _ => theme.fg(c, &bold(&format!("{} {text}", "#".repeat(level)))),
    }
}

fn code_block(code: &[&str], lang: &str, width: usize, theme: &Theme, out: &mut Vec<String>) {
    let border = theme.colors.md_code_block_border;
    out.push(theme.fg(border, &format!("```{lang}")));
    let indent = "  ";
    for line in code {
        let expanded = line.replace('\t', "    ");
        let painted = highlight_line(&expanded, lang, theme);
        for l in wrap_code(&painted, width - indent.len()) {
            out.push(format!("{indent}{l}"));
        }
    }
    out.push(theme.fg(border, "```"));
}

/// Code keeps its spaces: it is cut into width-sized pieces, not word-wrapped.
fn wrap_code(line: &str, width: usize) -> Vec<String> {
    if crate::ansi::visible_width(line) <= width {
        return vec![line.to_string()];
    }
    wrap(line, width)
}

/// A list item: nesting depth, marker (`-` or `3.`), text.
pub(crate) struct Item<'a> {
    depth: usize,
    marker: String,
    text: &'a str,
}

pub(crate) fn list_item(line: &str) -> Option<Item<'_>> {
    let indent = line.len() - line.trim_start().len();
    let t = line.trim_start();
    let depth = indent / 2;
    for bullet in ["- ", "* ", "+ "] {
        if let Some(text) = t.strip_prefix(bullet) {
            if is_rule(t) {
                return None;
            }
            return Some(Item {
                depth,
                marker: "-".into(),
                text,
            });
        }
    }
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && digits < 10 {
        let rest = &t[digits..];
        if let Some(text) = rest.strip_prefix(". ").or_else(|| rest.strip_prefix(") ")) {
            return Some(Item {
                depth,
                marker: format!("{}.", &t[..digits]),
                text,
            });
        }
    }
    None
}

fn list_line(item: &Item<'_>, width: usize, theme: &Theme, out: &mut Vec<String>) {
    let pad = "  ".repeat(item.depth);
    let marker = format!("{pad}{} ", item.marker);
    let hang = crate::ansi::visible_width(&marker);
    let body_width = width.saturating_sub(hang).max(1);
    let painted_marker = theme.fg(theme.colors.md_list_bullet, &marker);
    for (i, l) in wrap(&inline(item.text, theme), body_width)
        .into_iter()
        .enumerate()
    {
        if i == 0 {
            out.push(format!("{painted_marker}{l}"));
        } else {
            out.push(format!("{}{l}", " ".repeat(hang)));
        }
    }
}

pub(crate) fn is_fence(t: &str) -> Option<(&'static str, &str)> {
    for fence in ["```", "~~~"] {
        if let Some(rest) = t.strip_prefix(fence) {
            return Some((fence, rest.trim()));
        }
    }
    None
}

pub(crate) fn heading(t: &str) -> Option<(usize, &str)> {
    let level = t.bytes().take_while(|b| *b == b'#').count();
    if (1..=6).contains(&level) {
        let rest = &t[level..];
        if rest.is_empty() || rest.starts_with(' ') {
            return Some((level, rest.trim().trim_end_matches('#').trim_end()));
        }
    }
    None
}

pub(crate) fn is_rule(t: &str) -> bool {
    let t = t.trim_end();
    let Some(c) = t.chars().next() else {
        return false;
    };
    matches!(c, '-' | '*' | '_')
        && t.chars().filter(|x| *x == c).count() >= 3
        && t.chars().all(|x| x == c || x == ' ')
}

/// Styles inline markup: code spans, emphasis, strikethrough and links. Unclosed markers are
/// left as typed (a streaming reply shows `**bo` until the closing `**` arrives).
pub fn inline(text: &str, theme: &Theme) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while !rest.is_empty() {
        let Some(pos) = rest.find(['`', '*', '_', '~', '[']) else {
            out.push_str(rest);
            break;
        };
        out.push_str(&rest[..pos]);
        rest = &rest[pos..];
        if let Some((span, len)) = styled_span(rest, text, theme) {
            out.push_str(&span);
            rest = &rest[len..];
        } else {
            let Some(ch) = rest.chars().next() else {
                break;
            };
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

/// The styled form and byte length of the span opening `rest`, if it is closed.
fn styled_span(rest: &str, whole: &str, theme: &Theme) -> Option<(String, usize)> {
    let c = &theme.colors;
    if let Some(body) = rest.strip_prefix('`') {
        let end = body.find('`')?;
        return Some((theme.fg(c.md_code, &body[..end]), end + 2));
    }
    if rest.starts_with('[') {
        let close = rest.find("](")?;
        let url_end = rest[close + 2..].find(')')? + close + 2;
        let label = inline(&rest[1..close], theme);
        let url = &rest[close + 2..url_end];
        let mut s = theme.fg(c.md_link, &underline(&label));
        if url != &rest[1..close] {
            s.push_str(&theme.fg(c.md_link_url, &format!(" ({url})")));
        }
        return Some((s, url_end + 1));
    }
    for (marker, style) in [
        ("**", bold as fn(&str) -> String),
        ("__", bold),
        ("~~", strikethrough),
        ("*", italic),
        ("_", italic),
    ] {
        let Some(body) = rest.strip_prefix(marker) else {
            continue;
        };
        if body.starts_with(' ') || body.is_empty() {
            return None;
        }
        if marker == "_" && is_word_inner(rest, whole) {
            return None;
        }
        let end = body.find(marker)?;
        if end == 0 || body[..end].ends_with(' ') {
            return None;
        }
        return Some((style(&inline(&body[..end], theme)), end + 2 * marker.len()));
    }
    None
}

/// True when the `_` opening `rest` sits inside a word (`snake_case`), which is not emphasis.
fn is_word_inner(rest: &str, whole: &str) -> bool {
    let offset = whole.len() - rest.len();
    whole[..offset]
        .chars()
        .next_back()
        .is_some_and(|c| c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ansi::{strip_ansi, visible_width};

    fn plain(text: &str, width: usize) -> Vec<String> {
        render_markdown(text, width, &Theme::dark())
            .iter()
            .map(|l| strip_ansi(l))
            .collect()
    }

    #[test]
    fn inline_markup_is_styled_and_markers_removed() {
        let t = Theme::dark();
        let s = inline("a **b** *c* `d` snake_case_name [x](http://u)", &t);
        assert_eq!(strip_ansi(&s), "a b c d snake_case_name x (http://u)");
        assert!(s.contains("\x1b[1mb\x1b[22m"));
        assert!(s.contains("\x1b[3mc\x1b[23m"));
    }

    #[test]
    fn unclosed_markers_stay_literal() {
        assert_eq!(strip_ansi(&inline("**bo", &Theme::dark())), "**bo");
        assert_eq!(
            strip_ansi(&inline("2 * 3 * 4", &Theme::dark())),
            "2 * 3 * 4"
        );
    }

    #[test]
    fn blocks_are_separated_and_wrapped() {
        let lines = plain(
            "# T\npara one\n- a\n- b\n\n```rs\nlet x = 1;\n```\ndone",
            20,
        );
        assert_eq!(
            lines,
            vec![
                "T",
                "",
                "para one",
                "",
                "- a",
                "- b",
                "",
                "```rs",
                "  let x = 1;",
                "```",
                "",
                "done"
            ]
        );
        for l in render_markdown("word ".repeat(40).as_str(), 17, &Theme::dark()) {
            assert!(visible_width(&l) <= 17);
        }
    }

    #[test]
    fn unterminated_fence_renders_as_code() {
        assert_eq!(plain("```py\nx = 1", 20), vec!["```py", "  x = 1", "```"]);
    }
}
