//! `warden doctor [--network]`: the checks an operator runs first. Config layers found and
//! valid, the managed file in force and its sha256, the provider's settings (and, only with
//! `--network`, a 3-second probe), the permission mode and where it comes from, plugins load
//! and their pins match, `$WARDEN_HOME` is writable, the size of the compiled-code cache, and
//! whether the `shell` tool's sandbox can be built here (each piece). Exit 1 when a check
//! fails.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::cli::common::env;
use crate::cli::exit::{CliError, EXIT_FAILURE, EXIT_OK};
use crate::cli::out::outln;
use crate::config::{self, Config, LayerKind, Sources};
use crate::domain::Item;
use crate::front::workspace::Workspace;
use crate::llm::{CancelToken, Request};
use crate::setup;
use crate::store::Home;

/// How long the `--network` probe may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// Counts failed checks while printing each one.
#[derive(Default)]
pub(super) struct Report {
    failed: usize,
}

impl Report {
    pub(super) fn ok(&mut self, what: &str) {
        outln!("ok    {what}");
    }
    pub(super) fn info(&mut self, what: &str) {
        outln!("info  {what}");
    }
    pub(super) fn fail(&mut self, what: &str) {
        self.failed += 1;
        outln!("FAIL  {what}");
    }
}

/// Run the checks and print one line each.
pub(crate) fn doctor(dir: Option<&Path>, network: bool) -> Result<u8, CliError> {
    let mut report = Report::default();
    let root = Workspace::find(dir)?.root;
    report.info(&format!("workspace {}", root.display()));
    let sources = Sources::standard(&root, &env);
    check_layers(&mut report, &sources);
    match config::load(&sources) {
        Ok(loaded) => {
            report.ok("configuration layers merge");
            for warning in &loaded.warnings {
                report.info(&format!("config: {warning}"));
            }
            check_provider(&mut report, &loaded.config, network);
            super::doctor_shell::check_shell(&mut report, &loaded.config.tools.shell);
            if let Some(warning) = crate::cli::tracked_denied::tracked_denied_warning(
                &root,
                &loaded.config.fileref.deny,
            ) {
                report.info(&format!("shell: {warning}"));
            }
            super::doctor_signing::check_signing(&mut report, &loaded.config);
            super::doctor_telemetry::check_telemetry(&mut report, &loaded.config);
            super::doctor_secrets::check_secrets(&mut report, &loaded.config);
            let untrusted = check_trust(&mut report, &loaded, &root).is_some();
            check_mode(&mut report, &loaded, &sources, untrusted);
            super::doctor_hooks::check_hooks(&mut report, &loaded, &root, untrusted);
            let project_resolver = loaded
                .project_code
                .as_ref()
                .is_some_and(|code| code.resolver.is_some());
            check_plugins(
                &mut report,
                &loaded.config,
                &root,
                (untrusted, untrusted && project_resolver),
            );
        }
        Err(err) => report.fail(&format!("configuration: {err}")),
    }
    check_home(&mut report);
    if report.failed > 0 {
        outln!("{} check(s) failed", report.failed);
        Ok(EXIT_FAILURE)
    } else {
        Ok(EXIT_OK)
    }
}

/// The permission mode in force, its layer, the managed cap, and a project raise waiting for
/// trust.
fn check_mode(report: &mut Report, loaded: &config::Loaded, sources: &Sources, untrusted: bool) {
    let mode = loaded.config.tools.mode;
    let origin = config::load_with_origins(sources)
        .map(|(_, origins)| origins.of("tools.mode"))
        .unwrap_or(config::Origin::DEFAULT);
    let from = origin.file.map_or_else(
        || origin.layer.to_owned(),
        |f| format!("{} {}", origin.layer, f.display()),
    );
    let cap = loaded
        .config
        .policy
        .max_mode
        .map(|max| format!("; managed policy allows up to {max}"))
        .unwrap_or_default();
    let raise = loaded.project_code.as_ref().and_then(|code| code.mode);
    match raise {
        Some(raised) if untrusted => report.info(&format!(
            "permission mode {raised} asked by the project layer waits for trust (`warden trust`); until then the user's or default mode applies{cap}"
        )),
        _ => report.info(&format!("permission mode {mode} (from {from}){cap}")),
    }
    check_unattended(report, loaded);
}

/// What `--yes` means under managed policy: refused, or every call that would ask approved
/// with nobody asked (within the mode cap, if any).
fn check_unattended(report: &mut Report, loaded: &config::Loaded) {
    let Some(managed) = &loaded.managed else {
        return;
    };
    let policy = &loaded.config.policy;
    if !policy.allow_unattended {
        report.info(&format!(
            "--yes refused: managed policy forbids unattended approval (`policy.allow_unattended = false` in {}); `warden run` denies calls that would ask",
            managed.path.display()
        ));
        return;
    }
    let within = policy
        .max_mode
        .map(|max| format!(" up to the cap {max}"))
        .unwrap_or_default();
    report.info(&format!(
        "--yes approves every call that would ask{within}, with nobody asked; managed `policy.allow_unattended = false` in {} would refuse it",
        managed.path.display()
    ));
}

fn check_layers(report: &mut Report, sources: &Sources) {
    for (kind, path) in &sources.layers {
        let name = format!("{kind:?}").to_lowercase();
        if !path.exists() {
            report.info(&format!("{name} config {}: absent", path.display()));
            continue;
        }
        let alone = Sources {
            layers: vec![(*kind, path.clone())],
            managed_is_system: sources.managed_is_system,
            notes: Vec::new(),
        };
        match config::load(&alone) {
            Ok(_) => report.ok(&format!("{name} config {}", path.display())),
            Err(err) => report.fail(&format!("{name} config: {err}")),
        }
    }
    match managed_in_force(sources) {
        Some((path, Ok(digest))) => report.ok(&format!(
            "managed policy in force: {} sha256 {digest}",
            path.display()
        )),
        Some((path, Err(err))) => report.fail(&format!("managed policy {}: {err}", path.display())),
        None => report.info("no managed policy file in force"),
    }
}

/// The managed policy file that applies, if any, with the sha256 of its bytes.
pub(crate) fn managed_in_force(
    sources: &Sources,
) -> Option<(PathBuf, Result<String, std::io::Error>)> {
    let (_, path) = sources
        .layers
        .iter()
        .find(|(kind, path)| *kind == LayerKind::Managed && path.exists())?;
    let digest = std::fs::read(path).map(|bytes| crate::plugin::sha256_hex(&bytes));
    Some((path.clone(), digest))
}

fn check_provider(report: &mut Report, config: &Config, network: bool) {
    let settings = match setup::provider::settings(&config.model, &env) {
        Ok(settings) => settings,
        Err(err) => return report.fail(&format!("provider: {err}")),
    };
    let name = format!("{:?}", settings.kind).to_lowercase();
    if settings.base_url.is_empty() {
        return report.ok(&format!("provider {name} (offline, nothing to reach)"));
    }
    report.ok(&format!(
        "provider {name} model {} at {} (credentials set)",
        settings.model, settings.base_url
    ));
    if !network {
        report.info("provider not probed (use --network)");
        return;
    }
    let mut probe = settings.clone();
    probe.timeout = PROBE_TIMEOUT;
    probe.retry.max_retries = 0;
    let result = probe.build().and_then(|mut provider| {
        let request = Request {
            model: settings.model.clone(),
            system: None,
            items: vec![Item::User {
                text: "ping".into(),
            }],
            tools: Vec::new(),
            max_tokens: 1,
            // Streamed, so that the probe's limit applies to the first byte.
            stream: true,
        };
        provider.complete(&request, &mut |_| {}, &CancelToken::new())
    });
    match result {
        Ok(_) => report.ok(&format!("provider reachable at {}", settings.base_url)),
        Err(err) => report.fail(&format!("provider probe: {err}")),
    }
}

/// What waits for trust, said; the project's code is not loaded by the checks below until it
/// is trusted (loading runs its `init`).
fn check_trust(
    report: &mut Report,
    loaded: &config::Loaded,
    root: &Path,
) -> Option<setup::trust::TrustState> {
    use setup::trust::TrustState;
    loaded.project_code.as_ref()?;
    let state = match Home::from_env()
        .map_err(|err| err.to_string())
        .and_then(|home| setup::trust::check(loaded, root, &home).map_err(|err| err.to_string()))
    {
        Ok(state) => state,
        Err(err) => {
            report.fail(&format!("trust: {err}"));
            return Some(TrustState::Forbidden {
                file: PathBuf::from("(unreadable trust file)"),
            });
        }
    };
    match &state {
        TrustState::NotNeeded => return None,
        TrustState::Trusted(_) => report.ok("project plugins trusted (as declared now)"),
        TrustState::TrustedByPolicy { file } => report.ok(&format!(
            "project plugins trusted by managed policy (`policy.trusted_paths` in {})",
            file.display()
        )),
        TrustState::Forbidden { file } => report.info(&format!(
            "project plugins never load: managed policy forbids trusting (`policy.allow_trust = false` in {})",
            file.display()
        )),
        TrustState::Waiting(pending) => report.info(&format!(
            "waiting for trust: {}; review them, then run `warden trust -C {}`",
            pending.waiting_ids().join(", "),
            root.display()
        )),
    }
    (!state.allows()).then_some(state)
}

fn check_plugins(
    report: &mut Report,
    config: &Config,
    root: &Path,
    (untrusted, skip_resolver): (bool, bool),
) {
    let home = Home::from_env().ok().filter(|h| h.root().is_dir());
    let engine = match setup::engine(home.as_ref()) {
        Ok(engine) => engine,
        Err(err) => return report.fail(&format!("plugin engine: {err}")),
    };
    let resolver = config
        .fileref
        .resolver
        .as_ref()
        .map_or("built-in".to_owned(), |p| p.display().to_string());
    if skip_resolver {
        report.info(&format!(
            "resolver {resolver} not loaded: the project's resolver settings are not trusted"
        ));
    } else {
        // Under the signing policy where it holds, so a custom resolver's signature is checked.
        let signing = setup::engine_for(home.as_ref(), config).ok();
        match setup::resolver(signing.as_ref().unwrap_or(&engine), config, root) {
            Ok(_) => report.ok(&format!("resolver {resolver} loads")),
            Err(err) => report.fail(&format!("resolver {resolver}: {err}")),
        }
    }
    for entry in &config.plugins {
        if untrusted && entry.origin == LayerKind::Project.as_str() {
            report.info(&format!(
                "plugin {} ({}, project layer) not loaded: not trusted",
                entry.name,
                entry.kind.name()
            ));
            continue;
        }
        let mut alone = Config {
            plugins: vec![entry.clone()],
            ..config.clone()
        };
        // The plugin alone, under the signing policy and `allowed_sources` as a start loads it
        // (the resolver has its own line above).
        alone.fileref.resolver = None;
        let engine = match setup::engine_for(home.as_ref(), &alone) {
            Ok(engine) => engine,
            Err(err) => {
                report.fail(&format!(
                    "plugin {} ({} layer): {err}",
                    entry.name, entry.origin
                ));
                continue;
            }
        };
        let pin = if entry.sha256.is_some() {
            "pin matches"
        } else {
            "no pin"
        };
        let loaded = setup::plugins(&engine, &alone, root).and_then(|_| {
            setup::tool_plugins(&engine, &alone, root, &|key| std::env::var(key).ok())
        });
        match loaded {
            Ok(_) => report.ok(&format!(
                "plugin {} ({}, {} layer) loads, {pin}",
                entry.name,
                entry.kind.name(),
                entry.origin
            )),
            Err(err) => report.fail(&format!(
                "plugin {} ({} layer): {err}",
                entry.name, entry.origin
            )),
        }
    }
}

fn check_home(report: &mut Report) {
    let home = match Home::from_env() {
        Ok(home) => home,
        Err(err) => return report.fail(&format!("state directory: {err}")),
    };
    let root = home.root();
    let probe = root.join(format!(".doctor-probe-{}", std::process::id()));
    let writable = std::fs::create_dir_all(root)
        .and_then(|()| std::fs::write(&probe, b"probe"))
        .and_then(|()| std::fs::remove_file(&probe));
    match writable {
        Ok(()) => report.ok(&format!("state directory {} is writable", root.display())),
        Err(err) => report.fail(&format!(
            "state directory {} is not writable: {err}",
            root.display()
        )),
    }
    let cache = root.join("cache").join("compiled");
    match crate::plugin::cache_usage(&cache) {
        Ok(usage) => report.info(&format!(
            "compiled-code cache {}: {} entries, {} (`warden plugin clear-cache` empties it)",
            cache.display(),
            usage.entries,
            crate::cli::plugin::mib(usage.bytes)
        )),
        Err(err) => report.info(&format!(
            "compiled-code cache {}: cannot read: {err}",
            cache.display()
        )),
    }
}
