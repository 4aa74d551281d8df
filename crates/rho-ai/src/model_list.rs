//! A model list built on first use and shared after.
//!
//! The whole list (pi's catalog is about 1,700 models, plus refreshed catalogs and models.json)
//! costs milliseconds to build; start-up only needs the one model it selects, so the list is
//! built when something first asks for all of it (`/model`, `get_available_models`, model
//! cycling, `--list-models`), once, and every holder shares that build. A refreshed catalog
//! [`ModelList::invalidate`]s it: the next reader builds it again from the new data.

use std::sync::{Arc, Mutex};

use crate::model::Model;

type Build = Arc<dyn Fn() -> Vec<Model> + Send + Sync>;

/// A shared, lazily built list of models. Clones share one build.
#[derive(Clone)]
pub struct ModelList {
    inner: Arc<Inner>,
}

struct Inner {
    build: Build,
    built: Mutex<Option<Arc<Vec<Model>>>>,
}

impl std::fmt::Debug for ModelList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelList")
            .field("built", &self.is_built())
            .finish()
    }
}

impl ModelList {
    /// A list `build` makes when first read (and again after [`ModelList::invalidate`]).
    pub fn new(build: impl Fn() -> Vec<Model> + Send + Sync + 'static) -> Self {
        Self {
            inner: Arc::new(Inner {
                build: Arc::new(build),
                built: Mutex::new(None),
            }),
        }
    }

    /// A list that is already built (tests, extension-only registries).
    pub fn ready(models: Vec<Model>) -> Self {
        let models = Arc::new(models);
        let list = Self::new({
            let models = models.clone();
            move || models.as_ref().clone()
        });
        *list.slot() = Some(models);
        list
    }

    /// The built-in catalog alone.
    pub fn builtin() -> Self {
        Self::new(|| crate::catalog::builtin_models().to_vec())
    }

    /// The models, built now if no one has asked before.
    pub fn get(&self) -> Arc<Vec<Model>> {
        let mut slot = self.slot();
        match &*slot {
            Some(models) => models.clone(),
            None => {
                let models = Arc::new((self.inner.build)());
                *slot = Some(models.clone());
                models
            }
        }
    }

    /// Whether the list has been built (start-up tests check it was not).
    pub fn is_built(&self) -> bool {
        self.slot().is_some()
    }

    /// Drops the build, so the next [`ModelList::get`] builds from current data.
    pub fn invalidate(&self) {
        *self.slot() = None;
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, Option<Arc<Vec<Model>>>> {
        self.inner.built.lock().unwrap_or_else(|p| p.into_inner())
    }
}

impl Default for ModelList {
    fn default() -> Self {
        Self::builtin()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn builds_once_on_first_read_and_again_after_invalidate() {
        let builds = Arc::new(AtomicUsize::new(0));
        let counter = builds.clone();
        let list = ModelList::new(move || {
            counter.fetch_add(1, Ordering::SeqCst);
            vec![Model::default()]
        });
        let shared = list.clone();
        assert!(!list.is_built());
        assert_eq!(builds.load(Ordering::SeqCst), 0);
        assert_eq!(list.get().len(), 1);
        assert!(Arc::ptr_eq(&list.get(), &shared.get()));
        assert_eq!(builds.load(Ordering::SeqCst), 1);
        shared.invalidate();
        assert!(!list.is_built());
        list.get();
        assert_eq!(builds.load(Ordering::SeqCst), 2);
        assert!(ModelList::ready(Vec::new()).is_built());
    }
}
