//! Every model rho knows, in pi 1.6's layers: the built-in catalog, the refreshed catalogs of
//! models-store.json over it ([`crate::models_store::overlay`]), models.json over both
//! (provider settings, `modelOverrides`, custom models), and providers extensions register,
//! which replace a provider's list. Extensions register and unregister providers and virtual
//! models at any time (pi applies a registration at once): that layer changes in place and
//! every holder of [`ModelRegistry::list`] sees the change on its next read.
//!
//! Nothing is built at load: [`ModelRegistry::find`] builds the one model it is asked for
//! (start-up selects a model that way), and [`ModelRegistry::all`] builds the whole list once,
//! shared with the session through [`ModelRegistry::list`].

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, RwLock, RwLockReadGuard};

use crate::catalog;
use crate::model::Model;
use crate::model_list::ModelList;
use crate::models_json::{
    apply_provider, custom_model, merge_into, read_models_json, ModelsConfig, ModelsJsonError,
    ProviderConfig,
};
use crate::models_store::overlay::overlay;
use crate::models_store::ModelsStore;
use crate::time::iso_to_ms;

/// What the layers start from.
#[derive(Clone, Debug)]
pub enum Base {
    /// The built-in catalog, with the refreshed catalogs of a store when there is one.
    Catalog(Option<Arc<ModelsStore>>),
    /// A fixed list (tests; registries of extension providers alone).
    Models(Arc<Vec<Model>>),
}

impl Base {
    /// The models of `provider` in this base.
    fn provider_models(&self, provider: &str) -> Vec<Model> {
        match self {
            Base::Catalog(store) => {
                let builtin = catalog::provider_models(provider).unwrap_or_default();
                let stored = store.as_ref().and_then(|s| s.catalog(provider));
                overlay(provider, builtin, stored, generated_at_ms())
            }
            Base::Models(models) => models
                .iter()
                .filter(|m| m.provider == provider)
                .cloned()
                .collect(),
        }
    }

    /// One model of the base, building as little as it can.
    fn find(&self, provider: &str, id: &str) -> Option<Model> {
        match self {
            Base::Catalog(store) if !store.as_ref().is_some_and(|s| s.has_entry(provider)) => {
                catalog::find_builtin(provider, id)
            }
            Base::Catalog(_) => self
                .provider_models(provider)
                .into_iter()
                .find(|m| m.id == id),
            Base::Models(models) => models
                .iter()
                .find(|m| m.provider == provider && m.id == id)
                .cloned(),
        }
    }

    /// The models of the providers `keep` accepts.
    fn models_where(&self, keep: &dyn Fn(&str) -> bool) -> Vec<Model> {
        match self {
            Base::Catalog(_) => catalog_provider_ids()
                .filter(|id| keep(id))
                .flat_map(|id| self.provider_models(id))
                .collect(),
            Base::Models(models) => models
                .iter()
                .filter(|m| keep(&m.provider))
                .cloned()
                .collect(),
        }
    }

    /// Provider ids in list order.
    fn provider_ids(&self) -> Vec<String> {
        let mut ids: Vec<String> = match self {
            Base::Catalog(_) => catalog_provider_ids().map(str::to_string).collect(),
            Base::Models(models) => models.iter().map(|m| m.provider.clone()).collect(),
        };
        dedup_in_order(&mut ids);
        ids
    }
}

/// The providers of the catalog base: pi 1.6's built-in ones, then a llama.cpp router's
/// (whose models only the store holds).
fn catalog_provider_ids() -> impl Iterator<Item = &'static str> {
    catalog::providers()
        .map(|p| p.id)
        .chain([crate::llama::PROVIDER])
}

/// When the built-in catalog was generated, Unix ms (refreshed catalogs must be newer).
pub fn generated_at_ms() -> i64 {
    iso_to_ms(catalog::source().generated_at).unwrap_or(0)
}

/// An extension's virtual model refused because its provider lists a physical model of the
/// same id (pi's words): the extension must pick another id.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Virtual model {provider}/{id} conflicts with a physical model.")]
pub struct VirtualConflict {
    /// The provider.
    pub provider: String,
    /// The model id both use.
    pub id: String,
}

/// What extensions registered: the top layer, changed in place.
#[derive(Debug, Default, Clone)]
struct ExtensionLayer {
    /// Extension providers: their whole model lists and their (merged) configs.
    providers: Vec<(String, Vec<Model>, ProviderConfig)>,
    /// Extensions' virtual models ([`Model::is_virtual`]), listed after their provider's
    /// physical models; one hides a physical model of the same provider and id.
    virtual_models: Vec<Model>,
}

/// The layered registry.
#[derive(Debug)]
pub struct ModelRegistry {
    base: Base,
    /// models.json as the user wrote it.
    config: ModelsConfig,
    error: Option<ModelsJsonError>,
    extensions: Arc<RwLock<ExtensionLayer>>,
    list: ModelList,
}

impl ModelRegistry {
    /// `base` with the models.json at `path` (a missing file is no error; a broken one is
    /// ignored whole and reported by [`ModelRegistry::error`]).
    pub fn load(path: &Path, base: Base) -> Self {
        let (config, error) = read_models_json(path);
        Self::with_config(base, config, error)
    }

    /// `base` with an already read models.json.
    pub fn with_config(base: Base, config: ModelsConfig, error: Option<ModelsJsonError>) -> Self {
        let extensions = Arc::new(RwLock::new(ExtensionLayer::default()));
        let list = {
            let (base, config, extensions) = (base.clone(), config.clone(), extensions.clone());
            ModelList::new(move || {
                let layer = extensions.read().unwrap_or_else(|p| p.into_inner());
                let mut models = build(&base, &config, &layer.providers, &|_| true);
                with_virtual(&mut models, &layer.virtual_models, &|_| true);
                models
            })
        };
        Self {
            base,
            config,
            error,
            extensions,
            list,
        }
    }

    fn layer(&self) -> RwLockReadGuard<'_, ExtensionLayer> {
        self.extensions.read().unwrap_or_else(|p| p.into_inner())
    }

    /// Changes the extension layer; every holder of the list builds it again.
    fn change<T>(&self, f: impl FnOnce(&mut ExtensionLayer) -> T) -> T {
        let out = f(&mut self.extensions.write().unwrap_or_else(|p| p.into_inner()));
        self.list.invalidate();
        out
    }

    /// Why models.json was ignored, if it was.
    pub fn error(&self) -> Option<&ModelsJsonError> {
        self.error.as_ref()
    }

    /// The config of every provider models.json names, an extension provider's in place of
    /// the entry of its name.
    pub fn providers(&self) -> BTreeMap<String, ProviderConfig> {
        let mut providers = self.config.providers.clone();
        for (name, _, config) in &self.layer().providers {
            providers.insert(name.clone(), config.clone());
        }
        providers
    }

    /// The store of refreshed catalogs the registry reads, if any.
    pub fn store(&self) -> Option<&Arc<ModelsStore>> {
        match &self.base {
            Base::Catalog(store) => store.as_ref(),
            Base::Models(_) => None,
        }
    }

    /// The config of `provider`: an extension provider's, else its models.json entry.
    pub fn provider(&self, provider: &str) -> Option<ProviderConfig> {
        let layer = self.layer();
        match layer.providers.iter().find(|(name, _, _)| name == provider) {
            Some((_, _, config)) => Some(config.clone()),
            None => self.config.providers.get(provider).cloned(),
        }
    }

    /// The user's models.json entry of `provider`, if any (what an extension provider of the
    /// same name is overlaid with).
    pub fn user_provider(&self, provider: &str) -> Option<&ProviderConfig> {
        self.config.providers.get(provider)
    }

    /// The model `id` of `provider` as the whole list would have it, built alone.
    pub fn find(&self, provider: &str, id: &str) -> Option<Model> {
        if let Some(model) = self.find_virtual(provider, id) {
            return Some(model);
        }
        self.find_physical(provider, id)
    }

    /// The physical model `id` of `provider` (what a virtual model may route to).
    pub fn find_physical(&self, provider: &str, id: &str) -> Option<Model> {
        let layer = self.layer();
        if let Some((_, models, _)) = layer.providers.iter().find(|(name, _, _)| name == provider) {
            return models.iter().find(|m| m.id == id).cloned();
        }
        drop(layer);
        let config = self.config.providers.get(provider);
        let custom = config.and_then(|c| Some((c, c.models.as_ref()?.iter().rev())));
        if let Some((c, mut defs)) = custom {
            if let Some(def) = defs.find(|d| d.id == id) {
                return Some(custom_model(provider, c, def));
            }
        }
        let model = self.base.find(provider, id)?;
        Some(match config {
            Some(c) => apply_provider(model, c),
            None => model,
        })
    }

    fn find_virtual(&self, provider: &str, id: &str) -> Option<Model> {
        self.layer()
            .virtual_models
            .iter()
            .find(|m| m.provider == provider && m.id == id)
            .cloned()
    }

    /// Adds an extension's virtual model (`model.is_virtual()`); the same provider and id
    /// again replaces it. Refused when `provider` lists a physical model `id` (pi's "conflicts
    /// with a physical model").
    pub fn add_virtual_model(&self, model: Model) -> Result<(), VirtualConflict> {
        if self.find_virtual(&model.provider, &model.id).is_none()
            && self.find_physical(&model.provider, &model.id).is_some()
        {
            return Err(VirtualConflict {
                provider: model.provider,
                id: model.id,
            });
        }
        self.change(|layer| {
            layer
                .virtual_models
                .retain(|m| (&m.provider, &m.id) != (&model.provider, &model.id));
            layer.virtual_models.push(model);
        });
        Ok(())
    }

    /// Removes an extension's virtual model; `false` when there was none.
    pub fn remove_virtual_model(&self, provider: &str, id: &str) -> bool {
        self.change(|layer| {
            let before = layer.virtual_models.len();
            layer
                .virtual_models
                .retain(|m| (m.provider.as_str(), m.id.as_str()) != (provider, id));
            layer.virtual_models.len() != before
        })
    }

    /// Whether `provider` lists only virtual models: it needs no credentials (pi marks it
    /// configured).
    pub fn is_virtual_only(&self, provider: &str) -> bool {
        let has_virtual = self
            .layer()
            .virtual_models
            .iter()
            .any(|m| m.provider == provider);
        has_virtual && !self.provider_ids_physical().iter().any(|p| p == provider)
    }

    /// Every model (built on first use, then shared).
    pub fn all(&self) -> Arc<Vec<Model>> {
        self.list.get()
    }

    /// The models of the providers `keep` accepts, as the whole list has them, building only
    /// those (`--list-models` shows the providers with credentials).
    pub fn all_where(&self, keep: &dyn Fn(&str) -> bool) -> Vec<Model> {
        if self.list.is_built() {
            return self
                .all()
                .iter()
                .filter(|m| keep(&m.provider))
                .cloned()
                .collect();
        }
        let layer = self.layer();
        let mut models = build(&self.base, &self.config, &layer.providers, keep);
        with_virtual(&mut models, &layer.virtual_models, keep);
        models
    }

    /// The shared list handle (what the session chooses models from).
    pub fn list(&self) -> ModelList {
        self.list.clone()
    }

    /// Provider ids in the list's order: the base's, models.json's own, extension ones.
    pub fn provider_ids(&self) -> Vec<String> {
        let mut ids = self.provider_ids_physical();
        ids.extend(
            self.layer()
                .virtual_models
                .iter()
                .map(|m| m.provider.clone()),
        );
        dedup_in_order(&mut ids);
        ids
    }

    fn provider_ids_physical(&self) -> Vec<String> {
        let mut ids = self.base.provider_ids();
        ids.extend(self.config.providers.keys().cloned());
        ids.extend(
            self.layer()
                .providers
                .iter()
                .map(|(name, _, _)| name.clone()),
        );
        dedup_in_order(&mut ids);
        ids
    }

    /// An extension's provider: `models` replace whatever `name` had, `config` is its
    /// (merged) provider config. Registered again, the new one replaces it.
    pub fn replace_provider(&self, name: &str, models: Vec<Model>, config: ProviderConfig) {
        self.change(|layer| {
            layer.providers.retain(|(n, _, _)| n != name);
            layer.providers.push((name.to_string(), models, config));
        });
    }

    /// Removes an extension's provider (pi's `unregisterProvider`): the models it replaced,
    /// built-in or models.json ones, are listed again. `false` when there was none.
    pub fn remove_provider(&self, name: &str) -> bool {
        self.change(|layer| {
            let before = layer.providers.len();
            layer.providers.retain(|(n, _, _)| n != name);
            layer.providers.len() != before
        })
    }

    /// Reads the refreshed catalogs again (after a refresh): the next [`ModelRegistry::all`]
    /// and every holder of [`ModelRegistry::list`] see them.
    pub fn reload_store(&self) {
        if let Base::Catalog(Some(store)) = &self.base {
            store.invalidate();
        }
        self.list.invalidate();
    }
}

/// The layers over the providers `keep` accepts: base, models.json, extension providers.
fn build(
    base: &Base,
    config: &ModelsConfig,
    replaced: &[(String, Vec<Model>, ProviderConfig)],
    keep: &dyn Fn(&str) -> bool,
) -> Vec<Model> {
    let mut models = merge_into(base.models_where(keep), config);
    models.retain(|m| keep(&m.provider));
    for (name, own, _) in replaced.iter().filter(|(name, _, _)| keep(name)) {
        models.retain(|m| &m.provider != name);
        models.extend(own.iter().cloned());
    }
    models
}

/// Puts the virtual models `keep` accepts after the physical ones, each hiding a physical
/// model of its provider and id.
fn with_virtual(models: &mut Vec<Model>, virtual_models: &[Model], keep: &dyn Fn(&str) -> bool) {
    let kept: Vec<&Model> = virtual_models
        .iter()
        .filter(|m| keep(&m.provider))
        .collect();
    if kept.is_empty() {
        return;
    }
    models.retain(|m| {
        !kept
            .iter()
            .any(|v| v.provider == m.provider && v.id == m.id)
    });
    models.extend(kept.into_iter().cloned());
}

fn dedup_in_order(ids: &mut Vec<String>) {
    let mut seen = std::collections::HashSet::new();
    ids.retain(|id| seen.insert(id.clone()));
}

#[cfg(test)]
#[path = "registry_tests.rs"]
mod tests;
