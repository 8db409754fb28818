//! `warden doctor`: the OpenTelemetry exporter: where it sends, whether the header variables
//! are set, and what the last export reached (sent, lost, last error).

use super::doctor::Report;
use crate::config::Config;
use crate::store::Home;

pub(super) fn check_telemetry(report: &mut Report, config: &Config) {
    let telemetry = &config.telemetry;
    let Some(endpoint) = telemetry.active_endpoint() else {
        report.info(match telemetry.endpoint {
            Some(_) => "telemetry: off (`telemetry.enabled = false`)",
            None => "telemetry: off (no `telemetry.endpoint`)",
        });
        return;
    };
    let prompts = if telemetry.include_prompts {
        "prompt text included"
    } else {
        "no prompt text"
    };
    let endpoint = crate::config::without_userinfo(endpoint);
    report.info(&format!(
        "telemetry: OTLP/HTTP to {endpoint} ({}; {prompts})",
        match telemetry.protocol {
            crate::config::TelemetryProtocol::HttpProtobuf => "protobuf",
            crate::config::TelemetryProtocol::HttpJson => "json",
        }
    ));
    for (header, var) in &telemetry.headers_env {
        if std::env::var_os(var).is_none() {
            report.fail(&format!(
                "telemetry: header {header} comes from ${var}, which is not set: export will not start"
            ));
        }
    }
    let Ok(home) = Home::from_env() else {
        return;
    };
    match crate::telemetry::read_state(home.root()) {
        None => report.info("telemetry: nothing exported yet"),
        Some(state) if state.lost() == 0 && state.metric_failures == 0 => report.ok(&format!(
            "telemetry: last export to {} sent all {} audit events and {} spans",
            crate::config::without_userinfo(&state.endpoint),
            state.logs.0,
            state.spans.0
        )),
        Some(state) => report.fail(&format!(
            "telemetry: last export to {} lost {} of {} records ({} metric exports failed); last error: {}",
            crate::config::without_userinfo(&state.endpoint),
            state.lost(),
            state.logs.0 + state.spans.0,
            state.metric_failures,
            state.last_error.as_deref().unwrap_or("none recorded")
        )),
    }
}
