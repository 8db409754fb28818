//! The sessions `warden chat --resume` and `/resume` offer when no id is given: a numbered
//! list, most recent first (title, workspace, last activity, turns), and a prompt to type a
//! number. A plain line is read, so that it works in any terminal.

use std::io::{BufRead, Write};
use std::time::SystemTime;

use crate::domain::escape::escape_capped;

pub(crate) use crate::front::sessions::{Candidate, candidates, title_and_turns};

/// `3 min ago`, `2 h ago`, `5 days ago`.
fn ago(then: SystemTime) -> String {
    let secs = SystemTime::now()
        .duration_since(then)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    match secs {
        0..60 => "just now".to_owned(),
        60..3_600 => format!("{} min ago", secs / 60),
        3_600..86_400 => format!("{} h ago", secs / 3_600),
        _ => format!("{} days ago", secs / 86_400),
    }
}

/// The numbered lines of `offered`.
fn render(offered: &[Candidate]) -> Vec<String> {
    let width = offered.iter().map(|c| c.id.len()).max().unwrap_or(2);
    offered
        .iter()
        .enumerate()
        .map(|(n, c)| {
            let turns = if c.turns == 1 { "turn" } else { "turns" };
            format!(
                "{:>3}  {:<width$}  {:<12}  {:>3} {turns:<5}  {}  {}",
                n + 1,
                c.id,
                ago(c.activity),
                c.turns,
                escape_capped(&c.workspace.display().to_string(), 80),
                escape_capped(&c.title, crate::front::sessions::TITLE_CHARS * 4),
            )
        })
        .collect()
}

/// Print `offered` to stderr and read the number typed on `input`: the chosen id, or `None`
/// for an empty line or the end of input. A wrong answer asks again.
pub(crate) fn pick(offered: &[Candidate], input: &mut dyn BufRead) -> Option<String> {
    for line in render(offered) {
        eprintln!("{line}");
    }
    loop {
        eprint!(
            "type a number to resume (1–{}), or Enter for none: ",
            offered.len()
        );
        let _ = std::io::stderr().flush();
        let mut answer = String::new();
        match input.read_line(&mut answer) {
            Ok(0) | Err(_) => {
                eprintln!();
                return None;
            }
            Ok(_) => {}
        }
        let answer = answer.trim();
        if answer.is_empty() {
            return None;
        }
        match answer.parse::<usize>() {
            Ok(n) if (1..=offered.len()).contains(&n) => return Some(offered[n - 1].id.clone()),
            _ => eprintln!("{answer:?} is not a number from the list"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::{Item, Source};
    use crate::store::{self, Home};

    #[test]
    fn offers_recent_sessions_first_and_reads_the_number() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = tempfile::tempdir()?;
        let home = Home::new(dir.path().join("home"));
        let here = dir.path().join("here");
        let mut a = store::SessionWriter::create(&home, Some("a"), &here)?;
        a.commit(&[(Source::User, Item::user("first\nsecond line"))])?;
        a.commit(&[(Source::User, Item::user("again"))])?;
        let _empty = store::SessionWriter::create(&home, Some("empty"), &here)?;
        let mut b = store::SessionWriter::create(&home, Some("b"), &dir.path().join("there"))?;
        b.commit(&[(Source::User, Item::user("elsewhere"))])?;

        let all = candidates(&home, None, None).map_err(|e| e.message)?;
        let ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
        assert_eq!(ids.len(), 2, "{ids:?}");
        assert!(ids.contains(&"a") && ids.contains(&"b"), "{ids:?}");
        let here_only = candidates(&home, Some(&here), None).map_err(|e| e.message)?;
        assert_eq!(here_only.len(), 1);
        assert_eq!(here_only[0].title, "first");
        assert_eq!(here_only[0].turns, 2);
        assert!(
            candidates(&home, Some(&here), Some("a"))
                .map_err(|e| e.message)?
                .is_empty()
        );

        let mut typed: &[u8] = b"9\nx\n1\n";
        assert_eq!(pick(&here_only, &mut typed).as_deref(), Some("a"));
        let mut typed: &[u8] = b"\n";
        assert_eq!(pick(&here_only, &mut typed), None);
        let mut typed: &[u8] = b"";
        assert_eq!(pick(&here_only, &mut typed), None);
        Ok(())
    }
}
