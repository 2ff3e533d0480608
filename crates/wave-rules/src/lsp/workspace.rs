//! The project as the server sees it: the last whole load of its rules
//! (taken again when a document is opened or saved, incrementally: only the
//! files whose stamp changed are read again), the project's files (for what
//! a glob matches) and the open documents.

use super::documents::{self, Document};
use crate::report::walk;
use lsp_types::Uri;
use memory_rules::sources::Config;
use memory_rules::{Diagnostic, Loaded};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

pub(super) struct Workspace {
    pub config: Config,
    /// The user's home (`@~/` imports).
    pub home: Option<PathBuf>,
    pub loaded: Loaded,
    /// The project's files, relative and `/`-separated (the report's walk:
    /// `.gitignore` honoured), as of the last open or save.
    pub files: Vec<String>,
    /// The rules of the last load whose paths match none of `files`: their
    /// file, and the rule ids.
    pub no_match: HashMap<PathBuf, Vec<String>>,
    documents: HashMap<String, Document>,
    /// The core's diagnostics last published for each document (what a
    /// quick fix is looked up in).
    pub shown: HashMap<String, Vec<Diagnostic>>,
}

impl Workspace {
    pub fn new(config: Config, home: Option<PathBuf>) -> Workspace {
        let loaded = memory_rules::load(&config);
        let mut ws = Workspace {
            config,
            home,
            loaded,
            files: Vec::new(),
            no_match: HashMap::new(),
            documents: HashMap::new(),
            shown: HashMap::new(),
        };
        ws.walk();
        ws
    }

    /// Loads the rules again (only the changed files are read) and walks
    /// the project's files again.
    pub fn refresh(&mut self) {
        self.loaded = memory_rules::reload(&self.config, &self.loaded).loaded;
        self.walk();
    }

    fn walk(&mut self) {
        self.files = walk::walk(&self.config.workdir).files;
        let set = &self.loaded.rules;
        let active: std::collections::HashSet<usize> =
            set.active(&self.files, None).into_iter().collect();
        self.no_match.clear();
        if self.files.is_empty() {
            return;
        }
        for (i, r) in set.rules().iter().enumerate() {
            let path_rule = r.metadata.paths.is_some() && r.metadata.activation.as_str() == "auto";
            if path_rule && !active.contains(&i) {
                self.no_match
                    .entry(r.file_path.clone())
                    .or_default()
                    .push(r.id.clone());
            }
        }
    }

    /// Whether the last load read `path` or named it in a diagnostic.
    pub fn known(&self, path: &Path) -> bool {
        self.loaded
            .rules
            .rules()
            .iter()
            .any(|r| r.file_path == path)
            || self
                .loaded
                .diagnostics
                .iter()
                .any(|d| Path::new(&d.file_path) == path)
    }

    /// Opens (or reopens) a document; `None` for a URI that is no file.
    pub fn open(&mut self, uri: Uri, text: String) -> Option<&Document> {
        let path = documents::path_of(&uri)?;
        let known = self.known(&path);
        let doc = Document::new(uri.clone(), path, text, &self.config, known);
        self.documents.insert(uri.as_str().to_string(), doc);
        self.documents.get(uri.as_str())
    }

    pub fn document(&self, uri: &Uri) -> Option<&Document> {
        self.documents.get(uri.as_str())
    }

    pub fn document_mut(&mut self, uri: &Uri) -> Option<&mut Document> {
        self.documents.get_mut(uri.as_str())
    }

    pub fn close(&mut self, uri: &Uri) {
        self.documents.remove(uri.as_str());
        self.shown.remove(uri.as_str());
    }

    /// The open documents' URIs.
    pub fn uris(&self) -> Vec<Uri> {
        self.documents.values().map(|d| d.uri.clone()).collect()
    }
}
