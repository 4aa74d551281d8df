//! PKCE (RFC 7636) and the random values a login needs: a verifier of 32 random bytes,
//! base64url without padding, and its SHA-256 challenge (`S256`).

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use sha2::{Digest, Sha256};

use super::OAuthError;

/// A verifier and the challenge derived from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pkce {
    /// Sent with the code exchange.
    pub verifier: String,
    /// Sent with the authorization request (`code_challenge_method=S256`).
    pub challenge: String,
}

impl Pkce {
    /// A fresh pair from the system's random source.
    pub fn generate() -> Result<Pkce, OAuthError> {
        Ok(Pkce::from_verifier(
            URL_SAFE_NO_PAD.encode(random_bytes::<32>()?),
        ))
    }

    /// The pair for a given verifier.
    pub fn from_verifier(verifier: String) -> Pkce {
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        Pkce {
            verifier,
            challenge,
        }
    }
}

/// `N` bytes from the system's random source.
pub fn random_bytes<const N: usize>() -> Result<[u8; N], OAuthError> {
    let mut bytes = [0u8; N];
    getrandom::getrandom(&mut bytes)
        .map_err(|e| OAuthError::Invalid(format!("no random source: {e}")))?;
    Ok(bytes)
}

/// A random `state` value: 16 bytes as lowercase hex.
pub fn random_state() -> Result<String, OAuthError> {
    Ok(random_bytes::<16>()?
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_is_the_unpadded_base64url_sha256_of_the_verifier() {
        // Computed independently: base64.urlsafe_b64encode(hashlib.sha256(v).digest()).
        let p = Pkce::from_verifier("dBjftJeZ4CVP-mJ0zXl8D6llAb9P9T3EumBmDEbdjTk".into());
        assert_eq!(p.challenge, "-OpAdEgqWOGI8pV9g2pupBus4ZCIyifCdTLVv34zsoI");
    }

    #[test]
    fn generated_verifiers_differ_and_are_url_safe() {
        let (a, b) = (Pkce::generate().unwrap(), Pkce::generate().unwrap());
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.verifier.len(), 43);
        assert!(a
            .verifier
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_'));
        assert_eq!(random_state().unwrap().len(), 32);
    }
}
