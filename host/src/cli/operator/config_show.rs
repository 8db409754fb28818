//! `warden config show [--json]`: every effective value, the layer it came from (default,
//! user, project, managed) and the file, which keys managed policy locks, and the plugins with
//! the layer that declared each. A plugin entry that policy refuses is shown as `refused` with
//! its reason, after everything else, and the command then exits 2. A project setting that
//! waits for trust ([`HELD_SETTINGS`](crate::config::HELD_SETTINGS)) in a workspace not trusted
//! is marked `held back until trusted` (`"held_back": true`). A built-in default lowered to a
//! managed ceiling is shown as `[default, clamped by …]` (`"clamped_by"`). An optional key no
//! layer set is listed with what applies instead (`[default, unset: …]`, `"unset": true`), and
//! the rules in force one per line, as `warden rules list` shows them.

use std::path::Path;

use serde_json::{Value, json};

use crate::cli::common::{env, print_alert};
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::{self, Sources};
use crate::domain::Alert;
use crate::front::workspace::Workspace;

/// Print the effective configuration of the workspace.
pub(crate) fn show(dir: Option<&Path>, json: bool) -> Result<u8, CliError> {
    let root = Workspace::find(dir)?.root;
    let sources = Sources::standard(&root, &env);
    let (loaded, origins) =
        config::load_with_origins(&sources).map_err(|err| CliError::usage(err.to_string()))?;
    let locked = loaded.config.policy.locked.clone();
    let is_locked = |key: &str| {
        locked
            .iter()
            .any(|l| key == l || key.starts_with(&format!("{l}.")))
    };
    let mut tree = serde_json::to_value(&loaded.config)
        .map_err(|err| CliError::failure(format!("cannot encode the configuration: {err}")))?;
    let mut plugins = tree
        .as_object_mut()
        .and_then(|o| o.remove("plugins"))
        .unwrap_or(Value::Array(Vec::new()));
    // A project's plugins load only in a trusted workspace: each entry says whether it would.
    let project_trusted = crate::store::Home::from_env()
        .ok()
        .and_then(|home| crate::setup::trust::check(&loaded, &root, &home).ok())
        .is_some_and(|state| state.allows());
    for p in plugins.as_array_mut().into_iter().flatten() {
        let trusted = p["origin"] != "project" || project_trusted;
        p["trusted"] = Value::Bool(trusted);
        // Its built-in limits lowered to a ceiling (silently: nobody set them) say so.
        let prefix = format!("plugins.{}.", p["name"].as_str().unwrap_or(""));
        let clamped: serde_json::Map<String, Value> = loaded
            .defaults_clamped
            .iter()
            .filter_map(|c| {
                let key = c.key.strip_prefix(&prefix)?;
                Some((key.to_owned(), Value::String(c.by.clone())))
            })
            .collect();
        if !clamped.is_empty() {
            p["clamped_by"] = Value::Object(clamped);
        }
    }
    let hooks = hook_list(&mut tree, project_trusted);
    // A project's raise of the mode applies only once it is trusted.
    let mode_note = loaded
        .project_code
        .as_ref()
        .and_then(|code| code.mode)
        .filter(|_| !project_trusted)
        .map(|mode| {
            format!(
                "`tools.mode = \"{mode}\"` from the project layer applies only once the project is trusted (`warden trust -C {}`)",
                root.display()
            )
        });
    let mut leaves = Vec::new();
    flatten(&tree, "", &mut leaves);
    let values: Vec<Value> = leaves
        .into_iter()
        .map(|(key, value)| {
            let origin = origins.of(&key);
            // A project's setting that waits for trust is shown, but not yet applied.
            let held_back = !project_trusted
                && origin.layer == "project"
                && config::HELD_SETTINGS
                    .iter()
                    .any(|held| key == *held || key.starts_with(&format!("{held}.")));
            // A default lowered to a ceiling (silently: nobody set it) says so.
            let clamped_by = (origin.layer == "default")
                .then(|| loaded.defaults_clamped.iter().find(|c| c.key == key))
                .flatten()
                .map(|c| c.by.clone());
            json!({
                "key": key,
                "value": value,
                "layer": origin.layer,
                "file": origin.file,
                "locked": is_locked(&key),
                "held_back": held_back,
                "clamped_by": clamped_by,
            })
        })
        .collect();
    // The optional keys no layer set: what applies instead.
    let mut values = values;
    for unset in config::unset_keys(&loaded.config) {
        if values.iter().any(|v| v["key"] == unset.key) {
            continue;
        }
        let origin = origins.of(unset.key);
        values.push(json!({
            "key": unset.key,
            "value": unset.value,
            "layer": origin.layer,
            "file": origin.file,
            "locked": is_locked(unset.key),
            "held_back": false,
            "clamped_by": null,
            "unset": true,
            "meaning": unset.meaning,
        }));
    }
    values.sort_by(|a, b| a["key"].as_str().cmp(&b["key"].as_str()));
    let files: Vec<Value> = sources
        .layers
        .iter()
        .map(|(kind, path)| {
            json!({
                "layer": format!("{kind:?}").to_lowercase(),
                "path": path,
                "found": path.is_file(),
            })
        })
        .collect();
    if json {
        let out = json!({
            "workspace": root,
            "files": files,
            "values": values,
            "locked": locked,
            "plugins": plugins,
            "hooks": hooks,
            "warnings": loaded.warnings.iter().chain(&mode_note).collect::<Vec<_>>(),
            "refused": loaded.refused,
        });
        outln!("{out}");
        return refused_exit(&loaded.refused);
    }
    for warning in &loaded.warnings {
        print_alert(&Alert::warn("config", warning.clone()));
    }
    if let Some(note) = &mode_note {
        print_alert(&Alert::warn("trust", note.clone()));
    }
    outln!("workspace {}", root.display());
    for file in &files {
        let found = if file["found"] == true {
            ""
        } else {
            "  (absent)"
        };
        outln!(
            "{:<8} {}{found}",
            file["layer"].as_str().unwrap_or(""),
            file["path"].as_str().unwrap_or("")
        );
    }
    outln!();
    let width = values
        .iter()
        .filter_map(|v| v["key"].as_str())
        .map(str::len)
        .max()
        .unwrap_or(0);
    for v in &values {
        let lock = if v["locked"] == true { "  locked" } else { "" };
        let clamped = v["clamped_by"]
            .as_str()
            .map(|by| format!(", clamped by {by}"))
            .unwrap_or_default();
        let held = if v["held_back"] == true {
            format!(
                "  held back until trusted (`warden trust -C {}`)",
                root.display()
            )
        } else {
            String::new()
        };
        let file = v["file"]
            .as_str()
            .map(|f| format!("  ({f})"))
            .unwrap_or_default();
        let unset = v["meaning"]
            .as_str()
            .map(|meaning| format!(", unset: {meaning}"))
            .unwrap_or_default();
        // The rules, one per line under their key, as `warden rules list` shows them.
        if v["key"] == "rules.rules" {
            let rules = &loaded.config.rules.rules;
            outln!(
                "{:<width$}  {} rule{} in force, one per line:",
                "rules.rules",
                rules.len(),
                if rules.len() == 1 { "" } else { "s" }
            );
            for rule in rules {
                outln!("  {}", crate::cli::rules::rule_line(rule));
            }
            continue;
        }
        outln!(
            "{:<width$}  {}  [{}{clamped}{unset}{lock}]{file}{held}",
            v["key"].as_str().unwrap_or(""),
            v["value"],
            v["layer"].as_str().unwrap_or(""),
        );
    }
    if let Some(list) = plugins.as_array()
        && !list.is_empty()
    {
        outln!();
        for p in list {
            let untrusted = if p["trusted"] == false {
                format!(
                    "  untrusted: not loaded until `warden trust -C {}`",
                    root.display()
                )
            } else {
                String::new()
            };
            // An interceptor's decisions apply (`enforce`) or are only recorded (`shadow`).
            let kind = match (p["kind"].as_str(), p["mode"].as_str()) {
                (Some(kind @ "interceptor"), Some(mode)) => format!("{kind}, mode {mode}"),
                (kind, _) => kind.unwrap_or("").to_owned(),
            };
            outln!(
                "plugin {} ({kind}) {}  [{}]{untrusted}",
                p["name"].as_str().unwrap_or(""),
                p["path"].as_str().unwrap_or(""),
                p["origin"].as_str().unwrap_or(""),
            );
            for (key, by) in p["clamped_by"].as_object().into_iter().flatten() {
                outln!(
                    "  {key} = {}  [default, clamped by {}]",
                    p[key],
                    by.as_str().unwrap_or("")
                );
            }
        }
    }
    print_hooks(&hooks, &root);
    if !loaded.refused.is_empty() {
        outln!();
        for why in &loaded.refused {
            outln!("refused  {}", crate::domain::escape::escape(why));
        }
    }
    refused_exit(&loaded.refused)
}

/// Exit 2 when policy refuses a plugin entry (every other command fails on it), once
/// everything has been shown.
fn refused_exit(refused: &[String]) -> Result<u8, CliError> {
    match refused.len() {
        0 => Ok(EXIT_OK),
        n => Err(CliError::usage(format!(
            "{n} plugin entr{} refused by policy (marked `refused`); every command that loads the configuration fails until {} fixed",
            if n == 1 { "y is" } else { "ies are" },
            if n == 1 { "it is" } else { "they are" }
        ))),
    }
}

/// Every non-object value with its dotted key; string maps (plugin and resolver config) stay
/// whole, and an empty table (`telemetry.headers_env` unset) is a value of its own, `{}`.
fn flatten(value: &Value, prefix: &str, out: &mut Vec<(String, Value)>) {
    match value {
        Value::Object(map)
            if !prefix.ends_with("resolver_config") && (prefix.is_empty() || !map.is_empty()) =>
        {
            for (key, inner) in map {
                let dotted = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                flatten(inner, &dotted, out);
            }
        }
        other => out.push((prefix.to_owned(), other.clone())),
    }
}

/// The `[[hooks]]` entries, taken out of `tree` (they are listed, not flattened into keys):
/// each says whether it runs (`trusted`).
fn hook_list(tree: &mut Value, project_trusted: bool) -> Vec<Value> {
    let mut hooks: Vec<Value> = match tree.as_object_mut().and_then(|o| o.remove("hooks")) {
        Some(Value::Array(list)) => list,
        _ => Vec::new(),
    };
    for hook in &mut hooks {
        hook["trusted"] = Value::Bool(hook["origin"] != "project" || project_trusted);
    }
    hooks
}

/// One line per hook: its event and matcher, command, grants, failure policy, mode, layer and
/// file, and whether it waits for trust.
fn print_hooks(hooks: &[Value], root: &Path) {
    if hooks.is_empty() {
        return;
    }
    outln!();
    for h in hooks {
        outln!("{}", crate::cli::operator::doctor_hooks::hook_line(h));
        if h["trusted"] == false {
            outln!(
                "  waiting for warden trust: not run until `warden trust -C {}`",
                root.display()
            );
        }
    }
}
