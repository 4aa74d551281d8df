//! A session much larger than one decoding batch (lines are decoded on worker threads in
//! batches of about 256 KB): damaged lines spread over many batches must give the same
//! entries, in file order, and the same warnings, in line order, as a line-by-line load.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::Write;

use rho_session::{load_file, EntryData};

const ENTRIES: usize = 6_000;
/// Lines (1-based, the header is line 1) replaced by damage, and what each holds.
const INVALID_JSON: usize = 700;
const BAD_UTF8: usize = 2_900;
const UNKNOWN_TYPE: usize = 4_100;

fn entry_line(i: usize) -> String {
    let parent = match i {
        0 => "null".to_string(),
        _ => format!("\"{:08x}\"", i - 1),
    };
    let text = format!("entry {i} ").repeat(90);
    format!(
        r#"{{"type":"message","id":"{i:08x}","parentId":{parent},"timestamp":"2025-03-01T09:15:02.481Z","message":{{"role":"user","content":[{{"type":"text","text":"{text}"}}],"timestamp":{i}}}}}"#
    )
}

#[test]
fn damage_spread_over_many_batches_is_reported_in_line_order() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("long.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    writeln!(
        file,
        r#"{{"type":"session","version":3,"id":"s","timestamp":"t","cwd":"/tmp"}}"#
    )
    .unwrap();
    for i in 0..ENTRIES {
        let line = i + 2;
        let text = match line {
            INVALID_JSON => b"{\"type\":\"message\",".to_vec(),
            BAD_UTF8 => b"{\"type\":\"label\",\"id\":\"\xff\xfe\"}".to_vec(),
            UNKNOWN_TYPE => entry_line(i)
                .replacen("\"message\"", "\"future_kind\"", 1)
                .into_bytes(),
            _ => entry_line(i).into_bytes(),
        };
        file.write_all(&text).unwrap();
        file.write_all(b"\n").unwrap();
    }
    file.write_all(b"{\"type\":\"message\",\"id\":\"torn")
        .unwrap();
    drop(file);
    let size = std::fs::metadata(&path).unwrap().len();
    assert!(size > 4 * 1024 * 1024, "many batches: {size} bytes");

    let loaded = load_file(&path).expect("loads");
    let lines: Vec<usize> = loaded.warnings.iter().map(|w| w.line).collect();
    assert_eq!(
        lines,
        [INVALID_JSON, BAD_UTF8, UNKNOWN_TYPE, ENTRIES + 2],
        "{:#?}",
        loaded.warnings
    );
    assert!(loaded.warnings[2].message.contains("future_kind"));
    assert!(loaded.warnings[3]
        .message
        .starts_with("incomplete last line"));
    assert_eq!(
        loaded.entries.len(),
        ENTRIES - 2,
        "two damaged lines skipped"
    );
    let expected: Vec<String> = (0..ENTRIES)
        .filter(|i| ![INVALID_JSON, BAD_UTF8].contains(&(i + 2)))
        .map(|i| format!("{i:08x}"))
        .collect();
    let ids: Vec<&str> = loaded.entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, expected, "entries in file order");
    let unknown = &loaded.entries[UNKNOWN_TYPE - 2 - 2];
    assert!(
        matches!(&unknown.data, EntryData::Unknown { entry_type, .. } if entry_type == "future_kind")
    );
    assert_eq!(loaded.valid_len, size, "appends go after the torn tail");
    assert!(loaded.needs_newline);
}

/// Blank lines and CRLF line ends spread over many blocks count in the line numbers of
/// warnings, and the entries after them load.
#[test]
fn blank_lines_and_crlf_across_blocks_keep_line_numbers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("blank.jsonl");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).expect("create"));
    write!(
        file,
        "\n  \r\n{{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/tmp\"}}\r\n"
    )
    .unwrap();
    let mut line = 3;
    let mut bad_at = Vec::new();
    for i in 0..ENTRIES {
        if i % 500 == 0 {
            file.write_all(b" \t \r\n\n").unwrap();
            line += 2;
        }
        line += 1;
        if i % 1_500 == 7 {
            file.write_all(b"not json\r\n").unwrap();
            bad_at.push(line);
            line += 1;
        }
        file.write_all(entry_line(i).as_bytes()).unwrap();
        file.write_all(b"\r\n").unwrap();
    }
    drop(file);
    let loaded = load_file(&path).expect("loads");
    let lines: Vec<usize> = loaded.warnings.iter().map(|w| w.line).collect();
    assert_eq!(lines, bad_at, "{:#?}", loaded.warnings);
    assert_eq!(loaded.entries.len(), ENTRIES);
    assert_eq!(
        loaded.entries[ENTRIES - 1].id,
        format!("{:08x}", ENTRIES - 1)
    );
    assert!(!loaded.needs_newline);
}
