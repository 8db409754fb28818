//! `warden compact [-C DIR] SESSION`: replace what the next request is built from by a summary
//! and current copies of the files it referenced.

use std::path::Path;

use super::common::{env, home, print_alert, setup_error};
use super::exit::{CliError, EXIT_OK};
use super::out::outln;
use super::trust::{WhenWaiting, load_config_trusted};
use crate::domain::{TurnEvent, TurnSink};
use crate::{setup, store};

/// Prints alerts as they come; nothing streams.
struct AlertSink;

impl TurnSink for AlertSink {
    fn event(&mut self, event: &TurnEvent) {
        if let TurnEvent::Alert(alert) = event {
            print_alert(alert);
        }
    }
}

/// Compact an existing session.
pub(crate) fn compact(dir: Option<&Path>, session: &str) -> Result<u8, CliError> {
    let home = home()?;
    // Only an existing session: compaction never creates one.
    let session = &super::session::resolve(&home, session)?;
    store::load(&home, session).map_err(|err| CliError::failure(err.to_string()))?;
    let workspace = crate::front::workspace::Workspace::find(dir)?.root;
    let loaded = load_config_trusted(&workspace, &home, WhenWaiting::Refuse)?;
    let mut worker =
        setup::open(&loaded.config, &workspace, Some(session), &home, &env).map_err(setup_error)?;
    match worker.compact(&mut AlertSink) {
        Ok(Some(done)) => {
            outln!("{} of session {session}", describe(&done));
            Ok(EXIT_OK)
        }
        Ok(None) => {
            outln!("session {session} has nothing to compact");
            Ok(EXIT_OK)
        }
        Err(err) => Err(CliError::failure(format!("{err} (session {session})"))),
    }
}

pub(crate) use crate::front::reports::compacted as describe;
