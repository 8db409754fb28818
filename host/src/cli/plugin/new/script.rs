//! Python (componentize-py) and JavaScript (componentize-js) projects for `warden plugin new`,
//! one per world, on the newest WIT (`wit/`), whose files the project carries in `wit/`. Each
//! project keeps its logic in a module of its own (`logic.py`, `logic.js`) with native tests
//! beside it (`python3 -m unittest`, `node --test`); `app.py`/`app.js` is the WIT glue.
//!
//! JavaScript has no file API: the resolver and tool projects read the workspace through
//! `wasi:filesystem` (`fs.js`), whose WIT their `build.sh` takes from the jco package the
//! project installs (`wit/deps/`), declared beside warden's world in `wit/js-fs.wit`.

use super::{Files, NewLang, NewWorld, config_example};
use crate::cli::exit::CliError;

/// The WIT files the bindings generators read: the newest version, as the Rust SDK uses.
const WIT: &[(&str, &str)] = &[
    ("act.wit", include_str!("../../../../../wit/act.wit")),
    ("host.wit", include_str!("../../../../../wit/host.wit")),
    (
        "intercept.wit",
        include_str!("../../../../../wit/intercept.wit"),
    ),
    (
        "observe.wit",
        include_str!("../../../../../wit/observe.wit"),
    ),
    (
        "outgoing.wit",
        include_str!("../../../../../wit/outgoing.wit"),
    ),
    (
        "prompts.wit",
        include_str!("../../../../../wit/prompts.wit"),
    ),
    (
        "resolve.wit",
        include_str!("../../../../../wit/resolve.wit"),
    ),
    ("types.wit", include_str!("../../../../../wit/types.wit")),
    ("worlds.wit", include_str!("../../../../../wit/worlds.wit")),
];

/// A file of a project: its name, its text and whether it is executable.
type Template = (&'static str, &'static str, bool);

macro_rules! world_files {
    ($lang:literal, $world:literal, [$($file:literal),*]) => {
        &[$(($file, include_str!(concat!("../templates/", $lang, "/", $world, "/", $file)), false)),*]
    };
}

/// The sources of `lang` for `world`: the WIT glue, the logic and its native tests.
fn sources(lang: NewLang, world: NewWorld) -> &'static [Template] {
    match (lang, world) {
        (NewLang::Js, NewWorld::Interceptor) => {
            world_files!("js", "interceptor", ["app.js", "logic.js", "logic.test.js"])
        }
        (NewLang::Js, NewWorld::Hook) => {
            world_files!("js", "hook", ["app.js", "logic.js", "logic.test.js"])
        }
        (NewLang::Js, NewWorld::Resolver) => {
            world_files!("js", "resolver", ["app.js", "logic.js", "logic.test.js"])
        }
        (NewLang::Js, NewWorld::Tool) => {
            world_files!("js", "tool", ["app.js", "logic.js", "logic.test.js"])
        }
        (_, NewWorld::Interceptor) => {
            world_files!(
                "python",
                "interceptor",
                ["app.py", "logic.py", "test_logic.py"]
            )
        }
        (_, NewWorld::Hook) => {
            world_files!("python", "hook", ["app.py", "logic.py", "test_logic.py"])
        }
        (_, NewWorld::Resolver) => {
            world_files!(
                "python",
                "resolver",
                ["app.py", "logic.py", "test_logic.py"]
            )
        }
        (_, NewWorld::Tool) => {
            world_files!("python", "tool", ["app.py", "logic.py", "test_logic.py"])
        }
    }
}

/// Whether a JavaScript project of `world` reads the workspace (through `fs.js`).
fn reads_files(world: NewWorld) -> bool {
    matches!(world, NewWorld::Resolver | NewWorld::Tool)
}

/// The README's step that runs the build: `plugin dev` (a resolver becomes your
/// `fileref.resolver`, tried with `preview`).
fn dev_step(world: NewWorld) -> &'static str {
    match world {
        NewWorld::Resolver => {
            "warden plugin dev plugin.wasm             # your @file resolver here, for you alone; each rebuild is accepted\nwarden preview \"@some/file\"                # what the model would get\nwarden plugin bench plugin.wasm           # calls resolve, read-file and list-files on a sample workspace"
        }
        NewWorld::Tool => {
            "warden plugin dev plugin.wasm --fs read   # loads it for you alone, reading the workspace; a running chat picks up each rebuild"
        }
        _ => {
            "warden plugin dev plugin.wasm             # loads it for you alone; a running chat picks up each rebuild"
        }
    }
}

/// What the README says of that step.
fn dev_note(world: NewWorld) -> &'static str {
    match world {
        NewWorld::Resolver => {
            "`warden plugin dev PATH` makes your build the `fileref.resolver` of your own sessions in\nthis workspace only: it never writes the project's config, so there is nothing to `warden\ntrust` after each rebuild; the next run, chat or preview uses the rebuild."
        }
        _ => {
            "`warden plugin dev PATH` runs your build in your own sessions only: it never writes the\nproject's config, so there is nothing to `warden trust` after each rebuild; a `warden chat`\nalready running loads the rebuild before its next turn."
        }
    }
}

/// What the plugin of `world` does, for the README.
fn what(world: NewWorld) -> &'static str {
    match world {
        NewWorld::Interceptor => {
            "interceptor: when the prompt mentions the configured `word`, it adds a system item \
             with the configured `context`"
        }
        NewWorld::Hook => {
            "hook: it counts events by kind and logs the counts at the end of every turn \
             (`WARDEN_LOG=warden::plugin=info` shows them)"
        }
        NewWorld::Resolver => {
            "resolver: it serves `@path` references and the model's `read_file` and \
             `list_files` from the workspace, which it sees read-only"
        }
        NewWorld::Tool => {
            "tool plugin: `count_lines` counts the lines of a workspace file (its entry grants \
             `fs = \"read\"`; absolute paths, `..` and the deny globs are refused)"
        }
    }
}

/// The files of a new Python or JavaScript project.
pub(super) fn files(name: &str, world: NewWorld, lang: NewLang) -> Result<Files, CliError> {
    let python = lang == NewLang::Python;
    let wasm = format!("/path/to/{name}/plugin.wasm");
    let config = config_example(name, world, &wasm);
    // componentize-js builds against a world that adds the WASI file system to warden's.
    let build_world = if !python && reads_files(world) {
        format!("{}-fs", world.as_str())
    } else {
        world.as_str().to_owned()
    };
    // What an uncaught error looks like through `warden run` (see docs/plugins.md).
    let python_error = format!(
        "plugin {name}: call trapped: wasm trap: wasm `unreachable` instruction executed \
         (KeyError: 'path' (at /0/app.py, line 42, in call))"
    );
    let js_error = format!(
        "plugin {name}: call trapped: wasm trap: wasm `unreachable` instruction executed \
         (TypeError: can't access property \"path\", args is null (at call@app.js:33:26))"
    );
    // `package warden:plugin@X.Y.Z;`, the first line of worlds.wit.
    let package = include_str!("../../../../../wit/worlds.wit")
        .lines()
        .next()
        .and_then(|line| line.strip_prefix("package "))
        .map_or("warden:plugin", |rest| rest.trim_end_matches(';'));
    let fill = |text: &str| {
        text.replace("{{name}}", name)
            .replace("{{package}}", package)
            .replace("{{python_error}}", &python_error)
            .replace("{{js_error}}", &js_error)
            .replace("{{world}}", world.as_str())
            .replace("{{build_world}}", &build_world)
            .replace("{{what}}", what(world))
            .replace("{{config}}", &config)
            .replace("{{dev_step}}", dev_step(world))
            .replace("{{dev_note}}", dev_note(world))
            .replace(
                "{{wasi_deps}}",
                if !python && reads_files(world) {
                    "yes"
                } else {
                    ""
                },
            )
    };
    let mut files: Files = sources(lang, world)
        .iter()
        .map(|(file, text, executable)| ((*file).to_owned(), (*text).to_owned(), *executable))
        .collect();
    let dir: &[Template] = if python {
        &[
            (
                "build.sh",
                include_str!("../templates/python/build.sh"),
                true,
            ),
            (
                "README.md",
                include_str!("../templates/python/README.md"),
                false,
            ),
            (
                ".gitignore",
                include_str!("../templates/python/gitignore"),
                false,
            ),
        ]
    } else {
        &[
            ("named.js", include_str!("../templates/js/named.js"), false),
            ("build.sh", include_str!("../templates/js/build.sh"), true),
            (
                "package.json",
                include_str!("../templates/js/package.json"),
                false,
            ),
            (
                "README.md",
                include_str!("../templates/js/README.md"),
                false,
            ),
            (
                ".gitignore",
                include_str!("../templates/js/gitignore"),
                false,
            ),
        ]
    };
    files.extend(
        dir.iter()
            .map(|(file, text, executable)| ((*file).to_owned(), fill(text), *executable)),
    );
    if !python && reads_files(world) {
        files.push((
            "fs.js".into(),
            include_str!("../templates/js/fs.js").into(),
            false,
        ));
        files.push((
            "wit/js-fs.wit".into(),
            include_str!("../templates/js/js-fs.wit").into(),
            false,
        ));
    }
    files.extend(
        WIT.iter()
            .map(|(file, text)| (format!("wit/{file}"), (*text).to_owned(), false)),
    );
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORLDS: [NewWorld; 4] = [
        NewWorld::Interceptor,
        NewWorld::Hook,
        NewWorld::Resolver,
        NewWorld::Tool,
    ];

    #[test]
    fn each_language_has_every_world_on_the_newest_wit_with_native_tests() {
        let newest = include_str!("../../../../../wit/worlds.wit")
            .lines()
            .next()
            .unwrap()
            .to_owned();
        for lang in [NewLang::Python, NewLang::Js] {
            for world in WORLDS {
                let files = files("probe", world, lang).unwrap();
                let find = |name: &str| files.iter().find(|(f, _, _)| f == name);
                let build = find("build.sh").unwrap();
                assert!(build.2, "build.sh is executable");
                assert!(
                    build
                        .1
                        .contains(&format!("warden:plugin/{}", world.as_str())),
                    "{}",
                    build.1
                );
                let tests = if lang == NewLang::Python {
                    "test_logic.py"
                } else {
                    "logic.test.js"
                };
                assert!(find(tests).is_some(), "{lang:?} {world:?}: no {tests}");
                for (file, text, _) in &files {
                    assert!(!text.contains("{{"), "{lang:?} {world:?} {file}");
                    assert!(!text.contains("@0.2.0"), "{lang:?} {world:?} {file}");
                }
                assert!(
                    find("wit/worlds.wit").is_some_and(|(_, t, _)| t.starts_with(&newest)),
                    "{lang:?} {world:?}"
                );
                let readme = &find("README.md").unwrap().1;
                let package = newest.trim_start_matches("package ").trim_end_matches(';');
                assert!(readme.contains(package), "{readme}");
                let dev = readme.find("warden plugin dev").unwrap_or(usize::MAX);
                let config = readme.find("```toml").unwrap_or(0);
                assert!(dev < config, "the dev loop comes first: {readme}");
                // A resolver under `plugin dev` is tried with `preview`.
                if world == NewWorld::Resolver {
                    assert!(readme.contains("warden plugin dev plugin.wasm"), "{readme}");
                    assert!(readme.contains("warden preview"), "{readme}");
                    assert!(
                        readme.contains("warden plugin bench plugin.wasm"),
                        "{readme}"
                    );
                } else {
                    assert!(readme.contains("warden plugin dev plugin.wasm"), "{readme}");
                    assert!(readme.contains("a running chat picks up"), "{readme}");
                }
                assert!(readme.contains("call trapped: "), "{readme}");
                assert_eq!(
                    find("fs.js").is_some(),
                    lang == NewLang::Js && reads_files(world),
                    "{lang:?} {world:?}"
                );
            }
        }
    }
}
