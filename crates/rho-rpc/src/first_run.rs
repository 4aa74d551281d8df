//! First-run guidance: what to do when no model or no key is usable, worded for the mode
//! the user is in (issue 18.9). Print and JSON modes have no `/model` or `/login`, so their
//! texts name flags, environment variables and files; the interactive texts name commands.
//! RPC keeps D7's texts (pi's clients show them as they are).

use std::path::Path;

/// The variables named as examples of where keys can come from.
const EXAMPLE_KEY_VARS: &str = "ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY";

/// Where keys and models live, one sentence.
fn where_keys_go(agent_dir: &Path) -> String {
    format!(
        "set a provider's API key in its environment variable ({EXAMPLE_KEY_VARS}, ...) or in \
         {auth}, or add a provider (a local server, a proxy) to {models}",
        auth = agent_dir.join("auth.json").display(),
        models = agent_dir.join("models.json").display(),
    )
}

/// `rho -p` / `--mode json` without a usable model.
pub fn print_no_model(agent_dir: &Path) -> String {
    format!(
        "No model selected. Pass --model <provider>/<id> (rho --list-models shows the usable \
         ones); to make one usable, {}.",
        where_keys_go(agent_dir)
    )
}

/// `rho -p` / `--mode json` with a model whose provider has no key.
pub fn print_no_api_key(provider: &str, agent_dir: &Path) -> String {
    let var = rho_ai::api_key::primary_env_var(provider)
        .map(|v| format!("set the {v} environment variable, "))
        .unwrap_or_default();
    format!(
        "No API key found for {provider}. To use it, {var}pass --api-key <key> with --model, \
         or add {{\"{provider}\": {{\"type\": \"api_key\", \"key\": \"...\"}}}} to {auth}.",
        auth = agent_dir.join("auth.json").display(),
    )
}

/// `rho --list-models` when no provider has a key.
pub fn list_models_empty(agent_dir: &Path) -> String {
    format!(
        "No models available. To list models, {}.\n",
        where_keys_go(agent_dir)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_texts_name_no_editor_commands() {
        let dir = Path::new("/home/u/.rho/agent");
        for text in [
            print_no_model(dir),
            print_no_api_key("anthropic", dir),
            list_models_empty(dir),
        ] {
            assert!(
                !text.contains(" /model") && !text.contains("/login"),
                "{text}"
            );
            assert!(text.contains("/home/u/.rho/agent/auth.json"), "{text}");
        }
        assert!(print_no_api_key("anthropic", dir).contains("ANTHROPIC_API_KEY"));
    }
}
