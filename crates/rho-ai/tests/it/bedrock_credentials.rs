//! The AWS credential chain behind Bedrock's SigV4, with every source served on loopback and
//! every signature checked against the secret the source gave: a profile's static keys from
//! the shared credentials file (its region from the config file), an assume-role profile
//! (STS on loopback, itself signed with the source profile's keys), an SSO profile (the
//! cached token exchanged at the SSO portal on loopback), and ECS container credentials
//! from a loopback `AWS_CONTAINER_CREDENTIALS_FULL_URI`.
//!
//! aws-config reads the process environment itself, so each test runs in a child process of
//! this binary with an environment of its own ([`runs_here_with_empty_env`]); instance metadata is switched
//! off there, so nothing leaves the machine.

use crate::bedrock::sigv4;
use rho_testkit::own_process::runs_here_with_empty_env;

use std::path::Path;

use rho_ai::{Model, StopReason, StreamOptions};
use rho_testkit::bedrock as wire;
use rho_testkit::replies::{ask, collect, final_message, model};
use rho_testkit::{MockResponse, MockServer, RecordedRequest};
use sha1::Digest;

/// In the child: a home of its own, no instance metadata, the given variables.
fn child_env(home: &Path, vars: &[(&str, String)]) {
    std::env::set_var("HOME", home);
    std::env::set_var("AWS_EC2_METADATA_DISABLED", "true");
    std::env::set_var("AWS_CONFIG_FILE", home.join("aws-config"));
    std::env::set_var("AWS_SHARED_CREDENTIALS_FILE", home.join("aws-credentials"));
    for (name, value) in vars {
        std::env::set_var(name, value);
    }
}

fn write(path: &Path, text: &str) {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).expect("dir");
    }
    std::fs::write(path, text).expect("write");
}

fn claude(base: &str) -> Model {
    model(
        "bedrock-converse-stream",
        "amazon-bedrock",
        "anthropic.claude-sonnet-4-5-20250929-v1:0",
        base,
    )
}

/// One Bedrock call through `rho_ai::stream` (no key: the credential chain signs), and the
/// request Bedrock received.
async fn call_bedrock() -> RecordedRequest {
    let bedrock = MockServer::start().await;
    bedrock.push(wire::response(vec![
        wire::message_start(),
        wire::text(0, "signed"),
        wire::message_stop("end_turn"),
    ]));
    let stream = rho_ai::stream(
        &claude(&bedrock.url()),
        &ask("hi"),
        StreamOptions::default(),
    )
    .expect("starts without a key");
    let events = collect(stream, None).await;
    let reply = final_message(&events);
    assert_eq!(
        reply.stop_reason,
        StopReason::Stop,
        "{:?}",
        reply.error_message
    );
    assert_eq!(reply.text(), "signed");
    bedrock.requests().remove(0)
}

#[tokio::test]
async fn a_profile_with_static_keys_signs_in_the_profile_region() {
    if !runs_here_with_empty_env(
        "bedrock_credentials::a_profile_with_static_keys_signs_in_the_profile_region",
    ) {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    write(
        &home.path().join("aws-config"),
        "[profile dev]\nregion = eu-west-3\n",
    );
    write(
        &home.path().join("aws-credentials"),
        "[default]\naws_access_key_id = AKIDDEFAULT\naws_secret_access_key = default-secret\n\
         [dev]\naws_access_key_id = AKIDDEV\naws_secret_access_key = dev-secret\n",
    );
    child_env(home.path(), &[("AWS_PROFILE", "dev".into())]);
    let request = call_bedrock().await;
    let signed = sigv4::verify(&request, "dev-secret").expect("signed with the profile's key");
    assert_eq!(signed.access_key, "AKIDDEV");
    assert_eq!(signed.scope_region, "eu-west-3");
    assert_eq!(request.header("x-amz-security-token"), None);
}

#[tokio::test]
async fn an_assume_role_profile_gets_role_credentials_from_sts() {
    if !runs_here_with_empty_env(
        "bedrock_credentials::an_assume_role_profile_gets_role_credentials_from_sts",
    ) {
        return;
    }
    let sts = MockServer::start().await;
    sts.push(MockResponse::error(
        200,
        r#"<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
  <AssumeRoleResult>
    <AssumedRoleUser><Arn>arn:aws:sts::123456789012:assumed-role/rho/s</Arn><AssumedRoleId>AROA:s</AssumedRoleId></AssumedRoleUser>
    <Credentials><AccessKeyId>ASIAROLE</AccessKeyId><SecretAccessKey>role-secret</SecretAccessKey><SessionToken>role-session-token</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials>
  </AssumeRoleResult>
  <ResponseMetadata><RequestId>r-1</RequestId></ResponseMetadata>
</AssumeRoleResponse>"#,
    ));
    let home = tempfile::tempdir().expect("home");
    write(
        &home.path().join("aws-config"),
        "[profile base]\nregion = us-east-2\n\
         [profile dev]\nrole_arn = arn:aws:iam::123456789012:role/rho\nsource_profile = base\n\
         region = us-east-2\n",
    );
    write(
        &home.path().join("aws-credentials"),
        "[base]\naws_access_key_id = AKIDBASE\naws_secret_access_key = base-secret\n",
    );
    child_env(
        home.path(),
        &[
            ("AWS_PROFILE", "dev".into()),
            ("AWS_ENDPOINT_URL_STS", sts.url()),
        ],
    );
    let request = call_bedrock().await;
    let signed = sigv4::verify(&request, "role-secret").expect("signed with the role's key");
    assert_eq!(signed.access_key, "ASIAROLE");
    assert_eq!(signed.scope_region, "us-east-2");
    assert_eq!(
        request.header("x-amz-security-token"),
        Some("role-session-token")
    );
    assert!(signed
        .signed_headers
        .contains(&"x-amz-security-token".to_string()));

    let assume = &sts.requests()[0];
    assert!(assume.body.contains("Action=AssumeRole"), "{}", assume.body);
    assert!(assume
        .body
        .contains("RoleArn=arn%3Aaws%3Aiam%3A%3A123456789012%3Arole%2Frho"));
    let sts_signed =
        sigv4::verify(assume, "base-secret").expect("STS call signed with the source profile");
    assert_eq!(
        (sts_signed.access_key.as_str(), sts_signed.service.as_str()),
        ("AKIDBASE", "sts")
    );
}

#[tokio::test]
async fn an_sso_profile_exchanges_the_cached_token_at_the_portal() {
    if !runs_here_with_empty_env(
        "bedrock_credentials::an_sso_profile_exchanges_the_cached_token_at_the_portal",
    ) {
        return;
    }
    let portal = MockServer::start().await;
    portal.push(MockResponse::error(
        200,
        r#"{"roleCredentials":{"accessKeyId":"ASIASSO","secretAccessKey":"sso-secret","sessionToken":"sso-session-token","expiration":4102444800000}}"#,
    ));
    let home = tempfile::tempdir().expect("home");
    write(
        &home.path().join("aws-config"),
        "[profile work]\nsso_session = corp\nsso_account_id = 123456789012\n\
         sso_role_name = Developer\nregion = ap-southeast-2\n\
         [sso-session corp]\nsso_start_url = https://corp.awsapps.com/start\n\
         sso_region = ap-southeast-2\n",
    );
    let cache_name = format!("{:x}.json", sha1::Sha1::digest(b"corp"));
    write(
        &home.path().join(".aws/sso/cache").join(cache_name),
        r#"{"accessToken":"sso-access-token","expiresAt":"2099-01-01T00:00:00Z","region":"ap-southeast-2","startUrl":"https://corp.awsapps.com/start"}"#,
    );
    child_env(
        home.path(),
        &[
            ("AWS_PROFILE", "work".into()),
            ("AWS_ENDPOINT_URL_SSO", portal.url()),
        ],
    );
    let request = call_bedrock().await;
    let signed = sigv4::verify(&request, "sso-secret").expect("signed with the SSO role's key");
    assert_eq!(signed.access_key, "ASIASSO");
    assert_eq!(signed.scope_region, "ap-southeast-2");
    assert_eq!(
        request.header("x-amz-security-token"),
        Some("sso-session-token")
    );
    let exchange = &portal.requests()[0];
    assert!(
        exchange.path.starts_with("/federation/credentials?"),
        "{}",
        exchange.path
    );
    assert!(exchange.path.contains("account_id=123456789012"));
    assert!(exchange.path.contains("role_name=Developer"));
    assert_eq!(
        exchange.header("x-amz-sso_bearer_token"),
        Some("sso-access-token")
    );
}

#[tokio::test]
async fn container_credentials_come_from_the_full_uri() {
    if !runs_here_with_empty_env(
        "bedrock_credentials::container_credentials_come_from_the_full_uri",
    ) {
        return;
    }
    let ecs = MockServer::start().await;
    ecs.push(MockResponse::error(
        200,
        r#"{"AccessKeyId":"ASIAECS","SecretAccessKey":"ecs-secret","Token":"ecs-session-token","Expiration":"2099-01-01T00:00:00Z"}"#,
    ));
    let home = tempfile::tempdir().expect("home");
    child_env(
        home.path(),
        &[
            (
                "AWS_CONTAINER_CREDENTIALS_FULL_URI",
                format!("{}/v2/credentials/task", ecs.url()),
            ),
            ("AWS_CONTAINER_AUTHORIZATION_TOKEN", "ecs-auth".into()),
            ("AWS_REGION", "sa-east-1".into()),
        ],
    );
    let request = call_bedrock().await;
    let signed = sigv4::verify(&request, "ecs-secret").expect("signed with the task role's key");
    assert_eq!(signed.access_key, "ASIAECS");
    assert_eq!(signed.scope_region, "sa-east-1");
    assert_eq!(
        request.header("x-amz-security-token"),
        Some("ecs-session-token")
    );
    let fetch = &ecs.requests()[0];
    assert_eq!(fetch.path, "/v2/credentials/task");
    assert_eq!(fetch.header("authorization"), Some("ecs-auth"));
}

#[tokio::test]
async fn no_credentials_at_all_is_a_clear_error() {
    if !runs_here_with_empty_env("bedrock_credentials::no_credentials_at_all_is_a_clear_error") {
        return;
    }
    let home = tempfile::tempdir().expect("home");
    child_env(home.path(), &[]);
    let stream = rho_ai::stream(
        &claude("http://127.0.0.1:9"),
        &ask("hi"),
        StreamOptions::default(),
    )
    .expect("starts");
    let events = collect(stream, None).await;
    let reply = final_message(&events);
    assert_eq!(reply.stop_reason, StopReason::Error);
    let text = reply.error_message.as_deref().unwrap_or_default();
    assert!(
        text.starts_with("Could not load AWS credentials for Amazon Bedrock"),
        "{text}"
    );
    assert!(text.contains("AWS_BEARER_TOKEN_BEDROCK"), "{text}");
}
