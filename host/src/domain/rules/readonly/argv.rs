//! An argv parsed as `getopt_long` parses it (and as the few programs with their own parser
//! do, by the same table): joined short options (`-uo F` is `-u -o F`), short options with
//! their value attached (`-n5`) or in the next word, long options by unique prefix (`--ou`
//! is `--output`), `--opt=value`, `--` ending the options, and options after operands. A
//! word is read-only only when every option it holds is on the program's positive list.

use crate::domain::shell_split::Word;

/// How one program reads its argv: its read-only options, and the ones listed only so that a
/// prefix resolves as the program resolves it.
#[derive(Debug)]
pub(crate) struct Argv {
    /// Short options that take no value.
    pub flags: &'static str,
    /// Short options that take a value (attached, or the next word).
    pub valued: &'static str,
    /// Short options whose value may only be attached (`git diff -M50%`, `-M` alone).
    pub optional: &'static str,
    /// Long options (without `--`): `name` takes no value, `name=` needs one (`=` or the next
    /// word), `name=?` takes one only after `=`, `!name` writes or runs a program (never
    /// read-only, listed so that an abbreviation resolves to it as it would in the program).
    pub long: &'static [&'static str],
    /// More long options, as in `long` (a family's shared table).
    pub also: &'static [&'static str],
    /// Long options may be abbreviated to a unique prefix (`getopt_long`); otherwise only the
    /// exact name is accepted.
    pub prefixes: bool,
    /// A short option's value may be attached (`-n5`) and a valued option may sit inside a
    /// cluster; otherwise it must end its word and its value is the next word.
    pub attached: bool,
    /// `-NUM` is an option (`head -20`, `diff -3`).
    pub digits: bool,
    /// The most operands that are all read (`uniq IN OUT` writes OUT); `None`: no limit.
    pub operands: Option<usize>,
    /// No option of the program writes or runs anything (its man page lists none), so a word
    /// the shell expands (`"$f"`, `$(pwd)`, `~/x`) can only read, whatever it becomes.
    pub expands: bool,
}

impl Argv {
    /// A spec with nothing accepted: fill in what the program accepts.
    pub(crate) const NONE: Argv = Argv {
        flags: "",
        valued: "",
        optional: "",
        long: &[],
        also: &[],
        prefixes: true,
        attached: true,
        digits: false,
        operands: None,
        expands: false,
    };
}

/// The long option `name` resolves to in `table` (exact name first, else the only one it
/// abbreviates, when abbreviations are accepted): its entry, or `None` (unknown or ambiguous).
fn resolve(spec: &Argv, name: &str) -> Option<&'static str> {
    let prefixes = spec.prefixes;
    let bare = |entry: &'static str| {
        let entry = entry.strip_prefix('!').unwrap_or(entry);
        entry.split('=').next().unwrap_or(entry)
    };
    let table = || spec.long.iter().chain(spec.also).copied();
    if let Some(exact) = table().find(|e| bare(e) == name) {
        return Some(exact);
    }
    if !prefixes || name.is_empty() {
        return None;
    }
    let mut found = table().filter(|e| bare(e).starts_with(name));
    match (found.next(), found.next()) {
        (Some(one), None) => Some(one),
        _ => None,
    }
}

/// A word that is an operand the shell may expand only to names with the same literal start:
/// a glob such as `src/*.rs` (never an option, since it cannot start with `-`). Variables,
/// substitutions, braces and tildes may become anything.
pub(crate) fn glob_operand(word: &Word) -> bool {
    if word.literal {
        return true;
    }
    let text = word.text.as_str();
    let first_safe = text
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphanumeric() || "./_".contains(c));
    first_safe
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "./_-+,:@%*?[]".contains(c))
}

/// An option's value in the next word: one the shell cannot split into more words (any
/// word, for a program none of whose options writes).
fn value_word(spec: &Argv, word: Option<&Word>) -> Option<()> {
    word.filter(|w| spec.expands || glob_operand(w)).map(|_| ())
}

/// The operands of `args` (the program's name not included) when every option in it is on
/// `spec`'s read-only list; `None` otherwise.
pub(crate) fn operands<'a>(spec: &Argv, args: &'a [Word]) -> Option<Vec<&'a Word>> {
    let mut out = Vec::new();
    let mut at = 0;
    let mut options_end = false;
    while let Some(arg) = args.get(at) {
        at += 1;
        if spec.expands && !arg.literal {
            continue;
        }
        let text = arg.text.as_str();
        if options_end || text == "-" || !text.starts_with('-') {
            if !glob_operand(arg) {
                return None;
            }
            out.push(arg);
            continue;
        }
        // An option word: the shell must not be able to change it.
        if !arg.literal {
            return None;
        }
        if text == "--" {
            options_end = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            let entry = resolve(spec, name)?;
            if entry.starts_with('!') {
                return None;
            }
            match (entry.strip_suffix("=?"), entry.strip_suffix('='), value) {
                (Some(_), _, _) => {}
                (None, Some(_), Some(_)) => {}
                (None, Some(_), None) => {
                    value_word(spec, args.get(at))?;
                    at += 1;
                }
                (None, None, Some(_)) => return None,
                (None, None, None) => {}
            }
            continue;
        }
        let letters = &text[1..];
        if spec.digits && letters.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        for (i, c) in letters.char_indices() {
            if spec.flags.contains(c) {
                continue;
            }
            if spec.optional.contains(c) {
                break;
            }
            if !spec.valued.contains(c) {
                return None;
            }
            let rest = &letters[i + c.len_utf8()..];
            if rest.is_empty() {
                value_word(spec, args.get(at))?;
                at += 1;
            } else if !spec.attached {
                return None;
            }
            break;
        }
    }
    match spec.operands {
        Some(most) if out.len() > most || out.iter().any(|w| !w.literal) => None,
        _ => Some(out),
    }
}
