//! The built-in rows: providers (providers spec §8 table) and the seed models.
//!
//! Rows are compact `const` data turned into [`Model`] records once, on first use.

use std::collections::BTreeMap;

use crate::model::{InputKind, Model, ModelCompat, ModelCost};

/// A built-in provider entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProviderInfo {
    /// Provider id (`anthropic`, `groq`, ...).
    pub id: &'static str,
    /// Display name.
    pub name: &'static str,
    /// The API its models use by default (some providers mix several; models then say theirs).
    pub api: &'static str,
    /// Endpoint base URL (`{PLACEHOLDER}`s are filled from the environment at request time).
    pub base_url: &'static str,
}

const fn p(
    id: &'static str,
    name: &'static str,
    api: &'static str,
    base_url: &'static str,
) -> ProviderInfo {
    ProviderInfo {
        id,
        name,
        api,
        base_url,
    }
}

const AM: &str = "anthropic-messages";
const OC: &str = "openai-completions";
const OR: &str = "openai-responses";

/// Every built-in provider, in the spec's order.
pub const PROVIDERS: &[ProviderInfo] = &[
    p("anthropic", "Anthropic", AM, "https://api.anthropic.com"),
    p("openai", "OpenAI", OR, "https://api.openai.com/v1"),
    p("google", "Google", "google-generative-ai", "https://generativelanguage.googleapis.com/v1beta"),
    p("google-vertex", "Google Vertex AI", "google-vertex", "https://{location}-aiplatform.googleapis.com"),
    p("xai", "xAI", OC, "https://api.x.ai/v1"),
    p("groq", "Groq", OC, "https://api.groq.com/openai/v1"),
    p("cerebras", "Cerebras", OC, "https://api.cerebras.ai/v1"),
    p("deepseek", "DeepSeek", OC, "https://api.deepseek.com"),
    p("openrouter", "OpenRouter", OC, "https://openrouter.ai/api/v1"),
    p("vercel-ai-gateway", "Vercel AI Gateway", AM, "https://ai-gateway.vercel.sh"),
    p("zai", "Z.ai", OC, "https://api.z.ai/api/coding/paas/v4"),
    p("mistral", "Mistral", "mistral-conversations", "https://api.mistral.ai"),
    p("moonshotai", "Moonshot AI", OC, "https://api.moonshot.ai/v1"),
    p("moonshotai-cn", "Moonshot AI (China)", OC, "https://api.moonshot.cn/v1"),
    p("minimax", "MiniMax", AM, "https://api.minimax.io/anthropic"),
    p("minimax-cn", "MiniMax (China)", AM, "https://api.minimaxi.com/anthropic"),
    p("kimi-coding", "Kimi For Coding", AM, "https://api.kimi.com/coding"),
    p("huggingface", "Hugging Face", OC, "https://router.huggingface.co/v1"),
    p("fireworks", "Fireworks", AM, "https://api.fireworks.ai/inference"),
    p("opencode", "OpenCode Zen", OC, "https://opencode.ai/zen/v1"),
    p("opencode-go", "OpenCode Go", OC, "https://opencode.ai/zen/go/v1"),
    p("github-copilot", "GitHub Copilot", OR, "https://api.individual.githubcopilot.com"),
    p("openai-codex", "ChatGPT Plus/Pro (Codex Subscription)", "openai-codex-responses", "https://chatgpt.com/backend-api"),
    p("azure", "Azure", "azure-openai-responses", "https://{AZURE_OPENAI_RESOURCE_NAME}.openai.azure.com/openai/v1"),
    p("azure-openai-responses", "Azure OpenAI", "azure-openai-responses", ""),
    p("amazon-bedrock", "Amazon Bedrock", "bedrock-converse-stream", "https://bedrock-runtime.{region}.amazonaws.com"),
    p("cloudflare-workers-ai", "Cloudflare Workers AI", OC, "https://api.cloudflare.com/client/v4/accounts/{CLOUDFLARE_ACCOUNT_ID}/ai/v1"),
    p("cloudflare-ai-gateway", "Cloudflare AI Gateway", AM, "https://gateway.ai.cloudflare.com/v1/{CLOUDFLARE_ACCOUNT_ID}/{CLOUDFLARE_GATEWAY_ID}/anthropic"),
    p("xiaomi", "Xiaomi MiMo", AM, "https://api.xiaomimimo.com/anthropic"),
    p("xiaomi-token-plan-cn", "Xiaomi MiMo Token Plan (CN)", AM, "https://token-plan-cn.xiaomimimo.com/anthropic"),
    p("xiaomi-token-plan-ams", "Xiaomi MiMo Token Plan (AMS)", AM, "https://token-plan-ams.xiaomimimo.com/anthropic"),
    p("xiaomi-token-plan-sgp", "Xiaomi MiMo Token Plan (SGP)", AM, "https://token-plan-sgp.xiaomimimo.com/anthropic"),
];

/// The model picked for a provider when nothing else decides (interfaces §6.5).
pub const DEFAULT_MODELS: &[(&str, &str)] = &[
    ("amazon-bedrock", "us.anthropic.claude-opus-4-6-v1"),
    ("anthropic", "claude-opus-4-7"),
    ("openai", "gpt-5.4"),
    ("azure", "gpt-5.4"),
    ("azure-openai-responses", "gpt-5.4"),
    ("openai-codex", "gpt-5.5"),
    ("deepseek", "deepseek-v4-pro"),
    ("google", "gemini-3.1-pro-preview"),
    ("google-vertex", "gemini-3.1-pro-preview"),
    ("github-copilot", "gpt-5.4"),
    ("openrouter", "moonshotai/kimi-k2.6"),
    ("vercel-ai-gateway", "zai/glm-5.1"),
    ("xai", "grok-4.20-0309-reasoning"),
    ("groq", "openai/gpt-oss-120b"),
    ("cerebras", "zai-glm-4.7"),
    ("zai", "glm-5.1"),
    ("mistral", "devstral-medium-latest"),
    ("minimax", "MiniMax-M2.7"),
    ("minimax-cn", "MiniMax-M2.7"),
    ("moonshotai", "kimi-k2.6"),
    ("moonshotai-cn", "kimi-k2.6"),
    ("huggingface", "moonshotai/Kimi-K2.6"),
    ("fireworks", "accounts/fireworks/models/kimi-k2p6"),
    ("opencode", "kimi-k2.6"),
    ("opencode-go", "kimi-k2.6"),
    ("kimi-coding", "kimi-for-coding"),
];

/// Compat presets used by seed rows (footnotes ¹-⁴ of §8).
#[derive(Clone, Copy)]
enum Compat {
    None,
    DeepSeek,
    Zai,
    Moonshot,
    CopilotCompletions,
}

impl Compat {
    fn build(self) -> Option<ModelCompat> {
        let mut c = ModelCompat::default();
        match self {
            Compat::None => return None,
            Compat::DeepSeek => {
                c.requires_reasoning_content_on_assistant_messages = Some(true);
                c.thinking_format = Some("deepseek".into());
            }
            Compat::Zai => {
                c.supports_developer_role = Some(false);
                c.thinking_format = Some("zai".into());
                c.zai_tool_stream = Some(true);
            }
            Compat::Moonshot => {
                c.supports_store = Some(false);
                c.supports_developer_role = Some(false);
                c.supports_reasoning_effort = Some(false);
                c.max_tokens_field = Some("max_tokens".into());
                c.supports_strict_mode = Some(false);
            }
            Compat::CopilotCompletions => {
                c.supports_store = Some(false);
                c.supports_developer_role = Some(false);
                c.supports_reasoning_effort = Some(false);
            }
        }
        Some(c)
    }
}

type LevelMap = &'static [(&'static str, Option<&'static str>)];

/// One seed row; `api: None` means the provider's default API.
struct Row {
    provider: &'static str,
    id: &'static str,
    name: &'static str,
    api: Option<&'static str>,
    reasoning: bool,
    image: bool,
    context_window: u64,
    max_tokens: u64,
    cost: [f64; 4],
    map: LevelMap,
    compat: Compat,
}

#[allow(clippy::too_many_arguments)]
const fn row(
    provider: &'static str,
    id: &'static str,
    name: &'static str,
    reasoning: bool,
    image: bool,
    context_window: u64,
    max_tokens: u64,
    cost: [f64; 4],
) -> Row {
    Row {
        provider,
        id,
        name,
        api: None,
        reasoning,
        image,
        context_window,
        max_tokens,
        cost,
        map: &[],
        compat: Compat::None,
    }
}

impl Row {
    const fn map(mut self, map: LevelMap) -> Self {
        self.map = map;
        self
    }
    const fn compat(mut self, compat: Compat) -> Self {
        self.compat = compat;
        self
    }
    const fn api(mut self, api: &'static str) -> Self {
        self.api = Some(api);
        self
    }
}

const R: bool = true;
const NR: bool = false;
const TI: bool = true;
const T: bool = false;

const GPT5: LevelMap = &[("off", None)];
const GPT52: LevelMap = &[("off", None), ("xhigh", Some("xhigh"))];
const DEEPSEEK_MAP: LevelMap = &[
    ("minimal", None),
    ("low", None),
    ("medium", None),
    ("high", Some("high")),
    ("xhigh", Some("max")),
];

#[rustfmt::skip]
const ROWS: &[Row] = &[
    // anthropic
    row("anthropic", "claude-opus-4-7", "Claude Opus 4.7", R, TI, 1_000_000, 128_000, [5.0, 25.0, 0.5, 6.25]).map(&[("xhigh", Some("xhigh"))]),
    row("anthropic", "claude-opus-4-6", "Claude Opus 4.6", R, TI, 1_000_000, 128_000, [5.0, 25.0, 0.5, 6.25]).map(&[("xhigh", Some("max"))]),
    row("anthropic", "claude-sonnet-4-6", "Claude Sonnet 4.6", R, TI, 1_000_000, 64_000, [3.0, 15.0, 0.3, 3.75]),
    row("anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5", R, TI, 200_000, 64_000, [3.0, 15.0, 0.3, 3.75]),
    row("anthropic", "claude-opus-4-5", "Claude Opus 4.5", R, TI, 200_000, 64_000, [5.0, 25.0, 0.5, 6.25]),
    row("anthropic", "claude-haiku-4-5", "Claude Haiku 4.5", R, TI, 200_000, 64_000, [1.0, 5.0, 0.1, 1.25]),
    row("anthropic", "claude-3-5-haiku-latest", "Claude Haiku 3.5 (latest)", NR, TI, 200_000, 8192, [0.8, 4.0, 0.08, 1.0]),
    // openai
    row("openai", "gpt-5.5", "GPT-5.5", R, TI, 272_000, 128_000, [5.0, 30.0, 0.5, 0.0]).map(GPT52),
    row("openai", "gpt-5.4", "GPT-5.4", R, TI, 272_000, 128_000, [2.5, 15.0, 0.25, 0.0]).map(GPT52),
    row("openai", "gpt-5.4-mini", "GPT-5.4 mini", R, TI, 400_000, 128_000, [0.75, 4.5, 0.075, 0.0]).map(GPT52),
    row("openai", "gpt-5", "GPT-5", R, TI, 400_000, 128_000, [1.25, 10.0, 0.125, 0.0]).map(GPT5),
    row("openai", "gpt-5-mini", "GPT-5 mini", R, TI, 400_000, 128_000, [0.25, 2.0, 0.025, 0.0]).map(GPT5),
    row("openai", "gpt-4.1", "GPT-4.1", NR, TI, 1_047_576, 32_768, [2.0, 8.0, 0.5, 0.0]),
    row("openai", "o4-mini", "o4-mini", R, TI, 200_000, 100_000, [1.1, 4.4, 0.28, 0.0]),
    // google
    row("google", "gemini-3.1-pro-preview", "Gemini 3.1 Pro Preview", R, TI, 1_048_576, 65_536, [2.0, 12.0, 0.2, 0.0])
        .map(&[("off", None), ("minimal", None), ("low", Some("LOW")), ("medium", None), ("high", Some("HIGH"))]),
    row("google", "gemini-3-flash-preview", "Gemini 3 Flash Preview", R, TI, 1_048_576, 65_536, [0.5, 3.0, 0.05, 0.0]).map(&[("off", None)]),
    row("google", "gemini-2.5-pro", "Gemini 2.5 Pro", R, TI, 1_048_576, 65_536, [1.25, 10.0, 0.125, 0.0]),
    row("google", "gemini-2.5-flash", "Gemini 2.5 Flash", R, TI, 1_048_576, 65_536, [0.3, 2.5, 0.03, 0.0]),
    row("google", "gemini-2.5-flash-lite", "Gemini 2.5 Flash-Lite", R, TI, 1_048_576, 65_536, [0.1, 0.4, 0.025, 0.0]),
    row("google", "gemma-4-31b-it", "Gemma 4 31B IT", R, TI, 256_000, 8192, [0.0, 0.0, 0.0, 0.0])
        .map(&[("off", None), ("minimal", Some("MINIMAL")), ("low", None), ("medium", None), ("high", Some("HIGH"))]),
    // xai
    row("xai", "grok-4.3", "Grok 4.3", R, TI, 1_000_000, 30_000, [1.25, 2.5, 0.2, 0.0]),
    row("xai", "grok-4", "Grok 4", R, T, 256_000, 64_000, [3.0, 15.0, 0.75, 0.0]),
    row("xai", "grok-4-1-fast", "Grok 4.1 Fast", R, TI, 2_000_000, 30_000, [0.2, 0.5, 0.05, 0.0]),
    row("xai", "grok-code-fast-1", "Grok Code Fast 1", R, T, 256_000, 10_000, [0.2, 1.5, 0.02, 0.0]),
    // groq
    row("groq", "llama-3.3-70b-versatile", "Llama 3.3 70B Versatile", NR, T, 131_072, 32_768, [0.59, 0.79, 0.0, 0.0]),
    row("groq", "openai/gpt-oss-120b", "GPT OSS 120B", R, T, 131_072, 65_536, [0.15, 0.6, 0.0, 0.0]),
    row("groq", "qwen/qwen3-32b", "Qwen3 32B", R, T, 131_072, 40_960, [0.29, 0.59, 0.0, 0.0])
        .map(&[("minimal", None), ("low", None), ("medium", None), ("high", Some("default"))]),
    // cerebras
    row("cerebras", "gpt-oss-120b", "GPT OSS 120B", R, T, 131_072, 32_768, [0.25, 0.69, 0.0, 0.0]),
    row("cerebras", "zai-glm-4.7", "Z.ai GLM-4.7", NR, T, 131_072, 40_000, [2.25, 2.75, 0.0, 0.0]),
    // deepseek
    row("deepseek", "deepseek-v4-pro", "DeepSeek V4 Pro", R, T, 1_000_000, 384_000, [0.435, 0.87, 0.003625, 0.0]).map(DEEPSEEK_MAP).compat(Compat::DeepSeek),
    row("deepseek", "deepseek-v4-flash", "DeepSeek V4 Flash", R, T, 1_000_000, 384_000, [0.14, 0.28, 0.0028, 0.0]).map(DEEPSEEK_MAP).compat(Compat::DeepSeek),
    // zai
    row("zai", "glm-5.1", "GLM-5.1", R, T, 200_000, 131_072, [0.0, 0.0, 0.0, 0.0]).compat(Compat::Zai),
    row("zai", "glm-4.7", "GLM-4.7", R, T, 204_800, 131_072, [0.0, 0.0, 0.0, 0.0]).compat(Compat::Zai),
    // moonshotai
    row("moonshotai", "kimi-k2.6", "Kimi K2.6", R, TI, 262_144, 262_144, [0.95, 4.0, 0.16, 0.0]).compat(Compat::Moonshot),
    row("moonshotai", "kimi-k2-thinking", "Kimi K2 Thinking", R, T, 262_144, 262_144, [0.6, 2.5, 0.15, 0.0]).compat(Compat::Moonshot),
    // openrouter
    row("openrouter", "anthropic/claude-sonnet-4.5", "Anthropic: Claude Sonnet 4.5", R, TI, 1_000_000, 64_000, [3.0, 15.0, 0.3, 3.75]),
    row("openrouter", "openai/gpt-5", "OpenAI: GPT-5", R, TI, 400_000, 128_000, [1.25, 10.0, 0.125, 0.0]),
    row("openrouter", "google/gemini-2.5-pro", "Google: Gemini 2.5 Pro", R, TI, 1_048_576, 65_536, [1.25, 10.0, 0.125, 0.375]),
    // others
    row("mistral", "devstral-2512", "Devstral 2", NR, T, 262_144, 262_144, [0.4, 2.0, 0.0, 0.0]),
    row("mistral", "mistral-medium-latest", "Mistral Medium (latest)", R, TI, 262_144, 262_144, [1.5, 7.5, 0.0, 0.0]),
    row("minimax", "MiniMax-M2.7", "MiniMax-M2.7", R, T, 204_800, 131_072, [0.3, 1.2, 0.06, 0.375]),
    row("github-copilot", "claude-sonnet-4.6", "Claude Sonnet 4.6", R, TI, 1_000_000, 32_000, [0.0, 0.0, 0.0, 0.0]).api(AM),
    row("github-copilot", "gpt-5.4", "GPT-5.4", R, TI, 400_000, 128_000, [0.0, 0.0, 0.0, 0.0]).api(OR),
    row("github-copilot", "gpt-4.1", "GPT-4.1", NR, TI, 128_000, 16_384, [0.0, 0.0, 0.0, 0.0]).api(OC).compat(Compat::CopilotCompletions),
    row("openai-codex", "gpt-5.5", "GPT-5.5", R, TI, 272_000, 128_000, [5.0, 30.0, 0.5, 0.0])
        .map(&[("minimal", Some("low")), ("xhigh", Some("xhigh"))]),
    // A few models of the APIs served since issue 36 (pi 1.6's values), until the whole
    // catalog lands.
    row("amazon-bedrock", "amazon.nova-lite-v1:0", "Nova Lite", NR, TI, 300_000, 10_000, [0.06, 0.24, 0.015, 0.0]),
    row("amazon-bedrock", "amazon.nova-pro-v1:0", "Nova Pro", NR, TI, 300_000, 10_000, [0.8, 3.2, 0.2, 0.0]),
    row("google-vertex", "gemini-3.1-pro-preview", "Gemini 3.1 Pro Preview", R, TI, 1_048_576, 65_536, [2.0, 12.0, 0.2, 0.0])
        .map(&[("off", None), ("minimal", None), ("low", Some("low")), ("medium", Some("medium")), ("high", Some("high")), ("xhigh", None), ("max", None)]),
    row("google-vertex", "gemini-2.5-pro", "Gemini 2.5 Pro", R, TI, 1_048_576, 65_536, [1.25, 10.0, 0.125, 0.0]),
    row("google-vertex", "gemini-2.5-flash", "Gemini 2.5 Flash", R, TI, 1_048_576, 65_536, [0.3, 2.5, 0.03, 0.0]),
    row("azure", "gpt-5.4", "GPT-5.4", R, TI, 1_050_000, 128_000, [2.5, 15.0, 0.25, 0.0]).map(&[("off", None), ("xhigh", Some("xhigh"))]),
    row("azure", "gpt-4.1", "GPT-4.1", NR, TI, 1_047_576, 32_768, [2.0, 8.0, 0.5, 0.0]),
];

/// Static headers GitHub Copilot requires on every request (§3.5).
pub(crate) const COPILOT_HEADERS: &[(&str, &str)] = &[
    ("User-Agent", "GitHubCopilotChat/0.35.0"),
    ("Editor-Version", "vscode/1.107.0"),
    ("Editor-Plugin-Version", "copilot-chat/0.35.0"),
    ("Copilot-Integration-Id", "vscode-chat"),
];

/// The built-in provider `id`, if any.
pub fn provider_info(id: &str) -> Option<&'static ProviderInfo> {
    PROVIDERS.iter().find(|p| p.id == id)
}

/// Builds every seed model.
pub(super) fn build_models() -> Vec<Model> {
    ROWS.iter().map(build_model).collect()
}

#[allow(
    clippy::expect_used,
    reason = "the seed rows are compiled in and name only built-in providers"
)]
fn build_model(row: &Row) -> Model {
    let provider = provider_info(row.provider).expect("seed rows name built-in providers");
    let map: BTreeMap<String, Option<String>> = row
        .map
        .iter()
        .map(|(level, value)| (level.to_string(), value.map(String::from)))
        .collect();
    let headers = (row.provider == "github-copilot").then(|| {
        COPILOT_HEADERS
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    });
    Model {
        id: row.id.into(),
        name: row.name.into(),
        api: row.api.unwrap_or(provider.api).into(),
        provider: row.provider.into(),
        base_url: provider.base_url.into(),
        reasoning: row.reasoning,
        thinking_level_map: (!map.is_empty()).then_some(map),
        input: if row.image {
            vec![InputKind::Text, InputKind::Image]
        } else {
            vec![InputKind::Text]
        },
        cost: ModelCost {
            input: row.cost[0],
            output: row.cost[1],
            cache_read: row.cost[2],
            cache_write: row.cost[3],
        },
        context_window: row.context_window,
        max_tokens: row.max_tokens,
        headers,
        compat: row.compat.build(),
    }
}
