//! Managed policy through the real binary: locked keys, deny lists that only grow, required
//! pins, managed plugins only.

use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

fn project_plugin(path: &std::path::Path, extra: &str) -> String {
    format!(
        "[[plugins]]\nname = \"kw\"\nkind = \"interceptor\"\npath = \"{}\"\n{extra}[plugins.config]\nword = \"x\"\n",
        path.display()
    )
}

#[test]
fn managed_policy_locks_keys_and_only_grows_the_deny_list() {
    let env = TestEnv::new();
    env.write("corp/plan.txt", "secret plan\n");
    env.write(".env", "TOKEN=1\n");
    // The project tries to switch provider (locked) and to empty the deny list (cannot).
    env.project_config("[model]\nprovider = \"openai\"\n[fileref]\ndeny = []\n");
    env.managed_config(
        "[policy]\nlocked = [\"model.provider\"]\n[fileref]\ndeny = [\"corp/**\"]\n",
    );
    let out = env.run(&["run", "summarise @corp/plan.txt and @.env"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("`model.provider` is locked by managed policy"),
        "{err}"
    );
    assert!(
        err.contains("corp/plan.txt") && err.contains("denied"),
        "{err}"
    );
    assert!(err.contains(".env"), "{err}");
    let answer = stdout(&out);
    assert!(
        answer.starts_with("[echo provider]"),
        "locked provider stays echo: {answer}"
    );
    assert!(
        !answer.contains("secret plan") && !answer.contains("TOKEN"),
        "{answer}"
    );
}

#[test]
fn managed_policy_requires_pins_and_can_allow_managed_plugins_only() {
    let env = TestEnv::new();
    let kw = fixtures::keyword_context();
    env.project_config(&project_plugin(&kw, ""));
    env.managed_config("[policy]\nrequire_sha256 = true\n");
    let out = env.run(&["run", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("requires a `sha256` pin"),
        "{}",
        stderr(&out)
    );

    let pin = warden::plugin::sha256_hex(&std::fs::read(&kw).unwrap());
    env.project_config(&project_plugin(&kw, &format!("sha256 = \"{pin}\"\n")));
    let out = env.run(&["run", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    env.managed_config("[policy]\nmanaged_plugins_only = true\n");
    let out = env.run(&["run", "x marks the spot"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("managed plugins only"),
        "{}",
        stderr(&out)
    );
    assert!(
        stdout(&out).contains("1 item (1 user)"),
        "the project plugin did not run: {}",
        stdout(&out)
    );
}
