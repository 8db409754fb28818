//! The values warden knows to be secret, by the variable that holds each: every variable of
//! its environment whose name looks secret (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*_PASSWORD`,
//! `*_CREDENTIALS`: the provider keys among them), and the variables the configuration reads
//! secrets from (registry passwords, telemetry and MCP headers). These are masked wherever
//! they would leave (`domain::redact`).

use super::Config;
use super::looks_secret;

/// `(name, value)` of every known secret in `vars` (the process environment), sorted by name.
pub fn known_secrets(
    config: &Config,
    vars: impl IntoIterator<Item = (String, String)>,
) -> Vec<(String, String)> {
    let mut named: Vec<&str> = Vec::new();
    for host in config.registries.hosts.values() {
        named.extend(host.password_env.as_deref());
    }
    named.push("WARDEN_REGISTRY_PASSWORD");
    named.extend(config.telemetry.headers_env.values().map(String::as_str));
    for server in &config.mcp {
        named.extend(server.headers.iter().map(|h| h.var.as_str()));
    }
    let mut out: Vec<(String, String)> = vars
        .into_iter()
        .filter(|(name, value)| {
            !value.is_empty() && (looks_secret(name) || named.contains(&name.as_str()))
        })
        .collect();
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_looking_names_and_the_configured_ones_are_known() {
        let mut config = Config::default();
        config
            .telemetry
            .headers_env
            .insert("authorization".into(), "OTEL_AUTH".into());
        let vars = [
            ("OPENAI_API_KEY", "sk-1234567890"),
            ("GH_TOKEN", "ghp_x"),
            ("OTEL_AUTH", "Bearer abc"),
            ("PATH", "/usr/bin"),
            ("EMPTY_TOKEN", ""),
        ]
        .map(|(k, v)| (k.to_owned(), v.to_owned()));
        let known: Vec<String> = known_secrets(&config, vars)
            .into_iter()
            .map(|(k, _)| k)
            .collect();
        assert_eq!(known, ["GH_TOKEN", "OPENAI_API_KEY", "OTEL_AUTH"]);
    }
}
