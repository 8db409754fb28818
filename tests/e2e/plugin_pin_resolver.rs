//! `warden plugin pin` pins a custom resolver (`fileref.resolver_sha256`), as the resolver
//! template's README says, by `resolver` or by the name of its file.

use warden_tests::fixtures;

use crate::support::{TestEnv, stderr, stdout};

#[test]
fn pin_writes_the_resolvers_sha256() {
    let env = TestEnv::new();
    let file = env.root().join("build").join("my_resolver.wasm");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::copy(fixtures::file_ref(), &file).unwrap();
    let config = env.user_config(&format!(
        "# mine\n[fileref]\nresolver = {:?}\n",
        file.display().to_string()
    ));
    let sha = warden::plugin::sha256_hex(&std::fs::read(&file).unwrap());
    let out = env.run(&["plugin", "pin", "my-resolver"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.starts_with("# mine\n"), "{text}");
    assert!(
        text.contains(&format!("resolver_sha256 = \"{sha}\"")),
        "{text}"
    );
    assert!(stdout(&out).contains(&sha), "{}", stdout(&out));

    // After a rebuild (other bytes), `resolver` pins the new digest, and it loads.
    std::fs::copy(fixtures::bytes_resolver(), &file).unwrap();
    let new_sha = warden::plugin::sha256_hex(&std::fs::read(&file).unwrap());
    let out = env.run(&["plugin", "pin", "resolver"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(
        text.contains(&format!("resolver_sha256 = \"{new_sha}\"")),
        "{text}"
    );
    assert!(!text.contains(&sha), "{text}");

    let out = env.run(&["plugin", "pin", "nothing-so-named"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
