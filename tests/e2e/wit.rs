//! The WIT contract: it parses as a package (as `wasm-tools component wit wit/` would), has the
//! four worlds with the right imports and exports, and every released version is unchanged.

use sha2::{Digest, Sha256};
use wit_parser::{Resolve, WorldItem, WorldKey};

fn wit_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join("wit")
}

fn names(resolve: &Resolve, keys: &[WorldKey]) -> Vec<String> {
    keys.iter().map(|key| resolve.name_world_key(key)).collect()
}

/// The imports (interfaces) and exports of `world` in `package`, as full names.
fn world_shape(
    resolve: &Resolve,
    package: wit_parser::PackageId,
    world: &str,
) -> (Vec<String>, Vec<String>) {
    let id = resolve.packages[package].worlds[world];
    let w = &resolve.worlds[id];
    let imports: Vec<WorldKey> = w
        .imports
        .iter()
        .filter(|(_, item)| matches!(item, WorldItem::Interface { .. }))
        .map(|(k, _)| k.clone())
        .collect();
    let exports: Vec<WorldKey> = w.exports.keys().cloned().collect();
    let mut imported = names(resolve, &imports);
    imported.sort();
    (imported, names(resolve, &exports))
}

#[test]
fn the_package_parses_and_each_world_has_its_shape() {
    let mut resolve = Resolve::default();
    let (pkg, _) = resolve.push_dir(wit_dir()).unwrap();
    let package = &resolve.packages[pkg];
    assert_eq!(package.name.to_string(), "warden:plugin@0.3.0");
    let mut worlds: Vec<&str> = package.worlds.keys().map(String::as_str).collect();
    worlds.sort();
    assert_eq!(worlds, ["hook", "interceptor", "resolver", "tool"]);
    for (world, export) in [("hook", "observe"), ("resolver", "resolve")] {
        let (imported, exported) = world_shape(&resolve, pkg, world);
        assert_eq!(
            imported,
            ["warden:plugin/host@0.3.0", "warden:plugin/types@0.3.0"],
            "{world}"
        );
        assert_eq!(
            exported,
            [format!("warden:plugin/{export}@0.3.0")],
            "{world}"
        );
    }
    // An interceptor also imports `prompts`: the submitted prompt is lent to it, not copied.
    let (imported, exported) = world_shape(&resolve, pkg, "interceptor");
    assert_eq!(
        imported,
        [
            "warden:plugin/host@0.3.0",
            "warden:plugin/prompts@0.3.0",
            "warden:plugin/types@0.3.0"
        ]
    );
    assert_eq!(exported, ["warden:plugin/intercept@0.3.0"]);
    let intercept = package.interfaces["intercept"];
    let functions = &resolve.interfaces[intercept].functions;
    assert!(
        functions.contains_key("on-compaction"),
        "the compaction point"
    );
    let prompt = functions["on-prompt-submit"].params[0].ty;
    assert!(
        matches!(prompt, wit_parser::Type::Id(id) if matches!(
            resolve.types[id].kind,
            wit_parser::TypeDefKind::Handle(wit_parser::Handle::Borrow(_))
        )),
        "on-prompt-submit borrows the prompt"
    );
    // Only a tool plugin may reach the network, and only through the host's `outgoing`.
    let (imported, exported) = world_shape(&resolve, pkg, "tool");
    assert_eq!(
        imported,
        [
            "warden:plugin/host@0.3.0",
            "warden:plugin/outgoing@0.3.0",
            "warden:plugin/types@0.3.0"
        ]
    );
    assert_eq!(exported, ["warden:plugin/act@0.3.0"]);
    // A hook has nothing to return: every function of `observe` but `init` returns nothing.
    let observe = package.interfaces["observe"];
    for (name, func) in &resolve.interfaces[observe].functions {
        if name != "init" {
            assert!(func.result.is_none(), "observe.{name} must return nothing");
        }
    }
}

#[test]
fn the_released_0_1_0_package_keeps_its_three_worlds() {
    let mut resolve = Resolve::default();
    let (pkg, _) = resolve
        .push_dir(wit_dir().join("released").join("0.1.0"))
        .unwrap();
    assert_eq!(
        resolve.packages[pkg].name.to_string(),
        "warden:plugin@0.1.0"
    );
    let mut worlds: Vec<&str> = resolve.packages[pkg]
        .worlds
        .keys()
        .map(String::as_str)
        .collect();
    worlds.sort();
    assert_eq!(worlds, ["hook", "interceptor", "resolver"]);
}

/// Every version listed in `wit/RELEASED` is frozen: the files of `wit/released/<version>/`,
/// concatenated in file-name order, hash to the listed sha256.
#[test]
fn released_versions_are_frozen() {
    let released = std::fs::read_to_string(wit_dir().join("RELEASED")).unwrap();
    let versions: Vec<(&str, &str)> = released
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| l.split_once(' '))
        .collect();
    for release in ["0.1.0", "0.2.0", "0.3.0"] {
        assert!(
            versions.iter().any(|(v, _)| *v == release),
            "{release} is released"
        );
    }
    for (version, expected) in versions {
        let dir = wit_dir().join("released").join(version);
        let mut files: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "wit"))
            .collect();
        files.sort();
        let mut hasher = Sha256::new();
        for file in &files {
            hasher.update(std::fs::read(file).unwrap());
        }
        assert_eq!(
            hex::encode(hasher.finalize()),
            expected.trim(),
            "the WIT of released warden:plugin@{version} changed; a change needs a new version"
        );
    }
}

/// Once the version in `wit/` is released, `wit/` is that release, byte for byte (the host's
/// adapter for it reads `wit/released/<version>/`).
#[test]
fn the_newest_package_is_its_released_copy_once_released() {
    let mut resolve = Resolve::default();
    let (pkg, _) = resolve.push_dir(wit_dir()).unwrap();
    let version = resolve.packages[pkg]
        .name
        .version
        .as_ref()
        .map(ToString::to_string)
        .unwrap();
    let released = wit_dir().join("released").join(&version);
    if !released.is_dir() {
        return;
    }
    let wit_files = |dir: &std::path::Path| {
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "wit"))
            .map(|p| p.file_name().unwrap().to_owned())
            .collect();
        files.sort();
        files
    };
    assert_eq!(wit_files(&wit_dir()), wit_files(&released), "{version}");
    for name in wit_files(&wit_dir()) {
        assert_eq!(
            std::fs::read(wit_dir().join(&name)).unwrap(),
            std::fs::read(released.join(&name)).unwrap(),
            "wit/{} differs from the released {version}; a change needs a new version",
            name.to_string_lossy()
        );
    }
}

/// The SDK carries its own copy of the WIT (a published crate cannot reach outside its
/// directory); the copy must be the contract, byte for byte.
#[test]
fn the_sdk_copy_of_the_wit_is_identical() {
    let sdk = wit_dir().parent().unwrap().join("plugins/sdk/wit");
    let names = |dir: &std::path::Path| {
        let mut names: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .filter(|n| n.to_string_lossy().ends_with(".wit"))
            .collect();
        names.sort();
        names
    };
    assert_eq!(names(&sdk), names(&wit_dir()));
    for name in names(&wit_dir()) {
        assert_eq!(
            std::fs::read(sdk.join(&name)).unwrap(),
            std::fs::read(wit_dir().join(&name)).unwrap(),
            "plugins/sdk/wit/{} differs from wit/; copy wit/*.wit into plugins/sdk/wit/",
            name.to_string_lossy()
        );
    }
}
