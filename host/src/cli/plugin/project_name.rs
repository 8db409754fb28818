//! The name a build is loaded under when none is given (`plugin dev`): the project's own name
//! from the manifest of its project (the component's directory, or the one above cargo's
//! `target/`) (`pyproject.toml`'s `[project] name`,
//! `package.json`'s `name` without its `@scope/`, `Cargo.toml`'s `[package] name`), else the
//! project directory's name for a script build's `plugin.wasm`, else the file's stem.

use std::path::Path;

/// The name for the component at `file`.
pub(super) fn default_name(file: &Path) -> String {
    if let Some(name) = project_dir(file).and_then(|dir| manifest_name(&dir)) {
        return name;
    }
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // A script build's `plugin.wasm` says nothing: its directory is the project.
    let stem = if stem == "plugin" {
        file.parent()
            .and_then(Path::file_name)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or(stem)
    } else {
        stem.replace('_', "-")
    };
    valid(&stem).unwrap_or_else(|| "dev".to_owned())
}

/// The project directory of the component at `file`: the one above cargo's `target/` for
/// cargo's output (`target/wasm32-wasip2/release/NAME.wasm`), else the file's own directory.
fn project_dir(file: &Path) -> Option<std::path::PathBuf> {
    let dir = file.parent()?;
    let target = dir.parent()?.parent()?;
    if target.file_name().is_some_and(|n| n == "target")
        && dir
            .parent()
            .and_then(Path::file_name)
            .is_some_and(|n| n.to_string_lossy().starts_with("wasm32-"))
    {
        return target.parent().map(Path::to_owned);
    }
    Some(dir.to_owned())
}

/// The project name a manifest in `dir` gives, if one does (and is a valid plugin name).
fn manifest_name(dir: &Path) -> Option<String> {
    let read = |file: &str| std::fs::read_to_string(dir.join(file)).ok();
    if let Some(text) = read("pyproject.toml") {
        let table: toml::Table = toml::from_str(&text).ok()?;
        let name = table.get("project")?.get("name")?.as_str()?;
        return valid(name);
    }
    if let Some(text) = read("package.json") {
        let value: serde_json::Value = serde_json::from_str(&text).ok()?;
        let name = value.get("name")?.as_str()?;
        let name = name.rsplit('/').next().unwrap_or(name);
        return valid(name);
    }
    if let Some(text) = read("Cargo.toml") {
        let table: toml::Table = toml::from_str(&text).ok()?;
        let name = table.get("package")?.get("name")?.as_str()?;
        return valid(name);
    }
    None
}

/// `name` when a `[[plugins]]` entry may be called so: 1–64 of `[A-Za-z0-9._-]`.
fn valid(name: &str) -> Option<String> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    ok.then(|| name.to_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn names_come_from_the_manifest_then_the_directory_then_the_stem() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let project = root.join("my-tool");
        std::fs::create_dir_all(project.join("target/wasm32-wasip2/release")).unwrap();
        let built = project.join("target/wasm32-wasip2/release/my_tool.wasm");
        assert_eq!(default_name(&built), "my-tool");
        std::fs::write(
            project.join("Cargo.toml"),
            "[package]\nname = \"grep-tool\"\n",
        )
        .unwrap();
        assert_eq!(default_name(&built), "grep-tool");
        assert_eq!(default_name(&root.join("x/plugin.wasm")), "x");
        std::fs::create_dir_all(root.join("x")).unwrap();
        std::fs::write(root.join("x/package.json"), "{\"name\": \"@a/b c\"}").unwrap();
        // Not a valid name: the directory's.
        assert_eq!(default_name(&root.join("x/plugin.wasm")), "x");
    }
}
