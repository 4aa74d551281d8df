//! `--list-models` over pi 1.6's whole catalog (issue 37): with every provider's credentials
//! set, the real binary lists every provider and model id of the generated catalog, as many
//! per provider as the generator counted in pi's data; where pi 1.6 is installed, the table is
//! byte for byte the one pi prints. A model whose API rho does not speak yet is listed, and a
//! request to it says what is missing.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{json, Value};

/// One key per provider, as pi 1.6's `env-api-keys` and Cloudflare's account settings name
/// them (Bedrock's bearer token, Cloudflare's account and gateway ids).
const KEYS: &[&str] = &[
    "ANT_LING_API_KEY",
    "QWEN_TOKEN_PLAN_API_KEY",
    "QWEN_TOKEN_PLAN_CN_API_KEY",
    "OPENAI_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "NVIDIA_API_KEY",
    "DEEPSEEK_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_CLOUD_API_KEY",
    "GROQ_API_KEY",
    "CEREBRAS_API_KEY",
    "XAI_API_KEY",
    "TYPESAFE_API_KEY",
    "RADIUS_API_KEY",
    "OPENROUTER_API_KEY",
    "AI_GATEWAY_API_KEY",
    "ZAI_API_KEY",
    "ZAI_CODING_CN_API_KEY",
    "MISTRAL_API_KEY",
    "MINIMAX_API_KEY",
    "MINIMAX_CN_API_KEY",
    "MOONSHOT_API_KEY",
    "HF_TOKEN",
    "FIREWORKS_API_KEY",
    "TOGETHER_API_KEY",
    "BASETEN_API_KEY",
    "OPENCODE_API_KEY",
    "KIMI_API_KEY",
    "META_API_KEY",
    "CLOUDFLARE_API_KEY",
    "CLOUDFLARE_ACCOUNT_ID",
    "CLOUDFLARE_GATEWAY_ID",
    "XIAOMI_API_KEY",
    "XIAOMI_TOKEN_PLAN_CN_API_KEY",
    "XIAOMI_TOKEN_PLAN_AMS_API_KEY",
    "XIAOMI_TOKEN_PLAN_SGP_API_KEY",
    "ANTHROPIC_API_KEY",
    "COPILOT_GITHUB_TOKEN",
    "AWS_BEARER_TOKEN_BEDROCK",
];

/// An agent dir whose auth.json logs in to the Codex subscription (OAuth only).
fn agent_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("agent dir");
    let codex = json!({"openai-codex": {"type": "oauth", "access": "a", "refresh": "r",
                                        "expires": 9_999_999_999_999_i64, "accountId": "x"}});
    std::fs::write(dir.path().join("auth.json"), codex.to_string()).expect("auth.json");
    dir
}

fn with_keys(cmd: &mut Command, home: &Path) {
    cmd.env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", home)
        .current_dir(home);
    for key in KEYS {
        cmd.env(key, "test-key");
    }
}

fn rho(agent: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rho"));
    with_keys(&mut cmd, agent);
    cmd.env("RHO_CODING_AGENT_DIR", agent)
        .args(args)
        .output()
        .expect("rho runs")
}

fn table_rows(stdout: &[u8]) -> Vec<(String, String)> {
    String::from_utf8_lossy(stdout)
        .lines()
        .skip(1)
        .map(|line| {
            let mut cells = line.split_whitespace();
            let provider = cells.next().unwrap_or_default().to_string();
            (provider, cells.next().unwrap_or_default().to_string())
        })
        .collect()
}

#[test]
fn every_provider_and_model_of_pis_catalog_is_listed() {
    let agent = agent_dir();
    let out = rho(agent.path(), &["--list-models"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let rows = table_rows(&out.stdout);
    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
    for (provider, _) in &rows {
        *counts.entry(provider.clone()).or_default() += 1;
    }
    let expected: BTreeMap<String, usize> = rho_ai::catalog::source_counts()
        .filter(|(_, n)| *n > 0)
        .map(|(p, n)| (p.to_string(), n))
        .collect();
    assert_eq!(counts, expected, "models per provider");
    assert_eq!(rows.len(), 1698, "pi 1.6.0's chat models");
    let mut listed = rows.clone();
    listed.sort();
    let mut catalog: Vec<(String, String)> = rho_ai::catalog::builtin_models()
        .iter()
        .map(|m| (m.provider.clone(), m.id.clone()))
        .collect();
    catalog.sort();
    assert_eq!(listed, catalog, "every provider/id, as pi spells it");

    let together = rho(agent.path(), &["--list-models", "together"]);
    assert_eq!(table_rows(&together.stdout).len(), 16);
}

#[test]
fn the_table_is_the_one_pi_1_6_prints() {
    let (node, cli) = match rho_testkit::pi16::pi16() {
        Ok(found) => found,
        Err(why) => {
            eprintln!("skipped: {why}");
            return;
        }
    };
    let pi_agent = agent_dir();
    // Into a file: node may exit before a pipe has taken all of a long output.
    let table = pi_agent.path().join("table.txt");
    let mut pi = Command::new(node);
    with_keys(&mut pi, pi_agent.path());
    let pi = pi
        .arg(cli)
        .arg("--list-models")
        .env("PI_CODING_AGENT_DIR", pi_agent.path())
        .env("PI_OFFLINE", "1")
        .stdout(std::fs::File::create(&table).expect("table file"))
        .output()
        .expect("pi runs");
    assert_eq!(
        pi.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&pi.stderr)
    );
    let agent = agent_dir();
    let ours = rho(agent.path(), &["--list-models"]);
    let theirs = std::fs::read_to_string(&table).expect("pi's table");
    let ours = String::from_utf8_lossy(&ours.stdout);
    assert_eq!(theirs.lines().count(), 1699);
    for (n, (a, b)) in theirs.lines().zip(ours.lines()).enumerate() {
        assert_eq!(b, a, "line {n} differs from pi's");
    }
    assert_eq!(ours, theirs);
}

#[test]
fn a_model_of_an_api_rho_does_not_speak_is_refused_with_what_is_missing() {
    let agent = agent_dir();
    let model = "radius/balanced";
    let out = rho(
        agent.path(),
        &["--no-session", "--model", model, "-p", "hi"],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    let expected = "rho does not speak the \"pi-messages\" API yet (model radius/balanced)";
    assert!(stderr.contains(expected), "stderr: {stderr}");
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn the_generated_counts_are_pis() {
    // The generator counted pi's data; where pi 1.6 is installed, count it again here.
    let Ok((_, cli)) = rho_testkit::pi16::pi16() else {
        eprintln!("skipped: pi 1.6 is not installed");
        return;
    };
    let data = cli
        .ancestors()
        .nth(3)
        .map(|pkgs| pkgs.join("pi-ai/dist/providers/data"))
        .expect("pi's node_modules");
    for (provider, expected) in rho_ai::catalog::source_counts() {
        let text = std::fs::read_to_string(data.join(format!("{provider}.json")))
            .expect("pi's provider data");
        let groups: serde_json::Map<String, Value> = serde_json::from_str(&text).expect("json");
        let chat = groups
            .values()
            .flat_map(|g| g.as_object().into_iter().flat_map(|m| m.values()))
            .filter(|m| m["type"] == "chat")
            .count();
        assert_eq!(chat, expected, "{provider}");
    }
}
