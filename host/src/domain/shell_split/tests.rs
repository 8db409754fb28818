use super::*;

fn programs(command: &str) -> (Vec<String>, bool) {
    let split = split(command);
    (split.programs(), split.uncertain.is_empty())
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
fn lists_pipelines_and_substitutions_are_split() {
    // A substitution runs before the command whose word it is.
    assert_eq!(
        programs("cd src && cargo test | tee out; echo $(git rev-parse HEAD)"),
        (names(&["cd", "cargo", "tee", "git", "echo"]), true)
    );
}

#[test]
fn wrappers_and_shell_strings_are_unwrapped() {
    assert_eq!(
        programs("env A=1 timeout 5 bash -lc 'git status && git push'"),
        (names(&["env", "timeout", "bash", "git", "git"]), true)
    );
    let split = split("find . -name x -exec grep -l y {} + | xargs -n1 rm");
    assert_eq!(split.programs(), names(&["find", "grep", "xargs", "rm"]));
    assert!(split.commands[1].words.iter().any(|w| w.text == "{}"));
}

#[test]
fn what_cannot_be_known_is_uncertain() {
    for command in [
        "$CMD arg",
        "eval ls",
        "curl x | sh",
        "f() { ls; }; f",
        "PATH=. ls",
        "echo $((x+1))",
        "bash <<EOF\nls\nEOF",
        "ls 'unterminated",
    ] {
        assert!(!split(command).uncertain.is_empty(), "{command}");
    }
    // Quoting is removed from literal words; an expansion is not literal.
    let split = split("'git' \"pu\"sh $x");
    assert_eq!(split.commands[0].words[0], Word::literal("git"));
    assert_eq!(split.commands[0].words[1], Word::literal("push"));
    assert!(!split.commands[0].words[2].literal);
}

#[test]
fn plain_commands_split_as_the_parser_does() {
    for command in [
        "cargo test -p warden",
        "git diff --stat",
        "env A=1 timeout 5 ls -la",
        "ls",
        "nice -n 5 cargo build --release",
        "xargs",
    ] {
        assert!(plain_words(command).is_some(), "{command}");
        let mut parsed = Split::default();
        walk::program(command, 0, &mut parsed);
        assert_eq!(split(command), parsed, "{command}");
    }
    for command in [
        "A=1 ls", "ls; rm x", "ls $x", "if true", "time ls", "ls ~", "l\\s",
    ] {
        assert!(plain_words(command).is_none(), "{command}");
    }
}
