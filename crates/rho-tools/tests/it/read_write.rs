//! `read` and `write` against real files.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::io::Cursor;

use base64::Engine as _;
use common::{run, text, TempDir};
use rho_protocol::ContentBlock;
use rho_tools::{ReadOptions, ReadTool, WriteTool};
use serde_json::json;

fn png(w: u32, h: u32) -> Vec<u8> {
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        image::Rgb([(x * 7 % 256) as u8, (y * 3 % 256) as u8, 90])
    });
    let mut out = Vec::new();
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut Cursor::new(&mut out), image::ImageFormat::Png)
        .expect("encode");
    out
}

fn reader(dir: &TempDir) -> ReadTool {
    ReadTool::new(dir.path(), ReadOptions::default())
}

#[tokio::test]
async fn reads_a_text_file_relative_to_cwd() {
    let dir = TempDir::new();
    dir.write("src/a.txt", "one\ntwo\nthree\n");
    let out = run(&reader(&dir), json!({"path": "src/a.txt"}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "one\ntwo\nthree\n");
    assert_eq!(out.details, None);
}

#[tokio::test]
async fn reads_a_page_with_offset_and_limit() {
    let dir = TempDir::new();
    let body: String = (1..=10).map(|i| format!("line {i}\n")).collect();
    dir.write("a.txt", body);
    let out = run(
        &reader(&dir),
        json!({"path": "a.txt", "offset": 3, "limit": 2}),
    )
    .await
    .expect("ok");
    assert_eq!(
        text(&out),
        "line 3\nline 4\n\n[7 more lines in file. Use offset=5 to continue.]"
    );
}

#[tokio::test]
async fn truncates_long_files_at_2000_lines_with_details() {
    let dir = TempDir::new();
    let body: String = (1..=3000).map(|i| format!("{i}\n")).collect();
    dir.write("long.txt", body);
    let out = run(&reader(&dir), json!({"path": "long.txt"}))
        .await
        .expect("ok");
    assert!(text(&out)
        .ends_with("2000\n\n[Showing lines 1-2000 of 3001. Use offset=2001 to continue.]"));
    let t = &out.details.expect("details")["truncation"];
    assert_eq!(t["truncatedBy"], "lines");
    assert_eq!(t["totalLines"], 3001);
    assert_eq!(t["outputLines"], 2000);
    assert_eq!(t["maxBytes"], 51200);
}

#[tokio::test]
async fn truncates_wide_files_at_50kb() {
    let dir = TempDir::new();
    let body: String = (0..1000)
        .map(|_| format!("{}\n", "z".repeat(199)))
        .collect();
    dir.write("wide.txt", body);
    let out = run(&reader(&dir), json!({"path": "wide.txt"}))
        .await
        .expect("ok");
    assert!(
        text(&out)
            .ends_with("[Showing lines 1-256 of 1001 (50.0KB limit). Use offset=257 to continue.]"),
        "{}",
        &text(&out)[text(&out).len() - 100..]
    );
    assert_eq!(
        out.details.expect("details")["truncation"]["truncatedBy"],
        "bytes"
    );
}

#[tokio::test]
async fn offset_beyond_the_end_is_an_error() {
    let dir = TempDir::new();
    dir.write("a.txt", "x\ny");
    let err = run(&reader(&dir), json!({"path": "a.txt", "offset": 5}))
        .await
        .expect_err("beyond");
    assert_eq!(
        err.message,
        "Offset 5 is beyond end of file (2 lines total)"
    );
}

#[tokio::test]
async fn missing_directory_and_binary_files_are_clear_errors() {
    let dir = TempDir::new();
    dir.write("sub/x.txt", "x");
    dir.write("blob.bin", [0u8, 1, 2, 3, 0, 255]);
    let tool = reader(&dir);
    let err = run(&tool, json!({"path": "nope.txt"}))
        .await
        .expect_err("missing");
    assert_eq!(err.message, "File not found: nope.txt");
    let err = run(&tool, json!({"path": "sub"})).await.expect_err("dir");
    assert_eq!(
        err.message,
        "sub is a directory, not a file. Use ls to list its contents."
    );
    let err = run(&tool, json!({"path": "blob.bin"}))
        .await
        .expect_err("binary");
    assert!(
        err.message
            .starts_with("Cannot read binary file: blob.bin."),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn reads_images_as_image_content() {
    let dir = TempDir::new();
    let bytes = png(30, 20);
    dir.write("pic.png", &bytes);
    let out = run(&reader(&dir), json!({"path": "pic.png"}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "Read image file [image/png]");
    match &out.content[1] {
        ContentBlock::Image(img) => {
            assert_eq!(img.mime_type, "image/png");
            assert_eq!(
                base64::engine::general_purpose::STANDARD
                    .decode(&img.data)
                    .expect("b64"),
                bytes
            );
        }
        other => panic!("expected image, got {other:?}"),
    }
}

#[tokio::test]
async fn resizes_images_over_2000_pixels() {
    let dir = TempDir::new();
    dir.write("wide.png", png(2500, 100));
    let out = run(&reader(&dir), json!({"path": "wide.png"}))
        .await
        .expect("ok");
    assert_eq!(
        text(&out),
        "Read image file [image/png]\n[Image: original 2500x100, displayed at 2000x80. Multiply coordinates by 1.25 to map to original image.]"
    );
    let ContentBlock::Image(img) = &out.content[1] else {
        panic!("expected image");
    };
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(&img.data)
        .expect("b64");
    let back = image::load_from_memory(&decoded).expect("decodes");
    assert_eq!((back.width(), back.height()), (2000, 80));
}

#[tokio::test]
async fn undecodable_images_are_omitted_with_a_note() {
    let dir = TempDir::new();
    let mut bytes = vec![0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A];
    bytes.extend_from_slice(b"not really a png");
    dir.write("broken.png", bytes);
    let out = run(&reader(&dir), json!({"path": "broken.png"}))
        .await
        .expect("ok");
    assert_eq!(out.content.len(), 1);
    assert_eq!(
        text(&out),
        "Read image file [image/png]\n[Image omitted: could not be resized below the inline image size limit.]"
    );
}

#[tokio::test]
async fn odd_path_spellings_resolve() {
    let dir = TempDir::new();
    dir.write("my file.txt", "spaces");
    dir.write("Screenshot 2024-01-01 at 10.00.00\u{202F}AM.txt", "mac");
    let tool = reader(&dir);
    let out = run(&tool, json!({"path": "@my\u{00A0}file.txt"}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "spaces");
    let out = run(
        &tool,
        json!({"path": "Screenshot 2024-01-01 at 10.00.00 AM.txt"}),
    )
    .await
    .expect("ok");
    assert_eq!(text(&out), "mac");
    let abs = dir.path().join("my file.txt");
    let out = run(&tool, json!({"path": abs.to_str().expect("utf8")}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "spaces");
}

#[tokio::test]
async fn write_creates_parents_and_reports_length() {
    let dir = TempDir::new();
    let tool = WriteTool::new(dir.path());
    let out = run(&tool, json!({"path": "a/b/c.txt", "content": "hello"}))
        .await
        .expect("ok");
    assert_eq!(text(&out), "Successfully wrote 5 bytes to a/b/c.txt");
    assert_eq!(dir.read("a/b/c.txt"), b"hello");
    run(&tool, json!({"path": "a/b/c.txt", "content": "bye"}))
        .await
        .expect("overwrite");
    assert_eq!(dir.read("a/b/c.txt"), b"bye");
}

#[tokio::test]
async fn write_into_a_file_path_fails_clearly() {
    let dir = TempDir::new();
    dir.write("file", "x");
    let tool = WriteTool::new(dir.path());
    let err = run(&tool, json!({"path": "file/inner.txt", "content": "x"}))
        .await
        .expect_err("not a dir");
    assert!(
        err.message
            .starts_with("Could not write file file/inner.txt:"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn bad_arguments_are_reported() {
    let dir = TempDir::new();
    let err = run(&WriteTool::new(dir.path()), json!({"path": "x"}))
        .await
        .expect_err("missing content");
    assert!(
        err.message
            .starts_with("Validation failed for tool \"write\":"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn auto_resize_off_sends_the_file_as_is() {
    let dir = TempDir::new();
    let bytes = png(2500, 100);
    dir.write("wide.png", &bytes);
    let options = ReadOptions {
        auto_resize_images: false,
        ..ReadOptions::default()
    };
    let out = run(
        &ReadTool::new(dir.path(), options),
        json!({"path": "wide.png"}),
    )
    .await
    .expect("ok");
    assert_eq!(text(&out), "Read image file [image/png]");
    let ContentBlock::Image(img) = &out.content[1] else {
        panic!("expected image");
    };
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(&img.data)
            .expect("b64"),
        bytes
    );
}
