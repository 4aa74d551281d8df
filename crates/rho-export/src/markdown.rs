//! Markdown to HTML for the exported page. The page is opened in a browser and may be shared,
//! so what a model or a user wrote must never become markup: raw HTML is shown as text, links
//! keep only harmless schemes, and images become links (the page loads nothing from outside).

use pulldown_cmark::{CowStr, Event, LinkType, Options, Parser, Tag, TagEnd};

/// Renders `text` (CommonMark with tables, strikethrough and task lists) to safe HTML.
pub fn to_html(text: &str) -> String {
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM;
    let mut html = String::with_capacity(text.len() + text.len() / 2);
    let events = Parser::new_ext(text, options).map(make_safe);
    pulldown_cmark::html::push_html(&mut html, events);
    html
}

/// Turns raw HTML into text, unsafe link targets into `#`, and images into links.
fn make_safe(event: Event<'_>) -> Event<'_> {
    match event {
        Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
        Event::Start(Tag::Link {
            link_type,
            dest_url,
            title,
            id,
        }) => Event::Start(Tag::Link {
            link_type,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::Start(Tag::Image {
            dest_url,
            title,
            id,
            ..
        }) => Event::Start(Tag::Link {
            link_type: LinkType::Inline,
            dest_url: safe_url(dest_url),
            title,
            id,
        }),
        Event::End(TagEnd::Image) => Event::End(TagEnd::Link),
        other => other,
    }
}

/// Keeps http(s), mailto, fragment and relative targets; anything else (`javascript:`,
/// `data:`, `vbscript:`) becomes `#`.
fn safe_url(url: CowStr<'_>) -> CowStr<'_> {
    let lower = url.trim().to_ascii_lowercase();
    let scheme = lower
        .split_once(':')
        .map(|(s, _)| s)
        .filter(|s| !s.contains('/') && !s.contains('#') && !s.contains('?'));
    match scheme {
        None | Some("http" | "https" | "mailto") => url,
        Some(_) => CowStr::Borrowed("#"),
    }
}

#[cfg(test)]
mod tests {
    use super::to_html;

    #[test]
    fn renders_markdown_and_neutralises_markup() {
        let html = to_html(
            "**bold** `code` <script>alert(1)</script>\n\n[x](javascript:alert(1)) [ok](https://a.b/c) ![img](https://t.example/p.png)\n\n```rust\nlet a = 1 < 2;\n```",
        );
        insta::assert_snapshot!(html);
        assert!(!html.contains("<script"), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("<img"), "{html}");
    }
}
