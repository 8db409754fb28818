//! Python (componentize-py) and JavaScript (componentize-js) projects for `warden plugin new`:
//! an interceptor (a tool guard: pre-tool-call allow, deny or rewrite, post-tool-call notes) or
//! a tool plugin, on WIT `warden:plugin@0.2.0`, whose files the project carries in `wit/`.

use super::{Files, NewLang, NewWorld, config_example};
use crate::cli::exit::CliError;

/// The released WIT files the bindings generators read: 0.2.0, pinned (not the newest `wit/`).
const WIT: &[(&str, &str)] = &[
    (
        "act.wit",
        include_str!("../../../../../wit/released/0.2.0/act.wit"),
    ),
    (
        "host.wit",
        include_str!("../../../../../wit/released/0.2.0/host.wit"),
    ),
    (
        "intercept.wit",
        include_str!("../../../../../wit/released/0.2.0/intercept.wit"),
    ),
    (
        "observe.wit",
        include_str!("../../../../../wit/released/0.2.0/observe.wit"),
    ),
    (
        "outgoing.wit",
        include_str!("../../../../../wit/released/0.2.0/outgoing.wit"),
    ),
    (
        "resolve.wit",
        include_str!("../../../../../wit/released/0.2.0/resolve.wit"),
    ),
    (
        "types.wit",
        include_str!("../../../../../wit/released/0.2.0/types.wit"),
    ),
    (
        "worlds.wit",
        include_str!("../../../../../wit/released/0.2.0/worlds.wit"),
    ),
];

/// The plugin source of `lang` for `world`: the examples' own files where an example exists,
/// so that what the tests build and run is what a new project starts from.
fn source(lang: NewLang, world: NewWorld) -> Option<(&'static str, &'static str)> {
    Some(match (lang, world) {
        (NewLang::Python, NewWorld::Interceptor) => (
            "app.py",
            include_str!("../../../../../examples/python-tool-guard/app.py"),
        ),
        (NewLang::Python, NewWorld::Tool) => {
            ("app.py", include_str!("../templates/python/tool.py"))
        }
        (NewLang::Js, NewWorld::Interceptor) => {
            ("app.js", include_str!("../templates/js/interceptor.js"))
        }
        (NewLang::Js, NewWorld::Tool) => (
            "app.js",
            include_str!("../../../../../examples/js-tool/app.js"),
        ),
        _ => return None,
    })
}

/// The files of a new Python or JavaScript project.
pub(super) fn files(name: &str, world: NewWorld, lang: NewLang) -> Result<Files, CliError> {
    let lang_name = if lang == NewLang::Python {
        "python"
    } else {
        "js"
    };
    let Some((app, text)) = source(lang, world) else {
        return Err(CliError::usage(format!(
            "--lang {lang_name} has interceptor and tool templates; use --lang rust for a {}",
            world.as_str()
        )));
    };
    let (what, shape) = match (lang, world) {
        (NewLang::Python, NewWorld::Tool) => (
            "tool plugin",
            "the class `Act` implements the `act` interface (`describe` lists the tools, `call` runs one)",
        ),
        (NewLang::Python, _) => (
            "interceptor",
            "the class `Intercept` implements the `intercept` interface (here a tool guard: \
             `pre_tool_call` allows, denies or rewrites a call, `post_tool_call` adds notes)",
        ),
        (_, NewWorld::Tool) => (
            "tool plugin",
            "the exported object `act` implements the `act` interface (`describe` lists the \
             tools, `call` runs one)",
        ),
        _ => (
            "interceptor",
            "the exported object `intercept` implements the `intercept` interface (here a tool \
             guard: `preToolCall` allows, denies or rewrites a call, `postToolCall` adds notes)",
        ),
    };
    let config = match world {
        NewWorld::Interceptor => format!(
            "[[plugins]]\nname = \"{name}\"\nkind = \"interceptor\"\npath = \"/path/to/{name}/plugin.wasm\"\n[plugins.config]\ndeny = \"write_file:secrets/\"\nrewrite = \"old/=>new/\""
        ),
        _ => config_example(name, world, &format!("/path/to/{name}/plugin.wasm")),
    };
    let fill = |text: &str| {
        text.replace("{{name}}", name)
            .replace("{{world}}", world.as_str())
            .replace("{{what}}", what)
            .replace("{{shape}}", shape)
            .replace("{{app}}", app)
            .replace("{{config}}", &config)
    };
    let mut files: Files = vec![(app.to_owned(), text.to_owned(), false)];
    let dir: &[(&str, &str, bool)] = if lang == NewLang::Python {
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
    files.extend(
        WIT.iter()
            .map(|(file, text)| (format!("wit/{file}"), (*text).to_owned(), false)),
    );
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_language_has_an_interceptor_and_a_tool_on_0_2_0() {
        for lang in [NewLang::Python, NewLang::Js] {
            for world in [NewWorld::Interceptor, NewWorld::Tool] {
                let files = files("probe", world, lang).unwrap();
                let build = files.iter().find(|(f, _, _)| f == "build.sh").unwrap();
                assert!(
                    build
                        .1
                        .contains(&format!("warden:plugin/{}", world.as_str()))
                );
                assert!(build.2, "build.sh is executable");
                let source = &files[0].1;
                assert!(!source.contains("@0.1.0"), "{lang:?} {world:?}");
                let readme = files.iter().find(|(f, _, _)| f == "README.md").unwrap();
                assert!(!readme.1.contains("{{"), "{}", readme.1);
                assert!(files.iter().any(|(f, t, _)| f == "wit/worlds.wit"
                    && t.contains("warden:plugin@0.2.0")));
            }
            for world in [NewWorld::Hook, NewWorld::Resolver] {
                let err = files("probe", world, lang).unwrap_err();
                assert!(
                    err.message.contains("interceptor and tool"),
                    "{}",
                    err.message
                );
            }
        }
    }
}
