//! models-store.json on real files: entries kept, the lock, a broken file reported and rebuilt.

use std::sync::{Arc, Mutex};

use serde_json::json;

use super::*;

fn store(dir: &tempfile::TempDir) -> (ModelsStore, Arc<Mutex<Vec<String>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let warn: Warn = Arc::new(move |w| sink.lock().expect("warnings").push(w));
    (ModelsStore::new(dir.path(), warn), seen)
}

fn entry(id: &str) -> StoreEntry {
    StoreEntry {
        models: vec![json!({"id": id})],
        checked_at: Some(1_700_000_000_000),
        ..StoreEntry::default()
    }
}

#[tokio::test]
async fn writing_one_provider_keeps_the_others_and_unknown_fields() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(FILE_NAME);
    let pi_wrote = json!({"xai": {"models": [], "checkedAt": 5, "lastModified": 0,
                                  "futureField": true}});
    std::fs::write(&path, pi_wrote.to_string()).expect("write");
    let (store, warnings) = store(&dir);
    assert_eq!(store.entry("xai").and_then(|e| e.checked_at), Some(5));
    store
        .write("groq", Some(&entry("m1")))
        .await
        .expect("write");
    let text = std::fs::read_to_string(&path).expect("read");
    assert!(
        text.starts_with("{\n  \""),
        "pretty, as pi writes it: {text}"
    );
    let value: Value = serde_json::from_str(&text).expect("json");
    assert_eq!(value["xai"]["futureField"], true);
    assert_eq!(value["groq"]["models"][0]["id"], "m1");
    assert_eq!(value["groq"]["checkedAt"], 1_700_000_000_000_i64);
    assert!(
        value["groq"].get("etag").is_none(),
        "absent fields are not written"
    );
    assert_eq!(
        store.entry("groq").map(|e| e.models.len()),
        Some(1),
        "read again after the write"
    );
    store.write("xai", None).await.expect("delete");
    assert!(!store.has_entry("xai"));
    assert!(
        !dir.path().join("models-store.json.lock").exists(),
        "lock released"
    );
    assert!(warnings.lock().expect("warnings").is_empty());
}

#[tokio::test]
async fn a_broken_file_is_reported_read_as_empty_and_rebuilt_by_the_next_write() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join(FILE_NAME);
    std::fs::write(&path, "{\"xai\": {\"models\": [").expect("write");
    let (store, warnings) = store(&dir);
    assert!(store.entry("xai").is_none());
    let first = warnings.lock().expect("warnings").clone();
    assert_eq!(first.len(), 1, "{first:?}");
    assert!(first[0].contains(&path.display().to_string()), "{first:?}");
    assert!(first[0].contains("rho update --models"), "{first:?}");
    store
        .write("groq", Some(&entry("m1")))
        .await
        .expect("write");
    let seen = warnings.lock().expect("warnings").clone();
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(seen[1].ends_with("rebuilding it"), "{seen:?}");
    let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).expect("read"))
        .expect("valid JSON again");
    assert_eq!(value.as_object().map(|o| o.len()), Some(1));
}

#[tokio::test]
async fn a_write_waits_for_the_lock_another_process_holds() {
    let dir = tempfile::tempdir().expect("tempdir");
    let (store, _) = store(&dir);
    let held = FileLock::acquire(store.path(), WAIT).await.expect("lock");
    let store = Arc::new(store);
    let writer = tokio::spawn({
        let store = store.clone();
        async move { store.write("groq", Some(&entry("m1"))).await }
    });
    // The lock holder (pi, say) finishes its own write first.
    let theirs = json!({"xai": {"models": [], "checkedAt": 1}}).to_string();
    std::fs::write(store.path(), theirs).expect("write");
    drop(held);
    writer.await.expect("joined").expect("written");
    store.invalidate();
    assert!(store.has_entry("xai") && store.has_entry("groq"));
}

#[test]
fn a_provider_the_file_only_mentions_as_a_value_has_no_entry() {
    assert!(names_key("{\"xai\" : {}}", "xai"));
    assert!(!names_key(
        "{\"a\": {\"cacheControlFormat\": \"xai\"}}",
        "xai"
    ));
    let dir = tempfile::tempdir().expect("tempdir");
    let text = json!({"openrouter": {"models": [{"cacheControlFormat": "anthropic"}]}});
    std::fs::write(dir.path().join(FILE_NAME), text.to_string()).expect("write");
    let (store, _) = store(&dir);
    assert!(!store.has_entry("anthropic"));
    assert!(store.has_entry("openrouter"));
}
