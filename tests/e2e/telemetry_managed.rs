//! Managed policy's hold on `[telemetry]`: an endpoint it sets and locks, and a lock that
//! forbids turning export off, stand against a user layer that sets `enabled = false` and a
//! trusted project layer that names another endpoint. The run exports to the managed endpoint
//! only, and the overridden settings are named once on stderr.

use serde_json::json;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::TestEnv;
use crate::telemetry::{Collector, MODEL, attr, audit_lines, run};

#[test]
fn a_managed_telemetry_lock_holds_against_the_user_and_project_layers() {
    let test = "a_managed_telemetry_lock_holds_against_the_user_and_project_layers";
    for locked in [
        r#"["telemetry.endpoint", "telemetry.enabled"]"#,
        r#"["telemetry"]"#,
    ] {
        let env = TestEnv::new();
        let Some(managed) = Collector::start(test, &env, "ok") else {
            return;
        };
        let Some(other) = Collector::start(test, &env, "ok") else {
            return;
        };
        env.managed_config(&format!(
            "[telemetry]\nendpoint = \"{}\"\nenabled = true\n\n[policy]\nlocked = {locked}\n",
            managed.endpoint()
        ));
        env.user_config("[telemetry]\nenabled = false\n");
        env.project_config(&format!(
            "{MODEL}[telemetry]\nendpoint = \"{}\"\nenabled = false\n",
            other.endpoint()
        ));
        let server = MockServer::start().unwrap();
        server.push(Reply::text("answered"));
        let (code, value, err) = run(&env, &server, &["hello"]);
        assert_eq!(code, Some(0), "{locked}: {err}");
        let session = value["session"].as_str().unwrap().to_owned();

        // Every audit event went to the managed endpoint, nothing to the project's.
        let logs = managed.logs();
        let exported = logs
            .iter()
            .filter(|l| attr(l, "gen_ai.conversation.id") == json!(session))
            .count();
        assert_eq!(exported, audit_lines(&env, &session), "{locked}: {err}");
        assert!(
            other.requests().is_empty(),
            "{locked}: {:?}",
            other.requests()
        );

        // The overridden settings are named, once.
        for key in ["telemetry.enabled", "telemetry.endpoint"] {
            let naming: Vec<&str> = err.lines().filter(|l| l.contains(key)).collect();
            assert_eq!(naming.len(), 1, "{locked}: {key}: {err}");
        }
        let locked_lines = err.lines().filter(|l| l.contains("locked")).count();
        assert_eq!(locked_lines, 1, "{locked}: {err}");
    }
}
