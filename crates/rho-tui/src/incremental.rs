//! Markdown rendering for text that only grows (a streaming reply): the finished blocks at the
//! front are rendered once and cached, and each new token renders only the blocks after the
//! last stable boundary. Without this a long reply costs O(reply) markdown work per token.
//!
//! A boundary is stable when the text before it renders the same whatever follows: the start of
//! a complete line, after a blank line, outside any code fence, that neither continues a list
//! nor a quote (a list item after a list item, or a quote after a quote, join across blank
//! lines). Rendering the two sides separately and joining
//! them with one blank line then gives exactly the lines [`render_markdown`] gives for the whole.

use std::cell::RefCell;

use crate::markdown::{heading, is_fence, is_rule, list_item, render_markdown};
use crate::theme::Theme;

/// The cached front of the text.
#[derive(Debug, Clone)]
struct Front {
    width: usize,
    theme: Theme,
    /// The text rendered so far (a prefix of the current text when the cache is valid).
    text: String,
    lines: Vec<String>,
}

/// A per-component cache; `render` takes `&self`, so the cache lives in a `RefCell`.
#[derive(Debug, Clone, Default)]
pub struct MarkdownCache {
    front: RefCell<Option<Front>>,
}

impl PartialEq for MarkdownCache {
    /// Caches never make two components differ.
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl MarkdownCache {
    /// The lines of `text` at `width`, reusing the cached front when it still applies.
    pub fn render(&self, text: &str, width: usize, theme: &Theme) -> Vec<String> {
        let mut slot = self.front.borrow_mut();
        let valid = slot
            .as_ref()
            .is_some_and(|f| f.width == width && &f.theme == theme && text.starts_with(&f.text));
        if !valid {
            *slot = None;
        }
        let front = slot.get_or_insert_with(|| Front {
            width,
            theme: theme.clone(),
            text: String::new(),
            lines: Vec::new(),
        });
        let split = stable_split(text, front.text.len());
        if split > front.text.len() {
            let more = render_markdown(&text[front.text.len()..split], width, theme);
            join(&mut front.lines, more);
            front.text.push_str(&text[front.text.len()..split]);
        }
        let mut out = front.lines.clone();
        join(&mut out, render_markdown(&text[split..], width, theme));
        out
    }
}

/// Appends `more` after `lines` with the blank line markdown puts between blocks.
fn join(lines: &mut Vec<String>, more: Vec<String>) {
    if more.is_empty() {
        return;
    }
    if !lines.is_empty() {
        lines.push(String::new());
    }
    lines.extend(more);
}

/// The last stable boundary in `text` at or after `from` (which must itself be one, or 0).
pub fn stable_split(text: &str, from: usize) -> usize {
    let mut fence: Option<&'static str> = None;
    let mut prev_blank = false;
    // What the last non-blank line was: a list item, a quote line, or anything else.
    let (mut prev_list, mut prev_quote) = (false, false);
    let mut best = from;
    let mut pos = from;
    for line in text[from..].split_inclusive('\n') {
        let start = pos;
        pos += line.len();
        let Some(l) = line.strip_suffix('\n') else {
            break;
        };
        let l = l.strip_suffix('\r').unwrap_or(l);
        let trimmed = l.trim_start();
        if let Some(f) = fence {
            if trimmed.starts_with(f) && trimmed.trim().trim_start_matches(f).is_empty() {
                fence = None;
            }
            (prev_blank, prev_list, prev_quote) = (false, false, false);
            continue;
        }
        if trimmed.is_empty() {
            prev_blank = true;
            continue;
        }
        let opens_fence = is_fence(trimmed);
        let is_list = opens_fence.is_none()
            && heading(trimmed).is_none()
            && !is_rule(trimmed)
            && list_item(l).is_some();
        let is_quote = opens_fence.is_none() && !is_list && trimmed.starts_with('>');
        if prev_blank && !(is_list && prev_list) && !(is_quote && prev_quote) {
            best = start;
        }
        (prev_blank, prev_list, prev_quote) = (false, is_list, is_quote);
        if let Some((f, _)) = opens_fence {
            fence = Some(f);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "# Title\n\nSome *text* here.\nSecond line.\n\n- a\n\n- b\n  - c\n\nAfter list.\n\n- x\nlazy\n\n- y\n\n> q\n\n- z\n\n```rust\nfn x() {}\n\nlet y = 1;\n```\n\n> quote\n\n> more quote\n\nEnd `code` and **bold**.\n\n---\n\n1. one\n2. two\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\nDone.";

    #[test]
    fn streaming_char_by_char_matches_a_full_render() {
        let theme = Theme::dark();
        for width in [30, 12] {
            let cache = MarkdownCache::default();
            for (i, _) in SAMPLE.char_indices().chain([(SAMPLE.len(), ' ')]) {
                let prefix = &SAMPLE[..i];
                assert_eq!(
                    cache.render(prefix, width, &theme),
                    render_markdown(prefix, width, &theme),
                    "prefix {prefix:?} at {width}"
                );
            }
            assert!(
                cache.front.borrow().as_ref().expect("cached").text.len() > SAMPLE.len() / 2,
                "most of the text was cached"
            );
        }
    }

    #[test]
    fn width_theme_or_text_changes_invalidate() {
        let cache = MarkdownCache::default();
        let dark = Theme::dark();
        let text = "para one\n\npara two\n\nthree";
        assert_eq!(
            cache.render(text, 30, &dark),
            render_markdown(text, 30, &dark)
        );
        assert_eq!(
            cache.render(text, 5, &dark),
            render_markdown(text, 5, &dark)
        );
        let light = Theme::light();
        assert_eq!(
            cache.render(text, 5, &light),
            render_markdown(text, 5, &light)
        );
        let other = "other\n\ntext";
        assert_eq!(
            cache.render(other, 5, &light),
            render_markdown(other, 5, &light)
        );
    }

    #[test]
    fn boundaries_skip_fences_lists_and_quotes() {
        assert_eq!(stable_split("a\n\nb\n", 0), 3);
        assert_eq!(stable_split("a\n\nb", 0), 0, "incomplete line");
        assert_eq!(stable_split("```\na\n\nb\n", 0), 0, "inside a fence");
        assert_eq!(stable_split("- a\n\n- b\n", 0), 0, "list continues");
        assert_eq!(stable_split("> a\n\n> b\n", 0), 0, "quote continues");
        assert_eq!(
            stable_split("p\n\n- a\n\n> q\n", 0),
            8,
            "after a list, a quote"
        );
        assert_eq!(
            stable_split("- a\n\n---\n\n- b\n", 0),
            10,
            "a rule ends the list"
        );
    }
}
