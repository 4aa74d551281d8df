//! The entry tree as pi 1.x's `get_tree` returns it: every entry once, under its parent,
//! children oldest first, each with the label set on it and when; entries whose parent is
//! missing (or themselves) are roots, as in pi.

use std::collections::HashMap;

use rho_protocol::rpc::{SessionTreeReply, TreeNode};

use super::entry::EntryData;
use super::tree::SessionTree;

impl SessionTree {
    /// The whole tree, flat (see [`SessionTreeReply`]), with the current leaf.
    pub fn tree_view(&self) -> SessionTreeReply<'_> {
        let entries = self.entries();
        let position: HashMap<&str, usize> = entries
            .iter()
            .enumerate()
            .map(|(i, e)| (e.id.as_str(), i))
            .collect();
        let mut labels: HashMap<&str, (&str, &str)> = HashMap::new();
        for e in entries {
            if let EntryData::Label { target_id, label } = &e.data {
                match label {
                    Some(l) => labels.insert(target_id, (l, &e.timestamp)),
                    None => labels.remove(target_id.as_str()),
                };
            }
        }
        let mut nodes: Vec<TreeNode<'_>> = entries
            .iter()
            .map(|entry| {
                let label = labels.get(entry.id.as_str());
                TreeNode {
                    entry,
                    children: Vec::new(),
                    label: label.map(|l| l.0),
                    label_timestamp: label.map(|l| l.1),
                }
            })
            .collect();
        let mut roots = Vec::new();
        for (i, e) in entries.iter().enumerate() {
            let parent = e
                .parent_id
                .as_deref()
                .filter(|p| *p != e.id)
                .and_then(|p| position.get(p));
            match parent {
                Some(&p) => nodes[p].children.push(i),
                None => roots.push(i),
            }
        }
        // Oldest first (ISO timestamps sort as text); a stable sort keeps file order for ties.
        for node in &mut nodes {
            node.children
                .sort_by(|a, b| entries[*a].timestamp.cmp(&entries[*b].timestamp));
        }
        SessionTreeReply {
            nodes,
            roots,
            leaf_id: self.leaf_id(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::entry::SessionEntry;

    fn entry(id: &str, parent: Option<&str>, at: &str, data: EntryData) -> SessionEntry {
        SessionEntry {
            id: id.into(),
            parent_id: parent.map(str::to_string),
            timestamp: format!("2026-01-01T00:00:0{at}.000Z"),
            data,
        }
    }

    fn info() -> EntryData {
        EntryData::SessionInfo { name: None }
    }

    fn json(tree: &SessionTree) -> serde_json::Value {
        let bytes = tree.tree_view().to_json().expect("encodes");
        serde_json::from_slice(&bytes).expect("valid JSON")
    }

    #[test]
    fn children_sit_under_parents_oldest_first_with_labels() {
        let label = |l: Option<&str>| EntryData::Label {
            target_id: "b".into(),
            label: l.map(str::to_string),
        };
        let tree = SessionTree::from_entries(vec![
            entry("a", None, "1", info()),
            entry("c", Some("a"), "5", info()),
            entry("b", Some("a"), "2", info()),
            entry("l1", Some("c"), "6", label(Some("old"))),
            entry("l2", Some("l1"), "7", label(Some("first-question"))),
        ]);
        let v = json(&tree);
        assert_eq!(v["leafId"], "l2");
        let root = &v["tree"][0];
        assert_eq!(root["entry"]["id"], "a");
        let kids: Vec<_> = root["children"]
            .as_array()
            .expect("children")
            .iter()
            .map(|c| c["entry"]["id"].clone())
            .collect();
        assert_eq!(kids, ["b", "c"]);
        assert_eq!(root["children"][0]["label"], "first-question");
        assert_eq!(
            root["children"][0]["labelTimestamp"],
            "2026-01-01T00:00:07.000Z"
        );
        assert!(root.get("label").is_none());
        assert_eq!(root["children"][1]["children"][0]["entry"]["id"], "l1");
    }

    #[test]
    fn orphans_and_self_parents_are_roots() {
        let tree = SessionTree::from_entries(vec![
            entry("a", None, "1", info()),
            entry("b", Some("gone"), "2", info()),
            entry("c", Some("c"), "3", info()),
        ]);
        let v = json(&tree);
        let roots: Vec<_> = v["tree"]
            .as_array()
            .expect("roots")
            .iter()
            .map(|n| n["entry"]["id"].clone())
            .collect();
        assert_eq!(roots, ["a", "b", "c"]);
        assert_eq!(
            json(&SessionTree::default()),
            serde_json::json!({"tree": [], "leafId": null})
        );
    }

    #[test]
    fn a_deep_chain_encodes_without_recursion() {
        let mut entries = vec![entry("e0", None, "1", info())];
        for i in 1..200_000 {
            let parent = format!("e{}", i - 1);
            entries.push(entry(&format!("e{i}"), Some(&parent), "1", info()));
        }
        let tree = SessionTree::from_entries(entries);
        let bytes = tree.tree_view().to_json().expect("encodes");
        assert!(bytes.ends_with(br#"]}],"leafId":"e199999"}"#));
    }
}
