//! `warden session verify [ID]` and `warden session salvage ID`: check the checksums and
//! framing of sessions; copy the valid part of a damaged one into a new session.

use super::not_found;
use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::store;

/// Check one session, or all: one line each, exit 1 if any is damaged.
pub(crate) fn verify(id: Option<&str>) -> Result<u8, CliError> {
    let home = home()?;
    let ids: Vec<String> = match id {
        Some(id) => vec![super::resolve(&home, id)?],
        None => store::list(&home)
            .map_err(not_found)?
            .into_iter()
            .map(|s| s.id)
            .collect(),
    };
    let mut damaged = 0;
    for id in &ids {
        match store::verify(&home, id) {
            Ok(v) => {
                let sums = match v.unsealed {
                    0 => "all checksummed".to_owned(),
                    n => format!("{n} without checksum, written before checksums"),
                };
                let torn = v
                    .torn
                    .map(|t| format!("; would drop: {t}"))
                    .unwrap_or_default();
                outln!("{id}: ok ({} records, {sums}{torn})", v.records);
            }
            Err(err) => {
                damaged += 1;
                outln!("{id}: damaged: {err}");
            }
        }
    }
    if damaged > 0 {
        return Err(CliError::failure(format!(
            "{damaged} of {} sessions damaged; `warden session salvage ID` copies the valid \
             part of one into a new session",
            ids.len()
        )));
    }
    Ok(EXIT_OK)
}

/// Copy the valid prefix of a session into a new session and print its id.
pub(crate) fn salvage(id: &str) -> Result<u8, CliError> {
    let home = home()?;
    let id = super::resolve(&home, id)?;
    let saved = store::salvage(&home, &id).map_err(not_found)?;
    match &saved.problem {
        Some(problem) => eprintln!(
            "warden: session {id}: kept {} records ({} groups) before: {problem}",
            saved.records, saved.groups
        ),
        None => eprintln!(
            "warden: session {id} has no damage; copied all {} records ({} groups)",
            saved.records, saved.groups
        ),
    }
    outln!("{}", saved.id);
    Ok(EXIT_OK)
}
