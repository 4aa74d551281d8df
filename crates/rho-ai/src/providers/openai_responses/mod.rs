//! OpenAI Responses API (`openai-responses`, providers spec §3.3).
//!
//! [`build_request`] turns a context into the `/responses` request (pure, snapshot-tested);
//! [`Parser`] folds the `response.*` SSE events into the reply.

mod input;
mod parser;
mod request;

pub use parser::Parser;
pub use request::build_request;

/// The error text for an HTTP failure: OpenAI style, `<status> <error.message>`.
pub fn error_message(status: u16, body: &str) -> String {
    crate::provider::openai_style_error(status, body)
}

/// A short stable hash for ids that are too long (two 32-bit multiply-xor lanes over UTF-16
/// units, base-36 of lane 2 then lane 1), the same function pi uses so replayed ids match.
pub fn short_hash(text: &str) -> String {
    let mut h1: u32 = 0xdead_beef;
    let mut h2: u32 = 0x41c6_ce57;
    for unit in text.encode_utf16() {
        let ch = u32::from(unit);
        h1 = (h1 ^ ch).wrapping_mul(2_654_435_761);
        h2 = (h2 ^ ch).wrapping_mul(1_597_334_677);
    }
    let a = (h1 ^ (h1 >> 16)).wrapping_mul(2_246_822_507);
    let b = (h2 ^ (h2 >> 13)).wrapping_mul(3_266_489_909);
    h1 = a ^ b;
    let a = (h2 ^ (h2 >> 16)).wrapping_mul(2_246_822_507);
    let b = (h1 ^ (h1 >> 13)).wrapping_mul(3_266_489_909);
    h2 = a ^ b;
    format!("{}{}", base36(h2), base36(h1))
}

fn base36(mut n: u32) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    if n == 0 {
        return "0".into();
    }
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
    }
    out.reverse();
    String::from_utf8(out).expect("base-36 digits are ASCII")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_hash_is_stable_short_and_input_sensitive() {
        let a = short_hash("msg_0123456789");
        assert_eq!(a, short_hash("msg_0123456789"));
        assert_ne!(a, short_hash("msg_0123456780"));
        assert!(a.len() <= 14 && a.chars().all(|c| c.is_ascii_alphanumeric()));
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
    }

    #[test]
    fn short_hash_matches_the_reference_values() {
        // Values computed with pi's JavaScript function (UTF-16 units, Math.imul).
        assert_eq!(short_hash("msg_0123456789"), "hs84zn1di0mw7");
        assert_eq!(short_hash(&"x".repeat(80)), "myu01d14yvyzp");
        assert_eq!(short_hash("é😀"), "102l7zrk951la");
    }
}
