//! Where a Bedrock request goes and how it is signed: the region and endpoint (pi 1.6's
//! rules), and the credentials (a bearer token, or SigV4 over the final body with the AWS
//! credential chain of the official `aws-config` crate).
//!
//! The chain (environment keys, `AWS_PROFILE` and the shared config and credentials files
//! with SSO, assume-role and `credential_process` profiles, web identity, ECS container
//! credentials, instance metadata) is built on the first Bedrock request, once per region,
//! and its credentials are reused until five minutes before they expire.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, SystemTime};

use aws_config::BehaviorVersion;
use aws_credential_types::provider::{ProvideCredentials, SharedCredentialsProvider};
use futures_util::future::BoxFuture;

use crate::model::Model;
use crate::provider::{Authorize, AuthorizeError, HttpRequest};

/// Why a Bedrock request could not be signed, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum BedrockAuthError {
    /// SigV4 signing failed (the body did not encode, or the signer refused its input).
    #[error("Could not sign the Bedrock request: {0}")]
    Sign(#[source] Box<dyn std::error::Error + Send + Sync>),
    /// aws-config found no credential provider at all.
    #[error("No AWS credential provider is available for Amazon Bedrock")]
    NoProvider,
    /// The credential chain failed (no profile, an expired SSO session, ...).
    #[error(
        "Could not load AWS credentials for Amazon Bedrock: {}. Set AWS_PROFILE (with \
         `aws sso login` for SSO profiles), AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or \
         AWS_BEARER_TOKEN_BEDROCK.",
        super::super::error_chain(.0)
    )]
    Credentials(#[source] aws_credential_types::provider::error::CredentialsError),
}

/// The service name Bedrock's runtime signs with.
const SERVICE: &str = "bedrock";

/// The region when nothing names one.
const DEFAULT_REGION: &str = "us-east-1";

/// Credentials are renewed this long before they expire.
const EXPIRY_MARGIN: Duration = Duration::from_secs(300);

/// Headers that belong to the signature or the bearer token; callers' headers of these
/// names are dropped.
pub(super) fn is_reserved_header(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.starts_with("x-amz-") || lower == "authorization" || lower == "host"
}

/// How the request is authenticated.
#[derive(Debug, Clone)]
pub(super) enum Credentials {
    /// `Authorization: Bearer <token>` (Bedrock API keys), no signature.
    Bearer(String),
    /// SigV4 with the AWS credential chain.
    Chain,
    /// SigV4 with placeholder keys, for proxies that need none (`AWS_BEDROCK_SKIP_AUTH=1`).
    Dummy,
}

/// The region, or how to find it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Region {
    Known(String),
    /// `AWS_PROFILE` is set and nothing else names a region: the profile's, else the default.
    FromProfile,
}

/// The endpoint, or how to find it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Endpoint {
    Explicit(String),
    /// `https://bedrock-runtime.{region}.amazonaws.com`.
    FromRegion,
}

/// Where a request goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Target {
    region: Region,
    endpoint: Endpoint,
}

impl Target {
    /// pi 1.6's resolution for `model` from `env`.
    pub(super) fn resolve(model: &Model, env: &dyn Fn(&str) -> Option<String>) -> Self {
        let set = |name: &str| {
            env(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let configured = set("AWS_REGION").or_else(|| set("AWS_DEFAULT_REGION"));
        let profile = set("AWS_PROFILE").is_some();
        let base = model.base_url.trim().trim_end_matches('/');
        let base = (!base.is_empty() && !base.contains('{')).then_some(base);
        let standard = base.and_then(standard_endpoint_region);
        // A standard endpoint is pinned only when no region or profile says otherwise; a
        // custom one (a VPC endpoint, a proxy) always is.
        let explicit = base.filter(|_| standard.is_none() || (configured.is_none() && !profile));
        let region = arn_region(&model.id)
            .or(configured)
            .or_else(|| explicit.and(standard.clone()))
            .map_or(
                if profile {
                    Region::FromProfile
                } else {
                    Region::Known(DEFAULT_REGION.to_string())
                },
                Region::Known,
            );
        let ignore_env = set("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS")
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let from_env = || {
            (!ignore_env)
                .then(|| {
                    set("AWS_ENDPOINT_URL_BEDROCK_RUNTIME").or_else(|| set("AWS_ENDPOINT_URL"))
                })
                .flatten()
        };
        let endpoint = explicit
            .map(str::to_string)
            .or_else(from_env)
            .map_or(Endpoint::FromRegion, |e| {
                Endpoint::Explicit(e.trim_end_matches('/').to_string())
            });
        Self { region, endpoint }
    }

    async fn region(&self) -> String {
        match &self.region {
            Region::Known(region) => region.clone(),
            Region::FromProfile => {
                use aws_config::meta::region::ProvideRegion;
                let provider = aws_config::profile::ProfileFileRegionProvider::builder().build();
                match provider.region().await {
                    Some(region) => region.to_string(),
                    None => DEFAULT_REGION.to_string(),
                }
            }
        }
    }

    fn base_url(&self, region: &str) -> String {
        match &self.endpoint {
            Endpoint::Explicit(url) => url.clone(),
            Endpoint::FromRegion if region.starts_with("cn-") => {
                format!("https://bedrock-runtime.{region}.amazonaws.com.cn")
            }
            Endpoint::FromRegion => format!("https://bedrock-runtime.{region}.amazonaws.com"),
        }
    }
}

/// The region of `https://bedrock-runtime[-fips].{region}.amazonaws.com[.cn]`.
fn standard_endpoint_region(base_url: &str) -> Option<String> {
    let url = reqwest::Url::parse(base_url).ok()?;
    let host = url.host_str()?.to_lowercase();
    let host = host.strip_suffix(".cn").unwrap_or(&host);
    let rest = host.strip_suffix(".amazonaws.com")?;
    let region = rest
        .strip_prefix("bedrock-runtime-fips.")
        .or_else(|| rest.strip_prefix("bedrock-runtime."))?;
    let valid = !region.is_empty()
        && region
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    valid.then(|| region.to_string())
}

/// The region an inference-profile ARN names (`arn:aws[-partition]:bedrock:{region}:…`).
fn arn_region(model_id: &str) -> Option<String> {
    let mut parts = model_id.split(':');
    let (arn, partition, service, region) =
        (parts.next()?, parts.next()?, parts.next()?, parts.next()?);
    let valid = arn == "arn"
        && (partition == "aws" || partition.starts_with("aws-"))
        && service == "bedrock"
        && !region.is_empty()
        && region
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    valid.then(|| region.to_string())
}

/// Completes and signs one Bedrock request.
#[derive(Debug)]
pub(super) struct Signer {
    target: Target,
    credentials: Credentials,
    /// `/model/{id}/converse-stream`, the model id already encoded.
    path: String,
}

impl Signer {
    pub(super) fn new(target: Target, credentials: Credentials, path: String) -> Self {
        Self {
            target,
            credentials,
            path,
        }
    }

    async fn sign(&self, request: &mut HttpRequest) -> Result<(), BedrockAuthError> {
        let region = self.target.region().await;
        request.url = format!("{}{}", self.target.base_url(&region), self.path);
        request
            .headers
            .retain(|(name, _)| !is_reserved_header(name));
        let credentials = match &self.credentials {
            Credentials::Bearer(token) => {
                request
                    .headers
                    .push(("authorization".to_string(), format!("Bearer {token}")));
                return Ok(());
            }
            Credentials::Dummy => aws_credential_types::Credentials::new(
                "dummy-access-key",
                "dummy-secret-key",
                None,
                None,
                "rho",
            ),
            Credentials::Chain => chain_credentials(&region).await?,
        };
        sigv4(request, &credentials, &region)
    }
}

impl Authorize for Signer {
    fn authorize<'a>(
        &'a self,
        request: &'a mut HttpRequest,
    ) -> BoxFuture<'a, Result<(), AuthorizeError>> {
        Box::pin(async move { Ok(self.sign(request).await?) })
    }
}

/// Signs `request` (URL, headers, body as it will be sent) for service `bedrock`: adds
/// `authorization`, `x-amz-date` and, for temporary credentials, `x-amz-security-token`.
/// The canonical request encodes the path again, as SigV4 does for every service but S3.
pub(super) fn sigv4(
    request: &mut HttpRequest,
    credentials: &aws_credential_types::Credentials,
    region: &str,
) -> Result<(), BedrockAuthError> {
    use aws_sigv4::http_request::{sign, SignableBody, SignableRequest, SigningSettings};
    fn failed(e: impl std::error::Error + Send + Sync + 'static) -> BedrockAuthError {
        BedrockAuthError::Sign(Box::new(e))
    }
    // The exact bytes `http::post_json` sends.
    let body = serde_json::to_vec(&request.body).map_err(failed)?;
    let identity = credentials.clone().into();
    let params = aws_sigv4::sign::v4::SigningParams::builder()
        .identity(&identity)
        .region(region)
        .name(SERVICE)
        .time(SystemTime::now())
        .settings(SigningSettings::default())
        .build()
        .map_err(failed)?
        .into();
    // `post_json` adds the content type; it is signed as every header sent is.
    let headers = std::iter::once(("content-type", "application/json")).chain(
        request
            .headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str())),
    );
    let signable = SignableRequest::new(
        "POST",
        request.url.as_str(),
        headers,
        SignableBody::Bytes(&body),
    )
    .map_err(failed)?;
    let (instructions, _) = sign(signable, &params).map_err(failed)?.into_parts();
    let added: Vec<(String, String)> = instructions
        .headers()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    request.headers.extend(added);
    Ok(())
}

/// One region's credential chain and the credentials it last gave.
#[derive(Debug)]
struct Chain {
    provider: SharedCredentialsProvider,
    cached: tokio::sync::Mutex<Option<aws_credential_types::Credentials>>,
}

/// A region's chain, started once (`None`: aws-config offered no provider).
type ChainCell = Arc<tokio::sync::OnceCell<Option<Arc<Chain>>>>;

/// The chains started so far, by region (STS and SSO calls are regional).
fn chains() -> &'static Mutex<HashMap<String, ChainCell>> {
    static CHAINS: OnceLock<Mutex<HashMap<String, ChainCell>>> = OnceLock::new();
    CHAINS.get_or_init(Default::default)
}

async fn chain(region: &str) -> Result<Arc<Chain>, BedrockAuthError> {
    let cell = chains()
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entry(region.to_string())
        .or_default()
        .clone();
    let chain = cell
        .get_or_init(|| async {
            // The chain's own HTTP (STS, SSO, ECS, IMDS) on rustls with ring: the TLS stack
            // reqwest already uses, not aws-config's default aws-lc one.
            let http = aws_smithy_http_client::Builder::new()
                .tls_provider(aws_smithy_http_client::tls::Provider::Rustls(
                    aws_smithy_http_client::tls::rustls_provider::CryptoMode::Ring,
                ))
                .build_https();
            let config = aws_config::defaults(BehaviorVersion::latest())
                .http_client(http)
                .region(aws_config::Region::new(region.to_string()))
                .load()
                .await;
            config.credentials_provider().map(|provider| {
                Arc::new(Chain {
                    provider,
                    cached: tokio::sync::Mutex::new(None),
                })
            })
        })
        .await;
    chain.clone().ok_or(BedrockAuthError::NoProvider)
}

/// Credentials from the chain of `region`, reused while they are valid.
async fn chain_credentials(
    region: &str,
) -> Result<aws_credential_types::Credentials, BedrockAuthError> {
    let chain = chain(region).await?;
    let mut cached = chain.cached.lock().await;
    let fresh = |c: &aws_credential_types::Credentials| {
        c.expiry()
            .is_none_or(|at| at > SystemTime::now() + EXPIRY_MARGIN)
    };
    if let Some(credentials) = cached.as_ref().filter(|c| fresh(c)) {
        return Ok(credentials.clone());
    }
    let credentials = chain
        .provider
        .provide_credentials()
        .await
        .map_err(BedrockAuthError::Credentials)?;
    *cached = Some(credentials.clone());
    Ok(credentials)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model(id: &str, base_url: &str) -> Model {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": id, "api": "bedrock-converse-stream",
            "provider": "amazon-bedrock", "baseUrl": base_url
        }))
        .expect("model")
    }

    fn target(m: &Model, vars: &[(&str, &str)]) -> Target {
        let env = |name: &str| {
            vars.iter()
                .find(|(k, _)| *k == name)
                .map(|(_, v)| v.to_string())
        };
        Target::resolve(m, &env)
    }

    fn known(r: &str) -> Region {
        Region::Known(r.to_string())
    }

    #[test]
    fn region_and_endpoint_follow_pi() {
        let catalog = model(
            "anthropic.claude-x",
            "https://bedrock-runtime.eu-central-1.amazonaws.com",
        );
        // Nothing configured: the catalog's endpoint and its region.
        let t = target(&catalog, &[]);
        assert_eq!(t.region, known("eu-central-1"));
        assert_eq!(
            t.endpoint,
            Endpoint::Explicit("https://bedrock-runtime.eu-central-1.amazonaws.com".into())
        );
        // A configured region wins over the catalog's standard endpoint.
        let t = target(&catalog, &[("AWS_REGION", "us-west-2")]);
        assert_eq!(
            (t.region.clone(), t.endpoint.clone()),
            (known("us-west-2"), Endpoint::FromRegion)
        );
        assert_eq!(
            t.base_url("us-west-2"),
            "https://bedrock-runtime.us-west-2.amazonaws.com"
        );
        // An ambient profile names the region.
        let t = target(&catalog, &[("AWS_PROFILE", "dev")]);
        assert_eq!(t.region, Region::FromProfile);
        // A custom endpoint always wins; the region is the configured one or the default.
        let proxy = model("anthropic.claude-x", "http://127.0.0.1:9/");
        let t = target(&proxy, &[("AWS_ENDPOINT_URL", "http://other")]);
        assert_eq!(
            (t.region, t.endpoint),
            (
                known("us-east-1"),
                Endpoint::Explicit("http://127.0.0.1:9".into())
            )
        );
        // No baseUrl: the service endpoint variable, then the global one.
        let none = model("m", "");
        let t = target(
            &none,
            &[
                ("AWS_ENDPOINT_URL", "http://g"),
                ("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", "http://b"),
            ],
        );
        assert_eq!(t.endpoint, Endpoint::Explicit("http://b".into()));
        assert_eq!(
            target(&none, &[("AWS_ENDPOINT_URL", "http://g/")]).endpoint,
            Endpoint::Explicit("http://g".into())
        );
        // An inference-profile ARN names its region.
        let arn = model(
            "arn:aws:bedrock:ap-south-1:123456789012:application-inference-profile/x",
            "",
        );
        assert_eq!(
            target(&arn, &[("AWS_REGION", "us-east-2")]).region,
            known("ap-south-1")
        );
        assert_eq!(
            target(&none, &[]).base_url("cn-north-1"),
            "https://bedrock-runtime.cn-north-1.amazonaws.com.cn"
        );
    }

    #[test]
    fn standard_hosts() {
        assert_eq!(
            standard_endpoint_region("https://bedrock-runtime-fips.us-gov-west-1.amazonaws.com")
                .as_deref(),
            Some("us-gov-west-1")
        );
        assert_eq!(
            standard_endpoint_region("https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com"),
            None
        );
        assert_eq!(arn_region("us.anthropic.claude"), None);
    }
}
