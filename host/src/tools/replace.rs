//! What `edit_file` does to a text: exact replacement of a non-empty string, unique unless
//! every occurrence is asked for.

/// Why an edit was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditRefusal {
    /// `old_string` is empty.
    #[error("`old_string` is empty; give the exact text to replace")]
    Empty,
    /// `old_string` and `new_string` are the same.
    #[error("`old_string` and `new_string` are identical; nothing would change")]
    Same,
    /// `old_string` does not occur.
    #[error(
        "`old_string` was not found in the file; read the file and copy the text exactly (whitespace included)"
    )]
    Missing,
    /// `old_string` occurs more than once and `replace_all` is not set.
    #[error(
        "`old_string` occurs {0} times; add surrounding lines to make it unique, or set `replace_all` to replace every occurrence"
    )]
    NotUnique(usize),
}

/// `text` with `old` replaced by `new` (every occurrence when `all`, else the only one), and
/// how many occurrences were replaced.
pub fn replace(
    text: &str,
    old: &str,
    new: &str,
    all: bool,
) -> Result<(String, usize), EditRefusal> {
    if old.is_empty() {
        return Err(EditRefusal::Empty);
    }
    if old == new {
        return Err(EditRefusal::Same);
    }
    let count = text.matches(old).count();
    match count {
        0 => Err(EditRefusal::Missing),
        1 => Ok((text.replacen(old, new, 1), 1)),
        n if all => Ok((text.replace(old, new), n)),
        n => Err(EditRefusal::NotUnique(n)),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    #[test]
    fn refusals_say_why() {
        assert_eq!(replace("a b a", "", "x", false), Err(EditRefusal::Empty));
        assert_eq!(replace("a b a", "a", "a", true), Err(EditRefusal::Same));
        assert_eq!(replace("a b a", "c", "x", false), Err(EditRefusal::Missing));
        assert_eq!(
            replace("a b a", "a", "x", false),
            Err(EditRefusal::NotUnique(2))
        );
        assert!(
            EditRefusal::NotUnique(2)
                .to_string()
                .contains("occurs 2 times")
        );
        assert_eq!(
            replace("a b a", "a", "x", true),
            Ok(("x b x".to_owned(), 2))
        );
        assert_eq!(replace("a b a", "b", "", false), Ok(("a  a".to_owned(), 1)));
        // Occurrences do not overlap, as `str::replace` counts them.
        assert_eq!(replace("aaa", "aa", "b", false), Ok(("ba".to_owned(), 1)));
    }

    proptest! {
        #[test]
        fn replace_all_is_str_replace(
            text in "[ab\n€]{0,40}",
            old in "[ab\n€]{1,3}",
            new in "[abc\n]{0,3}",
        ) {
            prop_assume!(old != new);
            match replace(&text, &old, &new, true) {
                Ok((out, n)) => {
                    prop_assert_eq!(out, text.replace(&old, &new));
                    prop_assert_eq!(n, text.matches(old.as_str()).count());
                }
                Err(EditRefusal::Missing) => prop_assert!(!text.contains(&old)),
                Err(other) => prop_assert!(false, "unexpected {other:?}"),
            }
        }

        #[test]
        fn a_unique_replacement_leaves_the_rest_byte_identical(
            before in "[ab\n ]{0,30}",
            after in "[ab\n ]{0,30}",
            new in "[abc\n€]{0,5}",
        ) {
            let old = "<<X>>";
            let text = format!("{before}{old}{after}");
            let (out, n) = replace(&text, old, &new, false).unwrap();
            prop_assert_eq!(n, 1);
            let expected = format!("{before}{new}{after}");
            prop_assert_eq!(out.as_bytes(), expected.as_bytes());
        }
    }
}
