//! Images for `read`: detection by magic bytes and shrinking to what provider APIs accept
//! (2000x2000 pixels, 4.5 MB of base64), trying PNG and then JPEG at falling quality.

use std::io::Cursor;

use base64::Engine as _;
use image::codecs::jpeg::JpegEncoder;
use image::imageops::FilterType;
use image::{DynamicImage, ImageFormat, ImageReader};

/// Limits an image must fit before it is sent.
#[derive(Debug, Clone, Copy)]
pub struct ResizeLimits {
    /// Widest allowed, in pixels.
    pub max_width: u32,
    /// Tallest allowed, in pixels.
    pub max_height: u32,
    /// Largest allowed base64 payload, in bytes.
    pub max_base64_bytes: usize,
}

impl Default for ResizeLimits {
    fn default() -> Self {
        Self {
            max_width: 2000,
            max_height: 2000,
            max_base64_bytes: 4_718_592,
        }
    }
}

/// An image ready to send, with what was done to it.
#[derive(Debug, Clone, PartialEq)]
pub struct PreparedImage {
    /// Base64 payload.
    pub data: String,
    /// MIME type of the payload (may differ from the file's after re-encoding).
    pub mime_type: String,
    /// Size of the file's image.
    pub original_width: u32,
    /// Size of the file's image.
    pub original_height: u32,
    /// Size sent.
    pub width: u32,
    /// Size sent.
    pub height: u32,
    /// True when re-encoded smaller.
    pub was_resized: bool,
}

impl PreparedImage {
    /// The file's bytes as they are (auto-resize off); sizes are not inspected.
    pub fn unchanged(bytes: &[u8], mime: &str) -> Self {
        Self {
            data: encode_base64(bytes),
            mime_type: mime.to_string(),
            original_width: 0,
            original_height: 0,
            width: 0,
            height: 0,
            was_resized: false,
        }
    }
}

/// The MIME type of a supported image (jpeg, png, gif, webp) judged by its first bytes.
pub fn detect_image_mime(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some("image/jpeg")
    } else if bytes.starts_with(&[0x89, b'P', b'N', b'G', 0x0D, 0x0A, 0x1A, 0x0A]) {
        Some("image/png")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("image/gif")
    } else if bytes.len() >= 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("image/webp")
    } else {
        None
    }
}

fn base64_len(n: usize) -> usize {
    n.div_ceil(3) * 4
}

/// Standard base64 with padding (images travel base64-encoded in messages).
pub fn encode_base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Returns the image unchanged when within limits, else a smaller re-encoding; `None` when
/// it cannot be decoded or cannot be brought under the byte limit.
pub fn prepare_image(bytes: &[u8], mime: &str, limits: &ResizeLimits) -> Option<PreparedImage> {
    let reader = ImageReader::new(Cursor::new(bytes))
        .with_guessed_format()
        .ok()?;
    let (width, height) = reader.into_dimensions().ok()?;
    if width <= limits.max_width
        && height <= limits.max_height
        && base64_len(bytes.len()) < limits.max_base64_bytes
    {
        return Some(PreparedImage {
            data: encode_base64(bytes),
            mime_type: mime.to_string(),
            original_width: width,
            original_height: height,
            width,
            height,
            was_resized: false,
        });
    }
    let decoded = image::load_from_memory(bytes).ok()?;
    let (mut w, mut h) = fit(width, height, limits);
    loop {
        if let Some((data, mime_type)) = smallest_fitting(&decoded, w, h, limits) {
            return Some(PreparedImage {
                data,
                mime_type: mime_type.to_string(),
                original_width: width,
                original_height: height,
                width: w,
                height: h,
                was_resized: true,
            });
        }
        if w == 1 && h == 1 {
            return None;
        }
        let (nw, nh) = (shrink(w), shrink(h));
        if (nw, nh) == (w, h) {
            return None;
        }
        (w, h) = (nw, nh);
    }
}

fn shrink(v: u32) -> u32 {
    if v == 1 {
        1
    } else {
        ((v as f64 * 0.75).floor() as u32).max(1)
    }
}

fn fit(width: u32, height: u32, limits: &ResizeLimits) -> (u32, u32) {
    let (mut w, mut h) = (width as f64, height as f64);
    if w > limits.max_width as f64 {
        h = (h * limits.max_width as f64 / w).round();
        w = limits.max_width as f64;
    }
    if h > limits.max_height as f64 {
        w = (w * limits.max_height as f64 / h).round();
        h = limits.max_height as f64;
    }
    ((w as u32).max(1), (h as u32).max(1))
}

fn smallest_fitting(
    img: &DynamicImage,
    w: u32,
    h: u32,
    limits: &ResizeLimits,
) -> Option<(String, &'static str)> {
    let resized = img.resize_exact(w, h, FilterType::Triangle);
    let mut png = Vec::new();
    if resized
        .write_to(&mut Cursor::new(&mut png), ImageFormat::Png)
        .is_ok()
        && base64_len(png.len()) < limits.max_base64_bytes
    {
        return Some((encode_base64(&png), "image/png"));
    }
    let rgb = resized.to_rgb8();
    for quality in [80u8, 85, 70, 55, 40] {
        let mut jpeg = Vec::new();
        if JpegEncoder::new_with_quality(&mut jpeg, quality)
            .encode_image(&rgb)
            .is_ok()
            && base64_len(jpeg.len()) < limits.max_base64_bytes
        {
            return Some((encode_base64(&jpeg), "image/jpeg"));
        }
    }
    None
}

/// The note telling the model how coordinates map back to the original, when resized.
pub fn dimension_note(img: &PreparedImage) -> Option<String> {
    if !img.was_resized || img.width == 0 {
        return None;
    }
    let scale = img.original_width as f64 / img.width as f64;
    Some(format!(
        "[Image: original {}x{}, displayed at {}x{}. Multiply coordinates by {scale:.2} to map to original image.]",
        img.original_width, img.original_height, img.width, img.height
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = image::RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, 7])
        });
        let mut out = Vec::new();
        DynamicImage::ImageRgb8(img)
            .write_to(&mut Cursor::new(&mut out), ImageFormat::Png)
            .expect("encode png");
        out
    }

    #[test]
    fn detects_by_magic_bytes() {
        assert_eq!(detect_image_mime(&png(1, 1)), Some("image/png"));
        assert_eq!(detect_image_mime(b"GIF89a...."), Some("image/gif"));
        assert_eq!(
            detect_image_mime(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some("image/jpeg")
        );
        assert_eq!(
            detect_image_mime(b"RIFF\0\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
        assert_eq!(detect_image_mime(b"RIFF\0\0\0\0WAVEfmt "), None);
        assert_eq!(detect_image_mime(b"just text"), None);
        assert_eq!(
            detect_image_mime(b"RIFF\0\0\0\0WEBPVP8 "),
            Some("image/webp")
        );
        assert_eq!(
            detect_image_mime(&[0xFF, 0xD8, 0xFF, 0xE0]),
            Some("image/jpeg")
        );
        assert_eq!(detect_image_mime(b"hello"), None);
    }

    #[test]
    fn small_images_pass_through() {
        let bytes = png(10, 20);
        let out = prepare_image(&bytes, "image/png", &ResizeLimits::default()).expect("ok");
        assert!(!out.was_resized);
        assert_eq!((out.width, out.height), (10, 20));
        assert_eq!(out.data, encode_base64(&bytes));
        assert_eq!(dimension_note(&out), None);
    }

    #[test]
    fn large_images_are_shrunk_to_fit() {
        let bytes = png(400, 100);
        let limits = ResizeLimits {
            max_width: 200,
            max_height: 200,
            max_base64_bytes: 1_000_000,
        };
        let out = prepare_image(&bytes, "image/png", &limits).expect("ok");
        assert!(out.was_resized);
        assert_eq!((out.width, out.height), (200, 50));
        assert_eq!(
            dimension_note(&out).as_deref(),
            Some("[Image: original 400x100, displayed at 200x50. Multiply coordinates by 2.00 to map to original image.]")
        );
    }

    #[test]
    fn undecodable_images_are_refused() {
        let mut bytes = png(50, 50);
        bytes.truncate(40);
        let limits = ResizeLimits {
            max_base64_bytes: 10,
            ..ResizeLimits::default()
        };
        assert_eq!(prepare_image(&bytes, "image/png", &limits), None);
    }
}
