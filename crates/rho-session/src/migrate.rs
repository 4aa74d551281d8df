//! Upgrading files written by older pi versions to format 3 (interfaces spec §4.6).
//!
//! Migration works on the lines as ordered key lists whose values stay raw JSON text, so keys
//! keep their order and nested data (messages, extension details) is rewritten byte for byte;
//! only the keys the migration touches change, set in place or appended as JavaScript would.

use std::collections::HashSet;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::entry::CURRENT_VERSION;
use super::ids::new_entry_id;

/// A JSON object as an ordered list of keys and raw values.
#[derive(Debug)]
pub(crate) struct OrderedObject(Vec<(String, Box<RawValue>)>);

impl OrderedObject {
    fn get(&self, key: &str) -> Option<&RawValue> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| &**v)
    }

    fn get_str(&self, key: &str) -> Option<String> {
        serde_json::from_str::<String>(self.get(key)?.get()).ok()
    }

    /// Sets `key` where it is, or appends it.
    fn set(&mut self, key: &str, value: &impl Serialize) -> Result<(), serde_json::Error> {
        let raw = serde_json::value::to_raw_value(value)?;
        match self.0.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = raw,
            None => self.0.push((key.to_string(), raw)),
        }
        Ok(())
    }

    fn remove(&mut self, key: &str) -> Option<Box<RawValue>> {
        let at = self.0.iter().position(|(k, _)| k == key)?;
        Some(self.0.remove(at).1)
    }
}

impl<'de> Deserialize<'de> for OrderedObject {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = OrderedObject;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OrderedObject, A::Error> {
                let mut pairs = Vec::new();
                while let Some(pair) = map.next_entry::<String, Box<RawValue>>()? {
                    pairs.push(pair);
                }
                Ok(OrderedObject(pairs))
            }
        }
        d.deserialize_map(V)
    }
}

impl Serialize for OrderedObject {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

/// Migrates the lines of a file (header first) from `version` to the current version and
/// returns the rewritten lines. `Err` carries the 0-based index of a line that is not an object.
pub(crate) fn migrate_lines(lines: &[String], version: u32) -> Result<Vec<String>, MigrateError> {
    let mut objects = Vec::with_capacity(lines.len());
    for (i, line) in lines.iter().enumerate() {
        let obj = serde_json::from_str::<OrderedObject>(line).map_err(|e| MigrateError {
            index: i,
            reason: e.to_string(),
        })?;
        objects.push(obj);
    }
    let fail = |index: usize| {
        move |e: serde_json::Error| MigrateError {
            index,
            reason: e.to_string(),
        }
    };
    if version < 2 {
        v1_to_v2(&mut objects).map_err(fail(0))?;
    }
    if version < 3 {
        for (i, obj) in objects.iter_mut().enumerate().skip(1) {
            v2_to_v3(obj).map_err(fail(i))?;
        }
    }
    objects[0]
        .set("version", &CURRENT_VERSION)
        .map_err(fail(0))?;
    objects
        .iter()
        .enumerate()
        .map(|(i, o)| serde_json::to_string(o).map_err(fail(i)))
        .collect()
}

/// A line migration could not handle.
#[derive(Debug)]
pub(crate) struct MigrateError {
    /// 0-based index into the lines given.
    pub index: usize,
    /// Why.
    pub reason: String,
}

/// Gives every entry an id and chains them linearly; turns `firstKeptEntryIndex` into an id.
fn v1_to_v2(objects: &mut [OrderedObject]) -> Result<(), serde_json::Error> {
    let mut taken = HashSet::new();
    let mut ids = vec![None];
    let mut prev: Option<String> = None;
    for obj in objects.iter_mut().skip(1) {
        let id = new_entry_id(|id| taken.contains(id));
        taken.insert(id.clone());
        obj.set("id", &id)?;
        obj.set("parentId", &prev)?;
        ids.push(Some(id.clone()));
        prev = Some(id);
    }
    for obj in objects.iter_mut().skip(1) {
        if obj.get_str("type").as_deref() != Some("compaction") {
            continue;
        }
        let Some(raw) = obj.remove("firstKeptEntryIndex") else {
            continue;
        };
        let index = serde_json::from_str::<usize>(raw.get()).ok();
        let target = index.and_then(|i| ids.get(i).cloned().flatten());
        obj.set("firstKeptEntryId", &target.unwrap_or_default())?;
    }
    Ok(())
}

/// Renames the `hookMessage` role to `custom`.
fn v2_to_v3(obj: &mut OrderedObject) -> Result<(), serde_json::Error> {
    if obj.get_str("type").as_deref() != Some("message") {
        return Ok(());
    }
    let Some(raw) = obj.get("message") else {
        return Ok(());
    };
    let mut message: OrderedObject = serde_json::from_str(raw.get())?;
    if message.get_str("role").as_deref() == Some("hookMessage") {
        message.set("role", &"custom")?;
        obj.set("message", &message)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    #[test]
    fn v1_gets_ids_chain_and_kept_id() {
        let input = lines(concat!(
            r#"{"type":"session","id":"s1","timestamp":"t","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"a","timestamp":1}}"#,
            "\n",
            r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"b","timestamp":2}}"#,
            "\n",
            r#"{"type":"compaction","timestamp":"t","summary":"s","firstKeptEntryIndex":2,"tokensBefore":9}"#,
        ));
        let out = migrate_lines(&input, 1).expect("migrates");
        assert_eq!(
            out[0],
            r#"{"type":"session","id":"s1","timestamp":"t","cwd":"/w","version":3}"#
        );
        let v: Vec<Value> = out
            .iter()
            .map(|l| serde_json::from_str(l).expect("json"))
            .collect();
        assert_eq!(v[1]["parentId"], Value::Null);
        assert_eq!(v[2]["parentId"], v[1]["id"]);
        assert_eq!(v[3]["parentId"], v[2]["id"]);
        assert_eq!(v[3]["firstKeptEntryId"], v[2]["id"]);
        assert!(v[3].get("firstKeptEntryIndex").is_none());
        assert!(out[1].starts_with(r#"{"type":"message","timestamp":"t","message":{"role":"user","content":"a","timestamp":1},"id":""#));
    }

    #[test]
    fn v2_hook_message_becomes_custom_in_place() {
        let input = lines(concat!(
            r#"{"type":"session","version":2,"id":"s1","timestamp":"t","cwd":"/w"}"#,
            "\n",
            r#"{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"t","message":{"role":"hookMessage","customType":"x","content":"c","display":false,"timestamp":1}}"#,
        ));
        let out = migrate_lines(&input, 2).expect("migrates");
        assert_eq!(
            out[0],
            r#"{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/w"}"#
        );
        assert_eq!(
            out[1],
            r#"{"type":"message","id":"aaaaaaaa","parentId":null,"timestamp":"t","message":{"role":"custom","customType":"x","content":"c","display":false,"timestamp":1}}"#
        );
    }
}
