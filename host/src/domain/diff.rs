//! A small unified line diff, for an edit's approval and for each change a turn made: the longest common subsequence of the
//! two texts' lines, shown as hunks with three lines of context. Bounded: past
//! [`MAX_CELLS`] line pairs it shows every old line removed and every new line added.

/// One line of a diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DiffLine {
    /// `@@ -a,b +c,d @@`.
    Hunk(String),
    /// An unchanged line.
    Same(String),
    /// A line only the old text has.
    Removed(String),
    /// A line only the new text has.
    Added(String),
}

/// Largest old × new line count compared line by line.
const MAX_CELLS: usize = 4_000_000;
/// Unchanged lines shown around each change.
const CONTEXT: usize = 3;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Op {
    Same,
    Del,
    Add,
}

/// The edit script from `old` to `new`, line by line: the lines both start and end with are
/// the same, and only what lies between them is compared (so that one edit in a long file is
/// one change, not the whole file).
fn script(old: &[&str], new: &[&str]) -> Vec<Op> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let mut ops = vec![Op::Same; head];
    ops.extend(middle(
        &old[head..old.len() - tail],
        &new[head..new.len() - tail],
    ));
    ops.extend(std::iter::repeat_n(Op::Same, tail));
    ops
}

/// The edit script of the part that differs: a longest common subsequence, bounded.
fn middle(old: &[&str], new: &[&str]) -> Vec<Op> {
    let (n, m) = (old.len(), new.len());
    if n.saturating_mul(m) > MAX_CELLS {
        return std::iter::repeat_n(Op::Del, n)
            .chain(std::iter::repeat_n(Op::Add, m))
            .collect();
    }
    // lcs[i][j]: the longest common subsequence of old[i..] and new[j..].
    let mut lcs = vec![0u32; (n + 1) * (m + 1)];
    let at = |i: usize, j: usize| i * (m + 1) + j;
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[at(i, j)] = if old[i] == new[j] {
                lcs[at(i + 1, j + 1)] + 1
            } else {
                lcs[at(i + 1, j)].max(lcs[at(i, j + 1)])
            };
        }
    }
    let (mut i, mut j, mut ops) = (0, 0, Vec::with_capacity(n + m));
    while i < n || j < m {
        if i < n && j < m && old[i] == new[j] {
            ops.push(Op::Same);
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[at(i + 1, j)] >= lcs[at(i, j + 1)]) {
            // Removed lines come before the lines that replace them.
            ops.push(Op::Del);
            i += 1;
        } else {
            ops.push(Op::Add);
            j += 1;
        }
    }
    ops
}

/// The hunks turning `old` into `new` (empty when they are equal).
pub fn unified(old: &str, new: &str) -> Vec<DiffLine> {
    let old_lines: Vec<&str> = old.lines().collect();
    let new_lines: Vec<&str> = new.lines().collect();
    let ops = script(&old_lines, &new_lines);
    // Positions in the old and new texts before each op.
    let mut positions = Vec::with_capacity(ops.len() + 1);
    let (mut i, mut j) = (0usize, 0usize);
    for op in &ops {
        positions.push((i, j));
        match op {
            Op::Same => {
                i += 1;
                j += 1;
            }
            Op::Del => i += 1,
            Op::Add => j += 1,
        }
    }
    positions.push((i, j));
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k] != Op::Same).collect();
    let mut out = Vec::new();
    let mut k = 0;
    while k < changed.len() {
        // One hunk: changes closer than twice the context join.
        let start = changed[k].saturating_sub(CONTEXT);
        let mut end = changed[k];
        while k < changed.len() && changed[k] <= end + 2 * CONTEXT {
            end = changed[k];
            k += 1;
        }
        let end = (end + CONTEXT + 1).min(ops.len());
        let (a, b) = positions[start];
        let (a_end, b_end) = positions[end];
        out.push(DiffLine::Hunk(format!(
            "@@ -{},{} +{},{} @@",
            a + 1,
            a_end - a,
            b + 1,
            b_end - b
        )));
        for (op, &(i, j)) in ops[start..end].iter().zip(&positions[start..end]) {
            out.push(match op {
                Op::Same => DiffLine::Same(old_lines[i].to_owned()),
                Op::Del => DiffLine::Removed(old_lines[i].to_owned()),
                Op::Add => DiffLine::Added(new_lines[j].to_owned()),
            });
        }
    }
    out
}

/// `diff` as text (`@@` lines, then `+`, `-` or ` ` before each line), with the lines added
/// and removed.
pub fn render(diff: &[DiffLine]) -> (String, u64, u64) {
    let (mut text, mut added, mut removed) = (String::new(), 0, 0);
    for line in diff {
        let (mark, body) = match line {
            DiffLine::Hunk(h) => ("", h),
            DiffLine::Same(l) => (" ", l),
            DiffLine::Removed(l) => {
                removed += 1;
                ("-", l)
            }
            DiffLine::Added(l) => {
                added += 1;
                ("+", l)
            }
        };
        text.push_str(mark);
        text.push_str(body);
        text.push('\n');
    }
    (text, added, removed)
}

/// The lines of the text `diff` (as [`render`] writes it) was made from, given the lines of
/// the text it led to: each hunk's new-side lines are put back to its old-side ones. `None`
/// when `diff` does not fit `new` (a hunk header that cannot be read, or that points past the
/// end). Line ends are not kept: the result joins the lines with `\n`, one after each.
pub fn old_text(new: &str, diff: &str) -> Option<String> {
    let new_lines: Vec<&str> = new.lines().collect();
    let mut old: Vec<&str> = Vec::with_capacity(new_lines.len());
    // Next new line not yet copied.
    let mut at = 0usize;
    let mut lines = diff.lines().peekable();
    while let Some(header) = lines.next() {
        let (new_start, new_count) = hunk_new_side(header)?;
        // [`unified`] numbers from 1 even for an empty side (`+c,0`: before line c).
        let start = new_start.checked_sub(1)?;
        if start < at || start + new_count > new_lines.len() {
            return None;
        }
        old.extend_from_slice(&new_lines[at..start]);
        at = start + new_count;
        while let Some(line) = lines.peek() {
            if line.starts_with("@@") {
                break;
            }
            if let Some(kept) = line.strip_prefix(' ').or_else(|| line.strip_prefix('-')) {
                old.push(kept);
            } else if line.is_empty() {
                old.push("");
            }
            lines.next();
        }
    }
    old.extend_from_slice(new_lines.get(at..)?);
    Some(old.iter().map(|l| format!("{l}\n")).collect())
}

/// `(c, d)` of a `@@ -a,b +c,d @@` header.
fn hunk_new_side(header: &str) -> Option<(usize, usize)> {
    let rest = header.strip_prefix("@@ -")?;
    let (_, rest) = rest.split_once(" +")?;
    let (side, _) = rest.split_once(" @@")?;
    let (start, count) = side.split_once(',')?;
    Some((start.parse().ok()?, count.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_line_is_a_hunk_with_context() {
        let old = "a\nb\nc\nd\ne\nf\ng\nh\n";
        let new = "a\nb\nc\nd\nE\nf\ng\nh\n";
        assert_eq!(
            unified(old, new),
            vec![
                DiffLine::Hunk("@@ -2,7 +2,7 @@".into()),
                DiffLine::Same("b".into()),
                DiffLine::Same("c".into()),
                DiffLine::Same("d".into()),
                DiffLine::Removed("e".into()),
                DiffLine::Added("E".into()),
                DiffLine::Same("f".into()),
                DiffLine::Same("g".into()),
                DiffLine::Same("h".into()),
            ]
        );
        assert!(unified(old, old).is_empty());
        // One edit in a file far past the compared bound is still one change.
        let long: String = (0..10_000).map(|n| format!("line {n}\n")).collect();
        let edited = long.replace("line 5000\n", "line five thousand\n");
        let (_, added, removed) = render(&unified(&long, &edited));
        assert_eq!((added, removed), (1, 1));
        let (text, added, removed) = render(&unified(old, new));
        assert_eq!((added, removed), (1, 1));
        assert!(text.starts_with("@@ -2,7 +2,7 @@\n b\n"), "{text}");
        assert!(text.contains("\n-e\n+E\n"), "{text}");
        assert_eq!(
            unified("", "x\n"),
            vec![
                DiffLine::Hunk("@@ -1,0 +1,1 @@".into()),
                DiffLine::Added("x".into())
            ]
        );
    }

    mod reversed {
        use super::super::*;
        use proptest::prelude::*;

        fn joined(text: &str) -> String {
            text.lines().map(|l| format!("{l}\n")).collect()
        }

        proptest! {
            #[test]
            fn the_old_text_comes_back_from_the_new_text_and_the_diff(
                old in proptest::collection::vec("[abc ]{0,3}", 0..30),
                new in proptest::collection::vec("[abc ]{0,3}", 0..30),
            ) {
                let old = old.join("\n");
                let new = new.join("\n");
                let (diff, _, _) = render(&unified(&old, &new));
                prop_assert_eq!(old_text(&new, &diff), Some(joined(&old)));
            }
        }

        #[test]
        fn a_diff_that_does_not_fit_the_text_gives_nothing() {
            assert_eq!(old_text("a\n", "@@ -1,1 +5,1 @@\n-x\n+a\n"), None);
            assert_eq!(old_text("a\n", "@@ nonsense\n"), None);
            assert_eq!(old_text("a\nb\n", ""), Some("a\nb\n".into()));
        }
    }
}
