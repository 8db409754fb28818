//! warden's built-in resolver (placeholder until the full resolver lands).

use warden_plugin::resolver::{FileChunk, FileRef, Listing, ResolveError, Resolved, Resolver};
use warden_plugin::Config;

struct FileRefResolver;

impl Resolver for FileRefResolver {
    fn init(_config: Config) -> Result<Self, String> {
        Ok(Self)
    }

    fn resolve(&mut self, request: FileRef) -> Result<Resolved, ResolveError> {
        Err(ResolveError::Io(format!("{}: not implemented", request.path)))
    }

    fn read_file(&mut self, path: String, _o: u32, _l: u32, _m: u64) -> Result<FileChunk, ResolveError> {
        Err(ResolveError::Io(format!("{path}: not implemented")))
    }

    fn list_files(&mut self, path: String, _m: u32) -> Result<Listing, ResolveError> {
        Err(ResolveError::Io(format!("{path}: not implemented")))
    }
}

warden_plugin::export_resolver!(FileRefResolver);
