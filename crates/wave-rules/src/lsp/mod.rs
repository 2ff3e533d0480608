//! `wave-rules lsp`: a Language Server on stdin/stdout for every rule file
//! the engine reads (and `.wave/config.toml`), over `lsp-server` and
//! `lsp-types`.
//!
//! What it answers is the core's: a document's diagnostics are
//! `check_text` of its text as typed (what `validate PATH` says of the file
//! on disk), plus the diagnostics only a whole load finds (overrides,
//! duplicates, misplaced files, packs), kept from the last load of the
//! project, taken again when a document is opened or saved; quick fixes are
//! the diagnostics' own fixes (the ones `validate --fix` writes). A panic
//! while answering one message answers that request with an error and the
//! server goes on.
//!
//! ```text
//! server.rs        the message loop: initialize, dispatch, a panic caught per message
//! workspace.rs     the project (its last load, its files) and the open documents
//! documents.rs     one open document: its text (incremental edits), its kind, URIs as paths
//! ranges.rs        byte offsets <-> LSP positions (UTF-16), a diagnostic's range
//! diagnostics.rs   a document's diagnostics: as typed, and the whole load's
//! code_actions.rs  quick fixes from the diagnostics' fixes
//! hover.rs         what a glob line matches, when the rule fires and its tokens, an @import
//! completion.rs    frontmatter keys per format, and their values
//! symbols.rs       one symbol per rule; go to definition on an @import
//! ```

mod code_actions;
mod completion;
mod diagnostics;
mod documents;
mod hover;
mod ranges;
mod server;
mod symbols;
mod workspace;

use crate::base::env::{Env, Output, EXIT_TROUBLE};

/// Serves one client on stdin/stdout until it sends `exit` (or closes
/// stdin); a protocol error ends the server with exit code 2.
pub(crate) fn serve(env: &Env) -> Output {
    match server::run(env) {
        Ok(()) => Output::default(),
        Err(e) => Output::fail(EXIT_TROUBLE, format!("lsp: {e}")),
    }
}
