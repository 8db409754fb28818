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

#[test]
fn find_exec_ends_at_its_semicolon_or_at_a_plus_right_after_braces() {
    // find(1) runs `time -o + sh -c 'touch p' {}`: the first `+` is time's value.
    let first = split("find . -exec time -o + sh -c 'touch p' {} +");
    assert_eq!(first.programs(), names(&["find", "time", "sh", "touch"]));
    assert_eq!(first.writes, names(&["+"]), "time -o writes its report");
    let second = split("find . -exec grep -e + {} \\; -exec touch q \\;");
    assert_eq!(second.programs(), names(&["find", "grep", "touch"]));
}

#[test]
fn xargs_arguments_are_uncertain_and_time_output_is_a_write() {
    assert!(!programs("ls | xargs cat").1);
    assert!(!programs("echo x | xargs").1);
    assert_eq!(split("/usr/bin/time -o out ls").writes, names(&["out"]));
    assert_eq!(split("env time --output=out ls").writes, names(&["out"]));
    assert!(!programs("HOME=. git status").1);
    assert!(!programs("export XDG_CONFIG_HOME=x; git diff").1);
}
