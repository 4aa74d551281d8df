//! The typed models.json (interfaces §6.4) and its validation from a JSON value.
//!
//! Validation is by hand rather than by serde derive so every error names the exact field
//! (`providers.ollama.models[1].contextWindow: expected a number`).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::catalog::is_builtin_provider;
use crate::model::{
    CostTier, InputKind, InputLimits, ModelCompat, ModelCost, PromptCache, ThinkingLevel,
};

/// `thinkingLevelMap`: level name → wire value, `None` = unsupported.
pub type LevelMap = BTreeMap<String, Option<String>>;
/// A JSON object of compat flags (kept untyped until merged, then read as [`ModelCompat`]).
pub type CompatMap = Map<String, Value>;
/// `samplingParamsByThinkingLevel`: level name → fields merged into the request body.
pub type SamplingByLevel = BTreeMap<String, Map<String, Value>>;

/// The pi 1.x fields a custom model and a model override share, each read as pi's schema
/// types it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelExtras {
    /// `inputLimits`: request size and image limits.
    pub input_limits: Option<InputLimits>,
    /// `promptCache`: cache lifetimes in seconds.
    pub prompt_cache: Option<PromptCache>,
    /// `samplingParams`: fields merged into every OpenAI-compatible request body.
    pub sampling_params: Option<Map<String, Value>>,
    /// `samplingParamsByThinkingLevel`: per level, over `samplingParams`.
    pub sampling_params_by_thinking_level: Option<SamplingByLevel>,
}

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelsConfig {
    /// Provider id → its configuration.
    pub providers: BTreeMap<String, ProviderConfig>,
}

/// One entry of `providers`; every field is optional.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ProviderConfig {
    /// Display name.
    pub name: Option<String>,
    /// Endpoint for the provider's models.
    pub base_url: Option<String>,
    /// Wire API for the provider's models.
    pub api: Option<String>,
    /// Key as written: a template with `$NAME` references, or `!command` (see
    /// [`crate::config_value`]).
    pub api_key: Option<String>,
    /// Extra headers (values in the same forms as `apiKey`).
    pub headers: Option<BTreeMap<String, String>>,
    /// Add `Authorization: Bearer <key>`.
    pub auth_header: bool,
    /// Compat flags for all the provider's models.
    pub compat: Option<CompatMap>,
    /// Custom models (`None` when the key is absent).
    pub models: Option<Vec<ModelDef>>,
    /// Changes to built-in models, by id.
    pub model_overrides: BTreeMap<String, ModelOverride>,
}

/// A custom model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelDef {
    /// Required, non-empty.
    pub id: String,
    /// Defaults to `id`.
    pub name: Option<String>,
    /// Defaults to the provider's.
    pub api: Option<String>,
    /// Defaults to the provider's.
    pub base_url: Option<String>,
    /// Default false.
    pub reasoning: Option<bool>,
    /// Per-level wire values.
    pub thinking_level_map: Option<LevelMap>,
    /// Default `["text"]`.
    pub input: Option<Vec<InputKind>>,
    /// All four prices; default zeros.
    pub cost: Option<ModelCost>,
    /// Default 128000.
    pub context_window: Option<u64>,
    /// Default 16384.
    pub max_tokens: Option<u64>,
    /// Headers over the provider's.
    pub headers: Option<BTreeMap<String, String>>,
    /// Compat over the provider's.
    pub compat: Option<CompatMap>,
    /// Input limits, prompt cache and sampling parameters.
    pub extras: ModelExtras,
}

/// Prices of which only some are given (overrides merge them into the built-in ones).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PartialCost {
    /// Input price.
    pub input: Option<f64>,
    /// Output price.
    pub output: Option<f64>,
    /// Cache-read price.
    pub cache_read: Option<f64>,
    /// Cache-write price.
    pub cache_write: Option<f64>,
    /// Long-prompt price tiers (replace the built-in ones).
    pub tiers: Option<Vec<CostTier>>,
}

/// Changes to one built-in model.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelOverride {
    /// New display name.
    pub name: Option<String>,
    /// New reasoning flag.
    pub reasoning: Option<bool>,
    /// Merged over the built-in map.
    pub thinking_level_map: Option<LevelMap>,
    /// New input kinds.
    pub input: Option<Vec<InputKind>>,
    /// Merged over the built-in prices.
    pub cost: Option<PartialCost>,
    /// New window.
    pub context_window: Option<u64>,
    /// New output cap.
    pub max_tokens: Option<u64>,
    /// Merged over the built-in headers.
    pub headers: Option<BTreeMap<String, String>>,
    /// Merged over the built-in compat.
    pub compat: Option<CompatMap>,
    /// Merged over the built-in values, as pi merges them.
    pub extras: ModelExtras,
}

/// A validation failure: the field path and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Invalid {
    /// e.g. `providers.ollama.models[1].contextWindow`.
    pub path: String,
    /// e.g. `expected a number`.
    pub message: String,
}

type Res<T> = Result<T, Invalid>;

/// An object being read, with its path for error messages.
struct Obj<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

fn invalid(path: impl Into<String>, message: impl Into<String>) -> Invalid {
    Invalid {
        path: path.into(),
        message: message.into(),
    }
}

impl<'a> Obj<'a> {
    fn new(value: &'a Value, path: String) -> Res<Self> {
        match value {
            Value::Object(map) => Ok(Obj { map, path }),
            _ => Err(invalid(path, "expected an object")),
        }
    }

    fn at(&self, key: &str) -> String {
        if self.path.is_empty() {
            key.to_string()
        } else {
            format!("{}.{key}", self.path)
        }
    }

    /// The value of `key`, treating `null` as absent.
    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn string(&self, key: &str) -> Res<Option<String>> {
        self.get(key)
            .map(|v| {
                v.as_str()
                    .map(String::from)
                    .ok_or_else(|| invalid(self.at(key), "expected a string"))
            })
            .transpose()
    }

    fn boolean(&self, key: &str) -> Res<Option<bool>> {
        self.get(key)
            .map(|v| {
                v.as_bool()
                    .ok_or_else(|| invalid(self.at(key), "expected true or false"))
            })
            .transpose()
    }

    fn number(&self, key: &str) -> Res<Option<f64>> {
        self.get(key)
            .map(|v| {
                v.as_f64()
                    .ok_or_else(|| invalid(self.at(key), "expected a number"))
            })
            .transpose()
    }

    /// A whole number greater than zero.
    fn positive(&self, key: &str) -> Res<Option<u64>> {
        let Some(n) = self.number(key)? else {
            return Ok(None);
        };
        if n <= 0.0 {
            return Err(invalid(self.at(key), "must be greater than 0"));
        }
        if n.fract() != 0.0 || n > u64::MAX as f64 {
            return Err(invalid(self.at(key), "expected a whole number"));
        }
        Ok(Some(n as u64))
    }

    fn object(&self, key: &str) -> Res<Option<Obj<'a>>> {
        self.get(key).map(|v| Obj::new(v, self.at(key))).transpose()
    }

    fn string_map(&self, key: &str) -> Res<Option<BTreeMap<String, String>>> {
        let Some(obj) = self.object(key)? else {
            return Ok(None);
        };
        let mut out = BTreeMap::new();
        for (name, value) in obj.map {
            let text = value
                .as_str()
                .ok_or_else(|| invalid(obj.at(name), "expected a string"))?;
            out.insert(name.clone(), text.to_string());
        }
        Ok(Some(out))
    }

    fn level_map(&self, key: &str) -> Res<Option<LevelMap>> {
        let Some(obj) = self.object(key)? else {
            return Ok(None);
        };
        let mut out = LevelMap::new();
        for (level, value) in obj.map {
            if ThinkingLevel::parse(level).is_none() {
                return Err(invalid(
                    obj.at(level),
                    "unknown thinking level (use off, minimal, low, medium, high, xhigh or max)",
                ));
            }
            let wire = match value {
                Value::Null => None,
                Value::String(s) => Some(s.clone()),
                _ => return Err(invalid(obj.at(level), "expected a string or null")),
            };
            out.insert(level.clone(), wire);
        }
        Ok(Some(out))
    }

    fn input(&self, key: &str) -> Res<Option<Vec<InputKind>>> {
        let Some(value) = self.get(key) else {
            return Ok(None);
        };
        let items = value
            .as_array()
            .ok_or_else(|| invalid(self.at(key), "expected an array of \"text\" / \"image\""))?;
        let kinds = items
            .iter()
            .enumerate()
            .map(|(i, item)| match item.as_str() {
                Some("text") => Ok(InputKind::Text),
                Some("image") => Ok(InputKind::Image),
                _ => Err(invalid(
                    format!("{}[{i}]", self.at(key)),
                    "expected \"text\" or \"image\"",
                )),
            });
        kinds.collect::<Res<Vec<_>>>().map(Some)
    }

    /// A compat object; each known flag is type-checked against [`ModelCompat`].
    fn compat(&self, key: &str) -> Res<Option<CompatMap>> {
        let Some(obj) = self.object(key)? else {
            return Ok(None);
        };
        for (flag, value) in obj.map {
            let single = Value::Object(Map::from_iter([(flag.clone(), value.clone())]));
            if let Err(e) = serde_json::from_value::<ModelCompat>(single) {
                return Err(invalid(obj.at(flag), e.to_string()));
            }
        }
        Ok(Some(obj.map.clone()))
    }

    fn partial_cost(&self, key: &str) -> Res<Option<PartialCost>> {
        let Some(obj) = self.object(key)? else {
            return Ok(None);
        };
        Ok(Some(PartialCost {
            input: obj.number("input")?,
            output: obj.number("output")?,
            cache_read: obj.number("cacheRead")?,
            cache_write: obj.number("cacheWrite")?,
            tiers: obj.typed("tiers")?,
        }))
    }

    /// A value of a plain serde type (`inputLimits`, `promptCache`, price tiers), its error
    /// naming the field.
    fn typed<T: serde::de::DeserializeOwned>(&self, key: &str) -> Res<Option<T>> {
        self.get(key)
            .map(|v| {
                serde_json::from_value(v.clone()).map_err(|e| invalid(self.at(key), e.to_string()))
            })
            .transpose()
    }

    /// `samplingParams`: any JSON object.
    fn json_object(&self, key: &str) -> Res<Option<Map<String, Value>>> {
        Ok(self.object(key)?.map(|o| o.map.clone()))
    }

    /// `samplingParamsByThinkingLevel`: an object per known level.
    fn sampling_by_level(&self, key: &str) -> Res<Option<SamplingByLevel>> {
        let Some(obj) = self.object(key)? else {
            return Ok(None);
        };
        let mut out = SamplingByLevel::new();
        for level in obj.map.keys() {
            if ThinkingLevel::parse(level).is_none() {
                return Err(invalid(
                    obj.at(level),
                    "unknown thinking level (use off, minimal, low, medium, high, xhigh or max)",
                ));
            }
            if let Some(params) = obj.json_object(level)? {
                out.insert(level.clone(), params);
            }
        }
        Ok(Some(out))
    }

    fn extras(&self) -> Res<ModelExtras> {
        Ok(ModelExtras {
            input_limits: self.typed("inputLimits")?,
            prompt_cache: self.typed("promptCache")?,
            sampling_params: self.json_object("samplingParams")?,
            sampling_params_by_thinking_level: self
                .sampling_by_level("samplingParamsByThinkingLevel")?,
        })
    }

    /// A full cost: all four prices required.
    fn cost(&self, key: &str) -> Res<Option<ModelCost>> {
        let Some(partial) = self.partial_cost(key)? else {
            return Ok(None);
        };
        let need = |v: Option<f64>, field: &str| {
            v.ok_or_else(|| {
                invalid(
                    format!("{}.{field}", self.at(key)),
                    "is required when cost is given",
                )
            })
        };
        Ok(Some(ModelCost {
            input: need(partial.input, "input")?,
            output: need(partial.output, "output")?,
            cache_read: need(partial.cache_read, "cacheRead")?,
            cache_write: need(partial.cache_write, "cacheWrite")?,
            tiers: partial.tiers.unwrap_or_default(),
        }))
    }
}

/// Validates the parsed file into a [`ModelsConfig`].
pub fn validate(root: &Value) -> Res<ModelsConfig> {
    let root = Obj::new(root, String::new()).map_err(|e| invalid("(root)", e.message))?;
    let providers = root
        .object("providers")?
        .ok_or_else(|| invalid("providers", "is required (an object keyed by provider id)"))?;
    let mut out = ModelsConfig::default();
    for (id, value) in providers.map {
        let provider = Obj::new(value, providers.at(id))?;
        out.providers
            .insert(id.clone(), provider_config(id, &provider)?);
    }
    Ok(out)
}

fn provider_config(id: &str, p: &Obj) -> Res<ProviderConfig> {
    let mut config = ProviderConfig {
        name: p.string("name")?,
        base_url: p.string("baseUrl")?,
        api: p.string("api")?,
        api_key: p.string("apiKey")?,
        headers: p.string_map("headers")?,
        auth_header: p.boolean("authHeader")?.unwrap_or(false),
        compat: p.compat("compat")?,
        models: None,
        model_overrides: BTreeMap::new(),
    };
    if let Some(overrides) = p.object("modelOverrides")? {
        for (model_id, value) in overrides.map {
            let o = Obj::new(value, overrides.at(model_id))?;
            config
                .model_overrides
                .insert(model_id.clone(), model_override(&o)?);
        }
    }
    if let Some(value) = p.get("models") {
        let items = value
            .as_array()
            .ok_or_else(|| invalid(p.at("models"), "expected an array"))?;
        let defs = items
            .iter()
            .enumerate()
            .map(|(i, item)| model_def(&Obj::new(item, format!("{}[{i}]", p.at("models")))?));
        config.models = Some(defs.collect::<Res<Vec<_>>>()?);
    }
    check_provider(id, p, &config)?;
    Ok(config)
}

/// The cross-field rules of §6.4.
fn check_provider(id: &str, p: &Obj, config: &ProviderConfig) -> Res<()> {
    let Some(models) = &config.models else {
        let useful = config.base_url.is_some()
            || config.headers.is_some()
            || config.compat.is_some()
            || !config.model_overrides.is_empty();
        if !useful {
            return Err(invalid(
                p.path.clone(),
                "set \"models\", or at least one of \"baseUrl\", \"headers\", \"compat\", \"modelOverrides\"",
            ));
        }
        return Ok(());
    };
    if is_builtin_provider(id) || models.is_empty() {
        return Ok(());
    }
    if config.base_url.is_none() {
        return Err(invalid(
            p.at("baseUrl"),
            "is required for a custom provider with models",
        ));
    }
    if config.api_key.is_none() {
        return Err(invalid(
            p.at("apiKey"),
            "is required for a custom provider with models (a key, an env var name, or !command)",
        ));
    }
    for (i, model) in models.iter().enumerate() {
        if model.api.is_none() && config.api.is_none() {
            return Err(invalid(
                format!("{}[{i}].api", p.at("models")),
                "is required (set \"api\" on the provider or on the model)",
            ));
        }
    }
    Ok(())
}

fn model_def(m: &Obj) -> Res<ModelDef> {
    let id = m
        .string("id")?
        .filter(|id| !id.trim().is_empty())
        .ok_or_else(|| invalid(m.at("id"), "is required (a non-empty string)"))?;
    Ok(ModelDef {
        id,
        name: m.string("name")?,
        api: m.string("api")?,
        base_url: m.string("baseUrl")?,
        reasoning: m.boolean("reasoning")?,
        thinking_level_map: m.level_map("thinkingLevelMap")?,
        input: m.input("input")?,
        cost: m.cost("cost")?,
        context_window: m.positive("contextWindow")?,
        max_tokens: m.positive("maxTokens")?,
        headers: m.string_map("headers")?,
        compat: m.compat("compat")?,
        extras: m.extras()?,
    })
}

fn model_override(o: &Obj) -> Res<ModelOverride> {
    Ok(ModelOverride {
        name: o.string("name")?,
        reasoning: o.boolean("reasoning")?,
        thinking_level_map: o.level_map("thinkingLevelMap")?,
        input: o.input("input")?,
        cost: o.partial_cost("cost")?,
        context_window: o.positive("contextWindow")?,
        max_tokens: o.positive("maxTokens")?,
        headers: o.string_map("headers")?,
        compat: o.compat("compat")?,
        extras: o.extras()?,
    })
}
