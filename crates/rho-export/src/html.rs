//! The page: a header with the session's facts and totals, the tree of every branch in a
//! sidebar with a search box, and the entries. Without scripts every entry shows, branch by
//! branch; with them the page shows the path to the selected node (the current leaf first),
//! and the search filters the tree. CSS and script are inline: the page is one file.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use rho_protocol::agent::AgentMessage;
use rho_session::{SessionHeader, SessionTree};

use super::html_entry::call_titles;
use super::html_tree::{row_text, walk, Node};
use super::{escape, title};

const STYLE: &str = include_str!("viewer.css");
const SCRIPT: &str = include_str!("viewer.js");

/// The whole page for a session.
pub fn page(header: &SessionHeader, tree: &SessionTree) -> String {
    let calls = call_titles(tree.entries());
    let nodes = walk(tree, &calls);
    let title = escape(&title(header, tree));
    let shown: std::collections::HashSet<&str> =
        nodes.iter().map(|n| n.entry.id.as_str()).collect();
    let on_path: std::collections::HashSet<&str> =
        tree.branch().iter().map(|e| e.id.as_str()).collect();
    let leaf = tree
        .branch()
        .iter()
        .rev()
        .map(|e| e.id.as_str())
        .find(|id| shown.contains(id))
        .unwrap_or("");
    let mut html = String::with_capacity(16 * 1024);
    let _ = write!(
        html,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>{title}</title><style>{STYLE}</style></head>\n<body>\n"
    );
    sidebar(&mut html, &nodes, tree, &calls, &on_path, leaf);
    let _ = write!(html, "<main>\n<header><h1>{title}</h1>\n");
    facts(&mut html, header, tree);
    html.push_str(
        "<div class=\"toolbar\"><button type=\"button\" id=\"toggle-tools\">Expand tools</button>\
         <button type=\"button\" id=\"toggle-thinking\">Expand thinking</button></div></header>\n",
    );
    let _ = writeln!(html, "<div id=\"entries\" data-leaf=\"{}\">", escape(leaf));
    for node in &nodes {
        let _ = writeln!(
            html,
            "<section class=\"entry {}\" id=\"e-{id}\" data-id=\"{id}\" data-parent=\"{}\">{}</section>",
            node.class,
            escape(node.parent.unwrap_or("")),
            node.body,
            id = escape(&node.entry.id),
        );
    }
    let _ = write!(
        html,
        "</div>\n</main>\n<script>{SCRIPT}</script>\n</body></html>\n"
    );
    html
}

fn sidebar(
    html: &mut String,
    nodes: &[Node<'_>],
    tree: &SessionTree,
    calls: &super::html_entry::Calls,
    on_path: &std::collections::HashSet<&str>,
    leaf: &str,
) {
    html.push_str(
        "<aside id=\"sidebar\"><input id=\"search\" type=\"search\" placeholder=\"Search (/)\" \
         aria-label=\"Search the session\"><div id=\"search-count\"></div><nav id=\"tree\">\n",
    );
    for node in nodes {
        let id = node.entry.id.as_str();
        let mut class = format!("node {}", node.class);
        if on_path.contains(id) {
            class.push_str(" on-path");
        }
        if id == leaf {
            class.push_str(" selected");
        }
        let label = tree
            .label(id)
            .map(|l| format!("<span class=\"label\">{}</span> ", escape(l)))
            .unwrap_or_default();
        let _ = writeln!(
            html,
            "<a class=\"{class}\" href=\"#e-{id}\" data-id=\"{id}\" style=\"--depth:{}\">{label}{}</a>",
            node.depth,
            escape(&row_text(node.entry, calls)),
            id = escape(id),
        );
    }
    html.push_str("</nav></aside>\n");
}

/// Session id, directory, creation time, models used and the totals of every reply.
fn facts(html: &mut String, header: &SessionHeader, tree: &SessionTree) {
    let (mut input, mut output, mut cost, mut messages) = (0u64, 0u64, 0f64, 0usize);
    let mut models = BTreeSet::new();
    for entry in tree.entries() {
        let Some(m) = entry.message() else { continue };
        messages += 1;
        if let AgentMessage::Assistant(a) = &*m {
            input += a.usage.input;
            output += a.usage.output;
            cost += a.usage.cost.total;
            models.insert(format!("{}/{}", a.provider, a.model));
        }
    }
    let models = models.into_iter().collect::<Vec<_>>().join(", ");
    let rows = [
        ("Session", header.id.clone()),
        ("Directory", header.cwd.clone()),
        ("Created", header.timestamp.clone()),
        ("Models", models),
        (
            "Totals",
            format!("{messages} messages · ↑{input} ↓{output} tokens · ${cost:.4}"),
        ),
    ];
    html.push_str("<dl class=\"facts\">");
    for (k, v) in rows {
        if !v.is_empty() {
            let _ = write!(html, "<dt>{k}</dt><dd>{}</dd>", escape(&v));
        }
    }
    html.push_str("</dl>\n");
}
