//! Streamed answer text cut into complete Markdown blocks: a block closes at a blank line
//! outside a fenced code block, or at the line that closes its fence. What follows the last
//! closed block is the open tail, shown raw until it closes.

/// The answer text received so far, split at the last closed block.
#[derive(Debug, Default)]
pub(crate) struct Blocks {
    /// Text after the last closed block.
    tail: String,
}

impl Blocks {
    /// Add `delta`; returns the text of the blocks it closed (empty when none), in order.
    pub(crate) fn push(&mut self, delta: &str) -> String {
        self.tail.push_str(delta);
        let cut = closed_upto(&self.tail);
        if cut == 0 {
            return String::new();
        }
        let rest = self.tail.split_off(cut);
        std::mem::replace(&mut self.tail, rest)
    }

    /// The open tail.
    pub(crate) fn tail(&self) -> &str {
        &self.tail
    }

    /// The whole open tail, taken at the end of the answer.
    pub(crate) fn finish(&mut self) -> String {
        std::mem::take(&mut self.tail)
    }
}

/// The fence a line opens or closes (its character and length), if it is one.
fn fence(line: &str) -> Option<(char, usize)> {
    let trimmed = line.trim_start_matches(' ');
    if line.len() - trimmed.len() > 3 {
        return None;
    }
    let c = trimmed.chars().next().filter(|c| *c == '`' || *c == '~')?;
    let n = trimmed.chars().take_while(|x| *x == c).count();
    (n >= 3).then_some((c, n))
}

/// The byte length of the prefix of `text` made of closed blocks (0 when none closed).
fn closed_upto(text: &str) -> usize {
    let mut open_fence: Option<(char, usize)> = None;
    let mut at = 0;
    let mut cut = 0;
    let mut content = false;
    // Only complete lines (ending in `\n`) decide anything.
    for line in text.split_inclusive('\n') {
        if !line.ends_with('\n') {
            break;
        }
        at += line.len();
        let body = line.trim_end_matches(['\n', '\r']);
        match open_fence {
            Some((c, n)) => {
                if let Some((c2, n2)) = fence(body)
                    && c2 == c
                    && n2 >= n
                    && body.trim().chars().all(|x| x == c)
                {
                    open_fence = None;
                    cut = at;
                    content = false;
                }
            }
            None => {
                if let Some(f) = fence(body) {
                    open_fence = Some(f);
                    content = true;
                } else if body.trim().is_empty() {
                    if content {
                        cut = at;
                        content = false;
                    }
                } else {
                    content = true;
                }
            }
        }
    }
    cut
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_block_closes_at_a_blank_line_or_its_fence() {
        let mut b = Blocks::default();
        assert_eq!(b.push("# Title\nsome "), "");
        assert_eq!(b.push("text\n\n- a"), "# Title\nsome text\n\n");
        assert_eq!(b.tail(), "- a");
        assert_eq!(b.push("\n- b\n\n```rust\nfn main() {\n\n"), "- a\n- b\n\n");
        assert_eq!(b.push("}\n```"), "");
        assert_eq!(b.push("\nafter"), "```rust\nfn main() {\n\n}\n```\n");
        assert_eq!(b.finish(), "after");
    }

    proptest! {
        /// However the text is cut into deltas, the blocks and the tail add up to the text, and
        /// they are the blocks the whole text gives at once.
        #[test]
        fn deltas_give_the_same_blocks_as_the_whole(
            text in "([a-z ]{0,6}|```|~~~|\\n|- |# ){0,40}",
            cuts in proptest::collection::vec(0usize..200, 0..8),
        ) {
            let mut whole = Blocks::default();
            let all = whole.push(&text);
            let mut parts = Blocks::default();
            let mut got = String::new();
            let mut last = 0;
            let mut cuts: Vec<usize> = cuts.into_iter().filter(|c| *c <= text.len() && text.is_char_boundary(*c)).collect();
            cuts.sort_unstable();
            for cut in cuts {
                got.push_str(&parts.push(&text[last..cut]));
                last = cut;
            }
            got.push_str(&parts.push(&text[last..]));
            prop_assert_eq!(&got, &all);
            prop_assert_eq!(format!("{got}{}", parts.finish()), text);
        }
    }
}
