//! `warden notify --session ID TEXT`.

use super::common::home;
use super::exit::{CliError, EXIT_OK};
use super::out::outln;
use crate::store::Inbox;

/// Queue `text` for `session`; it is committed before that session's next model request.
pub(crate) fn notify(session: &str, text: &str) -> Result<u8, CliError> {
    if text.trim().is_empty() {
        return Err(CliError::usage("the notification text is empty"));
    }
    let home = home()?;
    let session = crate::cli::session::resolve(&home, session)?;
    let note =
        Inbox::push(&home, &session, text).map_err(|err| CliError::usage(err.to_string()))?;
    outln!("queued {} for session {session}", note.id);
    Ok(EXIT_OK)
}
