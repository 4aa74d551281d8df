//! `--list-models [search]`: the table of models whose provider has configured auth
//! (interfaces spec §7), with pi's texts for the empty cases.

use std::collections::HashMap;
use std::path::Path;

use rho_ai::catalog::select::{list_models, list_models_table};
use rho_ai::registry::ModelRegistry;

use rho_rpc::first_run;

/// The text `--list-models` prints on stdout. `has_auth` says which providers are usable
/// (asked once per provider); `agent_dir` is named in the text for the case that none is.
pub fn render(
    models: &ModelRegistry,
    has_auth: &dyn Fn(&str) -> bool,
    search: Option<&str>,
    agent_dir: &Path,
) -> String {
    let usable: HashMap<String, bool> = models
        .provider_ids()
        .into_iter()
        .map(|p| {
            let ok = has_auth(&p);
            (p, ok)
        })
        .collect();
    if !usable.values().any(|ok| *ok) {
        return first_run::list_models_empty(agent_dir);
    }
    let available = models.all_where(&|p| usable.get(p).copied().unwrap_or(false));
    if available.is_empty() {
        return first_run::list_models_empty(agent_dir);
    }
    let search = search.filter(|s| !s.is_empty());
    let rows = list_models(&available, search);
    if rows.is_empty() {
        return format!("No models matching \"{}\"\n", search.unwrap_or_default());
    }
    list_models_table(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rho_ai::registry::Base;

    #[test]
    fn only_authenticated_providers_are_listed() {
        let models = ModelRegistry::with_config(Base::Catalog(None), Default::default(), None);
        let only_xai = |p: &str| p == "xai";
        let dir = Path::new("/a");
        let text = render(&models, &only_xai, None, dir);
        let mut lines = text.lines();
        assert!(lines.next().expect("header").starts_with("provider  model"));
        assert!(lines.all(|l| l.starts_with("xai ")), "{text}");
        assert_eq!(
            render(&models, &|_: &str| false, None, dir),
            first_run::list_models_empty(dir)
        );
        assert_eq!(
            render(&models, &only_xai, Some("claude"), dir),
            "No models matching \"claude\"\n"
        );
        // A provider without models (TypeSafe lists classifiers only) lists nothing.
        assert_eq!(
            render(&models, &|p: &str| p == "typesafe", None, dir),
            first_run::list_models_empty(dir)
        );
    }
}
