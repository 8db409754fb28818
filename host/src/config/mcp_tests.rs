#![allow(clippy::unwrap_used)]

use super::*;

fn spec(toml_text: &str) -> McpSpec {
    toml::from_str(toml_text).unwrap()
}

fn check(text: &str, layer: &str, policy: &PolicyConfig) -> Result<McpEntry, String> {
    resolve(spec(text), layer, Path::new("/c.toml"), policy, None).map_err(|e| e.to_string())
}

#[test]
fn headers_come_from_the_environment_and_literals_are_refused() {
    let policy = PolicyConfig::default();
    let entry = check(
        "name = \"gh\"\nurl = \"https://x/mcp\"\nheaders = { Authorization = \"Bearer env:GH_TOKEN\", X-Key = \"env:K\" }",
        "user",
        &policy,
    )
    .unwrap();
    assert_eq!(entry.headers[0].prefix, "Bearer ");
    assert_eq!(entry.headers[0].var, "GH_TOKEN");
    assert_eq!(entry.headers[1].prefix, "");
    assert_eq!(entry.approve, Approve::Ask);
    let err = check(
        "name = \"gh\"\nurl = \"https://x/mcp\"\nheaders = { Authorization = \"Bearer ghp_123\" }",
        "user",
        &policy,
    )
    .unwrap_err();
    assert!(
        err.contains("mcp.gh.headers.Authorization") && err.contains("literal"),
        "{err}"
    );
}

#[test]
fn policy_refusals_name_file_layer_and_key() {
    let policy = PolicyConfig {
        allowed_mcp: Some(vec!["npx @corp/*".into(), "https://mcp.corp/*".into()]),
        ..PolicyConfig::default()
    };
    assert!(
        check(
            "name = \"a\"\ncommand = [\"npx\", \"@corp/x\"]",
            "user",
            &policy
        )
        .is_ok()
    );
    assert!(
        check(
            "name = \"a\"\nurl = \"https://mcp.corp/v1\"",
            "user",
            &policy
        )
        .is_ok()
    );
    let err = check(
        "name = \"a\"\ncommand = [\"npx\", \"evil\"]",
        "project",
        &policy,
    )
    .unwrap_err();
    assert!(
        err.contains("/c.toml") && err.contains("project layer") && err.contains("mcp.a.command"),
        "{err}"
    );
    let only = PolicyConfig {
        managed_mcp_only: true,
        allow_unsandboxed_mcp: false,
        ..PolicyConfig::default()
    };
    let err = check("name = \"a\"\ncommand = [\"x\"]", "user", &only).unwrap_err();
    assert!(err.contains("managed_mcp_only"), "{err}");
    let err = check(
        "name = \"a\"\ncommand = [\"x\"]\nsandbox = \"none\"",
        "managed",
        &only,
    )
    .unwrap_err();
    assert!(err.contains("allow_unsandboxed_mcp"), "{err}");
    let ceiling = PolicyConfig {
        max_tool_grants: Some(crate::config::ToolGrantCeiling {
            fs: Some(FsGrant::Read),
            allowed_hosts: None,
            env: None,
        }),
        ..PolicyConfig::default()
    };
    let err = check(
        "name = \"a\"\ncommand = [\"x\"]\nfs = \"read-write\"",
        "user",
        &ceiling,
    )
    .unwrap_err();
    assert!(
        err.contains("mcp.a.fs") && err.contains("max_tool_grants"),
        "{err}"
    );
}

#[test]
fn allowed_hosts_are_checked_where_written() {
    let policy = PolicyConfig::default();
    let entry = check(
        "name = \"a\"\ncommand = [\"x\"]\nallowed_hosts = [\"api.example.com\", \"127.0.0.1:8080\", \"*.pypi.org\"]",
        "user",
        &policy,
    )
    .unwrap();
    assert_eq!(
        entry.allowed_hosts,
        ["api.example.com", "127.0.0.1:8080", "*.pypi.org"]
    );
    assert!(!entry.network);
    let refused = |text: &str| check(text, "user", &policy).unwrap_err();
    let err =
        refused("name = \"a\"\ncommand = [\"x\"]\nallowed_hosts = [\"https://api.example.com/\"]");
    assert!(
        err.contains("/c.toml")
            && err.contains("user layer")
            && err.contains("mcp.a.allowed_hosts")
            && err.contains("https://api.example.com/"),
        "{err}"
    );
    let err = refused("name = \"a\"\ncommand = [\"x\"]\nallowed_hosts = [\"*.org\"]");
    assert!(err.contains("mcp.a.allowed_hosts"), "{err}");
    let err =
        refused("name = \"a\"\nurl = \"https://x/mcp\"\nallowed_hosts = [\"api.example.com\"]");
    assert!(
        err.contains("mcp.a.allowed_hosts") && err.contains("stdio server"),
        "{err}"
    );
    let err = refused(
        "name = \"a\"\ncommand = [\"x\"]\nnetwork = true\nallowed_hosts = [\"api.example.com\"]",
    );
    assert!(
        err.contains("mcp.a.allowed_hosts") && err.contains("network = true"),
        "{err}"
    );
    let err = refused(
        "name = \"a\"\ncommand = [\"x\"]\nsandbox = \"none\"\nallowed_hosts = [\"api.example.com\"]",
    );
    assert!(
        err.contains("mcp.a.allowed_hosts") && err.contains("sandbox"),
        "{err}"
    );
    // An empty list grants nothing and is no contradiction.
    let entry = check(
        "name = \"a\"\ncommand = [\"x\"]\nnetwork = true\nallowed_hosts = []",
        "user",
        &policy,
    )
    .unwrap();
    assert!(entry.network && entry.allowed_hosts.is_empty());
}

#[test]
fn allowed_hosts_are_held_to_the_tool_grant_ceiling_and_project_grants() {
    let ceiling = PolicyConfig {
        max_tool_grants: Some(crate::config::ToolGrantCeiling {
            fs: None,
            allowed_hosts: Some(vec!["api.example.com".into()]),
            env: None,
        }),
        ..PolicyConfig::default()
    };
    let hosts = |list: &str| format!("name = \"a\"\ncommand = [\"x\"]\nallowed_hosts = {list}");
    assert!(check(&hosts("[\"api.example.com\"]"), "user", &ceiling).is_ok());
    for list in [
        "[\"evil.example.net\"]",
        // A wildcard under an exact-host ceiling is refused, never widened.
        "[\"*.example.com\"]",
        // Every port of a host is more than one of its ports.
        "[\"api.example.com\", \"api.example.com:8443\"]",
    ] {
        let err = check(&hosts(list), "user", &ceiling).unwrap_err();
        assert!(
            err.contains("mcp.a.allowed_hosts")
                && err.contains("max_tool_grants")
                && err.contains("user layer"),
            "{list}: {err}"
        );
    }
    // The managed layer wrote its own grants.
    assert!(check(&hosts("[\"*.example.com\"]"), "managed", &ceiling).is_ok());
    let none = PolicyConfig {
        max_tool_grants: Some(crate::config::ToolGrantCeiling {
            fs: None,
            allowed_hosts: Some(Vec::new()),
            env: None,
        }),
        ..PolicyConfig::default()
    };
    assert!(check(&hosts("[\"api.example.com\"]"), "user", &none).is_err());
    // A project's server reaches a host only if the user allows that very host (the
    // user's list takes exact hosts, so a project's wildcard is never allowed).
    let project = |list: &str, allowed: Option<&crate::config::ProjectToolGrants>| {
        resolve(
            spec(&hosts(list)),
            "project",
            Path::new("/w/.warden/config.toml"),
            &PolicyConfig::default(),
            Some((allowed, Path::new("/u/config.toml"))),
        )
        .map_err(|e| e.to_string())
    };
    let user = crate::config::ProjectToolGrants {
        allowed_hosts: vec!["api.example.com".into()],
        ..Default::default()
    };
    assert!(project("[\"api.example.com\"]", Some(&user)).is_ok());
    for (list, allowed) in [
        ("[\"api.example.com\"]", None),
        ("[\"*.example.com\"]", Some(&user)),
        ("[\"other.example.com\"]", Some(&user)),
    ] {
        let err = project(list, allowed).unwrap_err();
        assert!(
            err.contains("mcp.a.allowed_hosts")
                && err.contains("project_tool_grants")
                && err.contains("/u/config.toml"),
            "{list}: {err}"
        );
    }
}

#[test]
fn a_projects_servers_are_in_the_trust_digest() {
    let policy = PolicyConfig::default();
    let code = |command: &str| {
        let entry = check(
            &format!("name = \"a\"\ncommand = [\"{command}\"]"),
            "project",
            &policy,
        )
        .unwrap();
        crate::config::ProjectCode {
            file: PathBuf::from("/w/.warden/config.toml"),
            mcp: vec![entry],
            ..crate::config::ProjectCode::default()
        }
    };
    let one = code("server-a").declarations();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].id, "mcp:a");
    let digest = crate::config::ProjectCode::digest;
    assert_eq!(digest(&one), digest(&code("server-a").declarations()));
    assert_ne!(digest(&one), digest(&code("server-b").declarations()));
    let hosts = |list: &str| {
        let entry = check(
            &format!("name = \"a\"\ncommand = [\"server-a\"]\nallowed_hosts = {list}"),
            "project",
            &policy,
        )
        .unwrap();
        crate::config::ProjectCode {
            file: PathBuf::from("/w/.warden/config.toml"),
            mcp: vec![entry],
            ..crate::config::ProjectCode::default()
        }
        .declarations()
    };
    let one_host = digest(&hosts("[\"a.example.com\"]"));
    assert_ne!(one_host, digest(&one));
    assert_ne!(
        one_host,
        digest(&hosts("[\"a.example.com\", \"b.example.com\"]"))
    );
    assert_ne!(one_host, digest(&hosts("[\"*.example.com\"]")));
    // Order is not a change.
    assert_eq!(
        digest(&hosts("[\"b.example.com\", \"a.example.com\"]")),
        digest(&hosts("[\"a.example.com\", \"b.example.com\"]"))
    );
}

#[test]
fn names_and_globs() {
    assert!(valid_server_name("docs-1"));
    assert!(!valid_server_name("a__b"));
    assert!(!valid_server_name("a:b"));
    assert!(glob_match("npx @scope/*", "npx @scope/server-x"));
    assert!(!glob_match("npx @scope/*", "npx @other/server"));
    assert!(glob_match("https://mcp.corp/*", "https://mcp.corp/a/b"));
    assert!(glob_match("exact", "exact") && !glob_match("exact", "exactly"));
}

#[test]
fn what_nothing_would_hold_to_the_tool_grant_ceiling_is_refused_below_the_managed_layer() {
    let policy = PolicyConfig {
        max_tool_grants: Some(crate::config::ToolGrantCeiling {
            fs: Some(FsGrant::Read),
            allowed_hosts: Some(vec!["mcp.corp".into()]),
            env: None,
        }),
        ..PolicyConfig::default()
    };
    // The whole network, or no sandbox at all, is above a host ceiling: refused, never narrowed.
    let err = check(
        "name = \"a\"\ncommand = [\"x\"]\nnetwork = true",
        "user",
        &policy,
    )
    .unwrap_err();
    assert!(
        err.contains("mcp.a.network") && err.contains("policy.max_tool_grants.allowed_hosts"),
        "{err}"
    );
    let err = check(
        "name = \"a\"\ncommand = [\"x\"]\nsandbox = \"none\"",
        "project",
        &policy,
    )
    .unwrap_err();
    assert!(err.contains("mcp.a.sandbox"), "{err}");
    // The managed layer sets the ceiling and may go above it.
    assert!(
        check(
            "name = \"a\"\ncommand = [\"x\"]\nnetwork = true",
            "managed",
            &policy
        )
        .is_ok()
    );
    // A `url` server is held to the host ceiling by its own host.
    let ok = check(
        "name = \"a\"\nurl = \"https://mcp.corp/v1\"",
        "user",
        &policy,
    );
    assert!(ok.is_ok(), "{ok:?}");
    let err = check(
        "name = \"a\"\nurl = \"https://evil.example/v1\"",
        "user",
        &policy,
    )
    .unwrap_err();
    assert!(
        err.contains("mcp.a.url") && err.contains("evil.example"),
        "{err}"
    );
}

#[test]
fn a_projects_url_server_is_held_to_the_project_grants_by_host_and_header_variable() {
    let project = |text: &str, allowed: &crate::config::ProjectToolGrants| {
        resolve(
            spec(text),
            "project",
            Path::new("/w/.warden/config.toml"),
            &PolicyConfig::default(),
            Some((Some(allowed), Path::new("/u/config.toml"))),
        )
        .map_err(|e| e.to_string())
    };
    let user = crate::config::ProjectToolGrants {
        env: vec!["PGPASSWORD".into()],
        allowed_hosts: vec!["mcp.example.com".into()],
    };
    let url = |url: &str, var: &str| {
        format!("name = \"w\"\nurl = \"{url}\"\nheaders = {{ x-db = \"env:{var}\" }}")
    };
    assert!(project(&url("https://mcp.example.com/mcp", "PGPASSWORD"), &user).is_ok());
    // A header variable no suffix rule catches is still the user's to allow.
    let err = project(&url("https://mcp.example.com/mcp", "DATABASE_URL"), &user).unwrap_err();
    assert!(
        err.contains("mcp.w.env") && err.contains("DATABASE_URL"),
        "{err}"
    );
    // The url's own host, port included when written, must be allowed exactly.
    for other in [
        "https://db.internal:8443/mcp",
        "https://mcp.example.com:8443/mcp",
    ] {
        let err = project(&url(other, "PGPASSWORD"), &user).unwrap_err();
        assert!(
            err.contains("mcp.w.url") && err.contains("project_tool_grants.allowed_hosts"),
            "{other}: {err}"
        );
    }
    // A stdio server's variables too.
    let err = project("name = \"s\"\ncommand = [\"x\"]\nenv = [\"LANG\"]", &user).unwrap_err();
    assert!(err.contains("mcp.s.env"), "{err}");
    // `trust_files` globs stay inside the workspace, on a stdio server.
    for bad in ["\"/etc/*\"", "\"../x/*.py\"", "\"\""] {
        let err = check(
            &format!("name = \"s\"\ncommand = [\"x\"]\ntrust_files = [{bad}]"),
            "user",
            &PolicyConfig::default(),
        )
        .unwrap_err();
        assert!(err.contains("mcp.s.trust_files"), "{bad}: {err}");
    }
    let err = check(
        "name = \"w\"\nurl = \"https://a/mcp\"\ntrust_files = [\"a.py\"]",
        "user",
        &PolicyConfig::default(),
    )
    .unwrap_err();
    assert!(err.contains("mcp.w.trust_files"), "{err}");
}
