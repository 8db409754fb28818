//! Read-only by construction: the built-in allow rules name programs with the options and
//! operands known to only read, a positive list per program, parsed as that program parses
//! its argv ([`argv`]). A command with anything else (an option not listed, an abbreviation
//! that is ambiguous or unknown, an output operand, a word the shell may turn into an
//! option) is not read-only, and the built-in rule does not decide it.

mod argv;
mod files;
pub(crate) mod git;
mod search;
mod shell;
mod text;

use crate::domain::shell_split::Word;

use argv::Argv;

/// How one program's argv is checked.
enum Check {
    /// Parsed by a table of read-only options.
    Table(&'static Argv),
    /// Checked by hand (a parser of its own: `find`, `git`, builtins).
    By(fn(&[Word]) -> bool),
}

fn check(program: &str) -> Option<Check> {
    use Check::{By, Table};
    Some(match program {
        "ls" => Table(&files::LS),
        "cat" => Table(&files::CAT),
        "head" => Table(&files::HEAD),
        "tail" => Table(&files::TAIL),
        "wc" => Table(&files::WC),
        "file" => Table(&files::FILE),
        "stat" => Table(&files::STAT),
        "du" => Table(&files::DU),
        "df" => Table(&files::DF),
        "tree" => Table(&files::TREE),
        "realpath" => Table(&files::REALPATH),
        "dirname" => Table(&files::DIRNAME),
        "basename" => Table(&files::BASENAME),
        "nl" => Table(&files::NL),
        "less" => By(less),
        "more" => Table(&files::MORE),
        "sort" => Table(&text::SORT),
        "uniq" => Table(&text::UNIQ),
        "cut" => Table(&text::CUT),
        "tr" => Table(&text::TR),
        "cmp" => Table(&text::CMP),
        "diff" => Table(&text::DIFF),
        "column" => Table(&text::COLUMN),
        "sha256sum" | "md5sum" => Table(&text::SUMS),
        "jq" => Table(&text::JQ),
        "grep" | "egrep" | "fgrep" => Table(&search::GREP),
        "rg" => Table(&search::RG),
        "find" => By(search::find),
        "git" => By(git::git),
        "cd" => Table(&shell::CD),
        "pwd" => Table(&shell::PWD),
        "which" => Table(&shell::WHICH),
        "type" => Table(&shell::TYPE),
        "date" => Table(&shell::DATE),
        "whoami" => Table(&shell::WHOAMI),
        "uname" => Table(&shell::UNAME),
        "id" => Table(&shell::ID),
        "sleep" => Table(&shell::SLEEP),
        "seq" => Table(&shell::SEQ),
        "echo" | "true" | "false" | "test" | "[" => By(shell::any),
        "printf" => By(shell::printf),
        "export" => By(shell::export),
        _ => return None,
    })
}

/// Whether the simple command `words` (the program first, by the name it is known by) only
/// reads: its program has a positive list and every option and operand is on it.
pub fn read_only(words: &[Word]) -> bool {
    let Some((program, args)) = words.split_first() else {
        return false;
    };
    if !program.literal {
        return false;
    }
    let name = program.text.rsplit('/').next().unwrap_or(&program.text);
    match check(name) {
        Some(Check::Table(spec)) => argv::operands(spec, args).is_some(),
        Some(Check::By(check)) => check(args),
        None => false,
    }
}

/// The programs with a positive list.
pub fn known(program: &str) -> bool {
    check(program).is_some()
}

/// `less`: its table, and no `+cmd` operand (`+!sh` runs a shell when less starts).
fn less(args: &[Word]) -> bool {
    argv::operands(&files::LESS, args)
        .is_some_and(|operands| operands.iter().all(|w| !w.text.starts_with('+')))
}

#[cfg(test)]
mod tests;
