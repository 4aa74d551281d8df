//! Identifiers: session ids (UUIDv7, time-ordered) and entry ids (the first 8 hex characters of a
//! random UUIDv4, re-drawn on collision within the file, the full UUID as a last resort).

/// A random UUIDv4 in its canonical lowercase form.
pub fn uuid_v4() -> String {
    let mut bytes = fastrand::u128(..).to_be_bytes();
    bytes[6] = (bytes[6] & 0x0f) | 0x40;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    format_uuid(&bytes)
}

/// A UUIDv7 for `unix_ms`: 48 bits of milliseconds, then random bits, so ids sort by creation.
pub fn uuid_v7(unix_ms: i64) -> String {
    let mut bytes = fastrand::u128(..).to_be_bytes();
    let ms = (unix_ms.max(0) as u64).to_be_bytes();
    bytes[..6].copy_from_slice(&ms[2..]);
    bytes[6] = (bytes[6] & 0x0f) | 0x70;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    format_uuid(&bytes)
}

fn format_uuid(b: &[u8; 16]) -> String {
    let mut s = String::with_capacity(36);
    for (i, byte) in b.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{byte:02x}"));
    }
    s
}

/// Draws a fresh entry id for which `taken` is false: 8 hex characters, up to 100 tries, then a
/// full UUID.
pub fn new_entry_id(taken: impl Fn(&str) -> bool) -> String {
    for _ in 0..100 {
        let id = format!("{:08x}", fastrand::u32(..));
        if !taken(&id) {
            return id;
        }
    }
    uuid_v4()
}

/// pi 1.x's rule for a chosen session id: letters, digits, `.`, `_`, `-`, starting and
/// ending with a letter or digit.
pub fn valid_session_id(id: &str) -> bool {
    let edge = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    edge(id.chars().next())
        && edge(id.chars().last())
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn uuid_shapes() {
        let v4 = uuid_v4();
        assert_eq!(v4.len(), 36);
        assert_eq!(&v4[14..15], "4");
        let v7 = uuid_v7(0x0195_508c_6f10);
        assert!(v7.starts_with("0195508c-6f10-7"), "{v7}");
        assert!(matches!(&v7[19..20], "8" | "9" | "a" | "b"));
    }

    #[test]
    fn entry_ids_avoid_taken() {
        let mut taken = HashSet::new();
        for _ in 0..2000 {
            let id = new_entry_id(|id| taken.contains(id));
            assert_eq!(id.len(), 8);
            assert!(id
                .bytes()
                .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
            assert!(taken.insert(id));
        }
    }
}
