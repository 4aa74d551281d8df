//! `--list-models [search]`: the table of models whose provider has configured auth
//! (interfaces spec §7), with pi's texts for the empty cases.

use rho_ai::catalog::select::{list_models, list_models_table};
use rho_ai::Model;

/// The text `--list-models` prints on stdout. `has_auth` says which providers are usable.
pub fn render(models: &[Model], has_auth: &dyn Fn(&str) -> bool, search: Option<&str>) -> String {
    let available: Vec<Model> = models
        .iter()
        .filter(|m| has_auth(&m.provider))
        .cloned()
        .collect();
    if available.is_empty() {
        return "No models available. Set API keys in environment variables.\n".to_string();
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
    use rho_ai::catalog::builtin_models;

    #[test]
    fn only_authenticated_providers_are_listed() {
        let only_xai = |p: &str| p == "xai";
        let text = render(builtin_models(), &only_xai, None);
        let mut lines = text.lines();
        assert!(lines.next().expect("header").starts_with("provider  model"));
        assert!(lines.all(|l| l.starts_with("xai ")), "{text}");
        assert_eq!(
            render(builtin_models(), &|_: &str| false, None),
            "No models available. Set API keys in environment variables.\n"
        );
        assert_eq!(
            render(builtin_models(), &only_xai, Some("claude")),
            "No models matching \"claude\"\n"
        );
    }
}
