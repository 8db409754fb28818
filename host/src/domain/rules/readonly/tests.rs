use proptest::prelude::*;

use super::read_only;
use crate::domain::shell_split::{Word, split};

fn argv(command: &str) -> Vec<Word> {
    split(command)
        .commands
        .into_iter()
        .next()
        .map(|c| c.words)
        .unwrap_or_default()
}

fn reads(command: &str) -> bool {
    read_only(&argv(command))
}

#[test]
fn joined_abbreviated_and_valued_options_parse_as_the_program_parses_them() {
    assert!(reads("sort -u -k 2 f"));
    assert!(reads("sort -uk2 f"), "a value attached inside a cluster");
    assert!(!reads("sort -uo out f"), "-uo out = -u -o out");
    assert!(!reads("sort -ruo out f"));
    assert!(!reads("sort --ou=out f"), "--ou abbreviates --output");
    assert!(!reads("sort --o=out f"), "ambiguous or writing");
    assert!(!reads("sort --compress=sh f"));
    assert!(reads("sort --rev f"), "--rev abbreviates --reverse only");
    assert!(
        !reads("sort --r f"),
        "ambiguous: --reverse, --random-sort …"
    );
    assert!(
        !reads("sort --unique=x f"),
        "a value to an option without one"
    );
    assert!(reads("sort -- -o"), "after `--`, an operand");
    assert!(!reads("sort f -o out"), "options after operands");
    assert!(!reads("sort -k"), "a value missing");
    assert!(
        !reads("sort -k $x f"),
        "a value the shell may split into options"
    );
    assert!(reads("head -n5 f") && reads("head -20 f") && reads("head --lines=3 f"));
    assert!(reads("uniq -c f") && !reads("uniq f out") && !reads("uniq -- f out"));
    assert!(reads("cmp a b 1 2") && !reads("cmp a b 1 2 3"));
    assert!(reads("tr -d x") && !reads("tr a b c"));
}

#[test]
fn programs_with_a_parser_of_their_own() {
    assert!(reads("tree -L 2 -a"));
    assert!(
        !reads("tree -La 2"),
        "tree takes the value from the next word"
    );
    assert!(!reads("tree --outp x"), "tree takes no abbreviation");
    assert!(reads("less -R f") && !reads("less +!sh f") && !reads("less --log-file=x f"));
    assert!(reads("rg -n foo") && !reads("rg --pre=sh foo") && !reads("rg -nz foo"));
    assert!(!reads("rg --pr=sh foo"), "rg takes no abbreviation");
    assert!(reads("find . -name x -exec grep -l y {} +"));
    assert!(!reads("find . -name x -exec grep y {} + -delete"));
    assert!(
        reads("find . -exec echo + -delete \\;"),
        "the `+` is echo's; find runs echo"
    );
    assert!(!reads("find . -exec echo {} +x"), "unterminated");
    assert!(
        !reads("find $d -name x"),
        "a starting point that may be an action"
    );
    assert!(reads("git --no-pager -P log -5 --oneline"));
    assert!(!reads("git -C . status") && !reads("git -c a=b status"));
    assert!(!reads("git --git-dir=x status") && !reads("git --work-tree x status"));
    assert!(!reads("git --exec-path=x status") && !reads("git --config-env=a=B status"));
    assert!(
        !reads("git diff --outp=x"),
        "git's diff options take no abbreviation"
    );
    assert!(!reads("git push") && !reads("git config core.pager"));
    assert!(reads("git diff -M50% --stat") && reads("git status -uno"));
    assert!(!reads("printf -v HOME x") && reads("printf '%s\\n' x"));
}

/// Short options of `sort` that only read (each takes no value) and the ones that write or
/// run a program (each takes one).
const READS: &[char] = &[
    'b', 'c', 'd', 'f', 'g', 'i', 'M', 'h', 'n', 'r', 's', 'u', 'V', 'z',
];
const WRITES: &[char] = &['o', 'T'];
const LONG_READS: &[&str] = &["--reverse", "--unique", "--numeric-sort", "--stable"];
const LONG_WRITES: &[&str] = &[
    "--output=x",
    "--outp=x",
    "--temporary-directory=x",
    "--tem=x",
    "--compress-program=sh",
    "--compress-p=sh",
];

fn cluster() -> impl Strategy<Value = (String, bool)> {
    (
        prop::collection::vec((any::<bool>(), 0..100usize), 1..6),
        any::<bool>(),
    )
        .prop_map(|(letters, long)| {
            let mut writes = false;
            let mut word = String::from("-");
            let mut longs = Vec::new();
            for (write, n) in letters {
                if long {
                    if write {
                        longs.push(LONG_WRITES[n % LONG_WRITES.len()]);
                    } else {
                        longs.push(LONG_READS[n % LONG_READS.len()]);
                    }
                } else if write {
                    word.push(WRITES[n % WRITES.len()]);
                } else {
                    word.push(READS[n % READS.len()]);
                }
                writes |= write;
            }
            if long {
                (longs.join(" "), writes)
            } else {
                (word, writes)
            }
        })
}

proptest! {
    /// Random clusters and runs of long options: never read-only when any member writes or
    /// runs a program; read-only when none does.
    #[test]
    fn a_cluster_with_a_writing_option_is_never_read_only(
        (options, writes) in cluster(),
        via in prop::sample::select(vec!["sort", "/usr/bin/sort"]),
    ) {
        let command = format!("{via} {options} out in");
        prop_assert_eq!(reads(&command), !writes, "{}", command);
    }
}
