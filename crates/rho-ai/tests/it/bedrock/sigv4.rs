//! An independent SigV4 check of a recorded request, written from AWS's description of the
//! algorithm (not with the signer under test): the canonical request from what arrived on
//! the wire, the string to sign, the key derived from the secret, the HMAC-SHA256 signature.

use rho_testkit::RecordedRequest;
use sha2::{Digest, Sha256};

/// What the `Authorization` header named.
#[derive(Debug)]
pub struct Signed {
    pub access_key: String,
    pub scope_region: String,
    pub service: String,
    pub signed_headers: Vec<String>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn sha256(data: &[u8]) -> Vec<u8> {
    Sha256::digest(data).to_vec()
}

fn hmac(key: &[u8], data: &[u8]) -> Vec<u8> {
    let mut block = [0u8; 64];
    if key.len() > 64 {
        block[..32].copy_from_slice(&sha256(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.iter().map(|b| b ^ byte).collect::<Vec<u8>>();
    let inner = sha256(&[pad(0x36), data.to_vec()].concat());
    sha256(&[pad(0x5c), inner].concat())
}

/// Each path segment URI-encoded again (SigV4 double-encodes for every service but S3).
fn canonical_path(path: &str) -> String {
    path.split('/')
        .map(|segment| {
            segment
                .bytes()
                .map(|b| {
                    if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
                        char::from(b).to_string()
                    } else {
                        format!("%{b:02X}")
                    }
                })
                .collect::<String>()
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// Checks `request`'s signature against `secret`; `Err` says what does not match.
pub fn verify(request: &RecordedRequest, secret: &str) -> Result<Signed, String> {
    let auth = request
        .header("authorization")
        .ok_or("no authorization header")?;
    let rest = auth
        .strip_prefix("AWS4-HMAC-SHA256 ")
        .ok_or("not a SigV4 authorization")?;
    let field = |name: &str| {
        rest.split(", ")
            .find_map(|part| part.strip_prefix(name))
            .map(str::to_string)
            .ok_or(format!("no {name}"))
    };
    let credential = field("Credential=")?;
    let signed_headers = field("SignedHeaders=")?;
    let signature = field("Signature=")?;
    let scope: Vec<&str> = credential.split('/').collect();
    let [access_key, date, region, service, terminator] = scope[..] else {
        return Err(format!("bad credential scope {credential}"));
    };
    if terminator != "aws4_request" {
        return Err("bad scope terminator".into());
    }
    let amz_date = request.header("x-amz-date").ok_or("no x-amz-date")?;
    if !amz_date.starts_with(date) {
        return Err("x-amz-date and the scope's date differ".into());
    }
    let (path, query) = request.path.split_once('?').unwrap_or((&request.path, ""));
    let mut canonical_headers = String::new();
    for name in signed_headers.split(';') {
        let value = request
            .header(name)
            .ok_or(format!("signed header {name} was not sent"))?;
        canonical_headers.push_str(&format!("{name}:{}\n", value.trim()));
    }
    let canonical = format!(
        "POST\n{}\n{query}\n{canonical_headers}\n{signed_headers}\n{}",
        canonical_path(path),
        hex(&sha256(request.body.as_bytes()))
    );
    let to_sign = format!(
        "AWS4-HMAC-SHA256\n{amz_date}\n{date}/{region}/{service}/aws4_request\n{}",
        hex(&sha256(canonical.as_bytes()))
    );
    let mut key = hmac(format!("AWS4{secret}").as_bytes(), date.as_bytes());
    for part in [region, service, "aws4_request"] {
        key = hmac(&key, part.as_bytes());
    }
    let expected = hex(&hmac(&key, to_sign.as_bytes()));
    if expected != signature {
        return Err(format!("signature {signature} does not match {expected}"));
    }
    Ok(Signed {
        access_key: access_key.to_string(),
        scope_region: region.to_string(),
        service: service.to_string(),
        signed_headers: signed_headers.split(';').map(str::to_string).collect(),
    })
}

#[test]
fn hmac_matches_rfc_4231_case_2() {
    let mac = hmac(b"Jefe", b"what do ya want for nothing?");
    assert_eq!(
        hex(&mac),
        "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    );
}
