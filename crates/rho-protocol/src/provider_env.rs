//! Which environment variables hold each built-in provider's key, as pi reads them (providers
//! spec §6): the names users set. Plain data shared by the provider layer, which reads the
//! keys, and the child-process module, which keeps them from commands rho runs.

/// Each built-in provider and the environment variables holding its key, in lookup order
/// (pi 1.6's `env-api-keys`; the Qwen Token Plan ones try the plan's own variable, then the
/// region's shared one).
const PROVIDER_ENV: &[(&str, &[&str])] = &[
    ("anthropic", &["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"]),
    (
        "github-copilot",
        &["COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"],
    ),
    ("ant-ling", &["ANT_LING_API_KEY"]),
    (
        "qwen-token-plan",
        &["QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"],
    ),
    (
        "qwen-token-plan-cn",
        &[
            "QWEN_TOKEN_PLAN_TEAM_CN_API_KEY",
            "QWEN_TOKEN_PLAN_CN_API_KEY",
        ],
    ),
    (
        "qwen-token-plan-individual",
        &[
            "QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY",
            "QWEN_TOKEN_PLAN_API_KEY",
        ],
    ),
    (
        "qwen-token-plan-individual-cn",
        &[
            "QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY",
            "QWEN_TOKEN_PLAN_CN_API_KEY",
        ],
    ),
    ("openai", &["OPENAI_API_KEY"]),
    ("azure", &["AZURE_OPENAI_API_KEY"]),
    // pi 0.73's id for Azure: a key stored under it serves pi 1.6's `azure` too.
    ("azure-openai-responses", &["AZURE_OPENAI_API_KEY"]),
    ("nvidia", &["NVIDIA_API_KEY"]),
    ("google", &["GEMINI_API_KEY"]),
    ("google-vertex", &["GOOGLE_CLOUD_API_KEY"]),
    ("deepseek", &["DEEPSEEK_API_KEY"]),
    ("groq", &["GROQ_API_KEY"]),
    ("cerebras", &["CEREBRAS_API_KEY"]),
    ("xai", &["XAI_API_KEY"]),
    ("typesafe", &["TYPESAFE_API_KEY"]),
    ("radius", &["RADIUS_API_KEY"]),
    ("openrouter", &["OPENROUTER_API_KEY"]),
    ("vercel-ai-gateway", &["AI_GATEWAY_API_KEY"]),
    ("zai", &["ZAI_API_KEY"]),
    ("zai-coding-cn", &["ZAI_CODING_CN_API_KEY"]),
    ("mistral", &["MISTRAL_API_KEY"]),
    ("minimax", &["MINIMAX_API_KEY"]),
    ("minimax-cn", &["MINIMAX_CN_API_KEY"]),
    ("moonshotai", &["MOONSHOT_API_KEY"]),
    ("moonshotai-cn", &["MOONSHOT_API_KEY"]),
    ("huggingface", &["HF_TOKEN"]),
    ("fireworks", &["FIREWORKS_API_KEY"]),
    ("together", &["TOGETHER_API_KEY"]),
    ("baseten", &["BASETEN_API_KEY"]),
    ("opencode", &["OPENCODE_API_KEY"]),
    ("opencode-go", &["OPENCODE_API_KEY"]),
    ("kimi-coding", &["KIMI_API_KEY"]),
    ("meta", &["META_API_KEY"]),
    ("cloudflare-workers-ai", &["CLOUDFLARE_API_KEY"]),
    ("cloudflare-ai-gateway", &["CLOUDFLARE_API_KEY"]),
    ("xiaomi", &["XIAOMI_API_KEY"]),
    ("xiaomi-token-plan-cn", &["XIAOMI_TOKEN_PLAN_CN_API_KEY"]),
    ("xiaomi-token-plan-ams", &["XIAOMI_TOKEN_PLAN_AMS_API_KEY"]),
    ("xiaomi-token-plan-sgp", &["XIAOMI_TOKEN_PLAN_SGP_API_KEY"]),
    // The router's optional key; its URL, LLAMA_BASE_URL, is what configures it.
    ("llama.cpp", &["LLAMA_API_KEY"]),
];

/// The environment variables holding `provider`'s key, in lookup order. Empty for providers
/// that have none (custom providers get their key from models.json or auth.json).
pub fn env_vars_for(provider: &str) -> &'static [&'static str] {
    PROVIDER_ENV
        .iter()
        .find(|(p, _)| *p == provider)
        .map_or(&[], |(_, vars)| vars)
}

/// Variables that only carry an LLM provider's key, which tool processes do not need: every
/// provider variable except the general GitHub tokens (`GH_TOKEN`, `GITHUB_TOKEN`), which
/// `gh` and `git` in the user's commands rely on.
pub fn provider_key_env_vars() -> Vec<&'static str> {
    let mut vars: Vec<&'static str> = PROVIDER_ENV
        .iter()
        .flat_map(|(_, vars)| vars.iter().copied())
        .filter(|v| !matches!(*v, "GH_TOKEN" | "GITHUB_TOKEN"))
        .collect();
    vars.sort_unstable();
    vars.dedup();
    vars
}

/// The primary variable to name in "set the … environment variable" messages: the last of
/// the list (e.g. `ANTHROPIC_API_KEY`, not the OAuth token variable).
pub fn primary_env_var(provider: &str) -> Option<&'static str> {
    env_vars_for(provider).last().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_order_primary_name_and_the_scrub_list() {
        assert_eq!(primary_env_var("anthropic"), Some("ANTHROPIC_API_KEY"));
        assert_eq!(env_vars_for("moonshotai-cn"), &["MOONSHOT_API_KEY"]);
        assert!(env_vars_for("my-own-provider").is_empty());
        let scrubbed = provider_key_env_vars();
        assert!(scrubbed.contains(&"OPENAI_API_KEY"));
        assert!(!scrubbed.contains(&"GH_TOKEN") && !scrubbed.contains(&"GITHUB_TOKEN"));
    }
}
