//! Writing notes, and keeping memory clean while doing it.
//!
//! [`MemoryStore::write_note`] is the one way a note gets in (the
//! `memory_write` tool, `wave-rules memory write`, the binding). Under the
//! scope's lock it:
//!
//! 1. refuses a note that holds a credential ([`crate::memory::secrets`]), before
//!    anything is read or written, asking for a placeholder instead;
//! 2. does not store a note that restates a rule of the project (when the
//!    caller gives the rules) and says nothing of its own
//!    ([`hygiene::adds_nothing`]), and names the rule; a note that restates
//!    one in words of its own goes on, the rule named in the answer as a
//!    possible restatement (`possible_restatement`) with its evidence;
//! 3. folds an exact or near duplicate of an entry of the same scope into
//!    that entry (its `updated` time refreshed, its `paths` and `topics`
//!    joined) instead of adding it ([`crate::memory::hygiene`]);
//! 4. stores the note otherwise, flagging the entries and rules it
//!    conflicts with (same subject, another command, port, version,
//!    address, account, path or setting, or denied) in the answer
//!    (`conflicts`) when the conflict is precise ([`hygiene::flagged`]),
//!    else listing it as a possible conflict to read, with its evidence
//!    (`possible_conflicts`); `memory lint` lists both, apart;
//! 5. marks the entry of the same scope it supersedes (the same fact in
//!    nearly the same words with a new value, [`hygiene::supersedes`]; the
//!    nearest one not superseded yet): its metadata gets `superseded_by`,
//!    the answer lists it in `supersedes` (and not among the conflicts).
//!
//! The answer ([`NoteWritten`]) says which of these happened, the entry's id,
//! and the topic it went to when the name given maps onto an existing topic
//! spelled otherwise (`..\x` and `x` are both `x.md`).

use super::rule_parts::{df_fn, weights, RuleParts};
use super::{MemoryError, MemoryScope, MemoryStore, WriteMode, INDEX_FILE};
use crate::base::fs::{self, Lock};
use crate::base::limits::{MAX_MEMORY_TOPIC_BYTES, MEMORY_LOCK_TIMEOUT};
use crate::memory::entry::{self, Entry, Proposal};
use crate::memory::hygiene::{self, Clash, Profile, Weights};
use crate::memory::memory_md::TopicList;
use crate::memory::name::nfc;
use crate::memory::search::{MemoryHit, MemoryIndex, Query};
use crate::memory::secrets::{SecretFinding, SecretRules};
use crate::rules::rule_set::RuleSet;
use std::path::Path;
use std::time::SystemTime;

/// How many entries a new note is compared with (the best matches of a
/// search for its words).
pub const COMPARED_ENTRIES: usize = 20;

/// A note to write.
#[derive(Clone, Debug)]
pub struct Note<'a> {
    pub scope: MemoryScope,
    pub topic: &'a str,
    pub text: &'a str,
    /// Replace the topic's entries with this one (else add it).
    pub replace: bool,
    pub paths: Vec<String>,
    pub topics: Vec<String>,
    pub pinned: bool,
    pub agent: Option<String>,
    pub session: Option<String>,
}

impl<'a> Note<'a> {
    /// A note to add to a topic of a scope.
    pub fn new(scope: MemoryScope, topic: &'a str, text: &'a str) -> Note<'a> {
        Note {
            scope,
            topic,
            text,
            replace: false,
            paths: Vec::new(),
            topics: Vec::new(),
            pinned: false,
            agent: None,
            session: None,
        }
    }
}

/// What a write did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoteAction {
    /// A new entry.
    Stored,
    /// The topic's entries replaced by this one.
    Replaced,
    /// Folded into an existing entry (a duplicate).
    Folded,
    /// Not stored: it restates a rule.
    Restated,
    /// Not stored: it holds a credential.
    Refused,
}

impl NoteAction {
    /// `stored`, `replaced`, `folded`, `restated`, `refused`.
    pub fn as_str(self) -> &'static str {
        match self {
            NoteAction::Stored => "stored",
            NoteAction::Replaced => "replaced",
            NoteAction::Folded => "folded",
            NoteAction::Restated => "restated",
            NoteAction::Refused => "refused",
        }
    }

    /// The note is in memory after the write (stored, replaced or folded).
    pub fn kept(self) -> bool {
        matches!(
            self,
            NoteAction::Stored | NoteAction::Replaced | NoteAction::Folded
        )
    }
}

/// What a note conflicts with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Other {
    Entry {
        scope: MemoryScope,
        id: String,
        topic: String,
    },
    Rule {
        id: String,
    },
}

impl Other {
    /// Whether this is the entry `id` of `scope`.
    pub fn is_entry(&self, of: MemoryScope, entry: &str) -> bool {
        matches!(self, Other::Entry { scope, id, .. } if *scope == of && id == entry)
    }
}

/// A conflict found on write: a flag, or a possible conflict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteConflict {
    pub with: Other,
    pub clash: Clash,
    /// The other side's text (an entry's, or the rule's part).
    pub text: String,
    /// The shared subject: the heaviest words both say, values aside
    /// ([`Profile::shared_subject`](crate::memory::hygiene::Profile::shared_subject)).
    pub shared: Vec<String>,
}

impl NoteConflict {
    fn to_json(&self) -> serde_json::Value {
        let with = match &self.with {
            Other::Entry { scope, id, topic } => {
                serde_json::json!({ "entry": id, "scope": scope.as_str(), "topic": topic })
            }
            Other::Rule { id } => serde_json::json!({ "rule": id }),
        };
        serde_json::json!({
            "with": with, "kind": self.clash.kind.as_str(),
            "ours": self.clash.ours, "theirs": self.clash.theirs, "text": self.text,
            "shared": self.shared,
        })
    }

    /// One line of the answer's message: `Conflict` or `Possible conflict`.
    fn line(&self, what: &str, advice: &str) -> String {
        let other = match &self.with {
            Other::Entry { scope, id, topic } => format!("{scope} memory entry {id} ('{topic}')"),
            Other::Rule { id } => format!("rule {id}"),
        };
        format!(
            "\n{what}: {other} gives another {} ({} here, {} there; shared: {}): \"{}\". {advice}",
            self.clash.kind.as_str(),
            self.clash.ours.join(", "),
            self.clash.theirs.join(", "),
            self.shared.join(", "),
            short(&self.text, 160)
        )
    }
}

/// A rule part a stored note may restate ([`hygiene::restates`], but the
/// note says words of its own: [`hygiene::adds_nothing`]): to read, with
/// its evidence.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PossibleRestatement {
    pub rule: String,
    /// The rule's part.
    pub text: String,
    /// The heaviest words both say.
    pub shared: Vec<String>,
}

/// The answer to a write.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NoteWritten {
    pub action: NoteAction,
    pub scope: MemoryScope,
    /// The entry (new, or the one it was folded into); none when not stored.
    pub id: Option<String>,
    /// The topic's name and file.
    pub topic: String,
    pub file: String,
    /// The name given, when the topic already existed under another name.
    pub respelled: Option<String>,
    /// The rule it restates.
    pub rule: Option<String>,
    /// The rule it may restate (stored all the same).
    pub possible_restatement: Option<PossibleRestatement>,
    /// The conflicts flagged ([`hygiene::flagged`]).
    pub conflicts: Vec<NoteConflict>,
    /// The conflicts found but not precise enough to flag: to read, with
    /// their evidence.
    pub possible_conflicts: Vec<NoteConflict>,
    /// The entries (same scope) this note supersedes.
    pub supersedes: Vec<String>,
    pub credential: Option<SecretFinding>,
}

impl NoteWritten {
    /// The answer for a note of `scope` to `topic` (its `file`) before
    /// anything is decided: refused, nothing found.
    fn refused(scope: MemoryScope, topic: String, file: String) -> NoteWritten {
        NoteWritten {
            action: NoteAction::Refused,
            scope,
            id: None,
            topic,
            file,
            respelled: None,
            rule: None,
            possible_restatement: None,
            conflicts: Vec::new(),
            possible_conflicts: Vec::new(),
            supersedes: Vec::new(),
            credential: None,
        }
    }

    /// As JSON (the CLI's `--json`, the binding): `action`, `id`, `scope`,
    /// `topic`, `file`, `respelled`, `rule`, `possible_restatement`,
    /// `conflicts`, `possible_conflicts`, `supersedes`, `credential`,
    /// `message`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let all = |cs: &[NoteConflict]| -> Vec<serde_json::Value> {
            cs.iter().map(NoteConflict::to_json).collect()
        };
        json!({
            "action": self.action.as_str(),
            "id": self.id,
            "scope": self.scope.as_str(),
            "topic": self.topic,
            "file": self.file,
            "respelled": self.respelled,
            "rule": self.rule,
            "possible_restatement": self.possible_restatement.as_ref().map(|r| json!({ "rule": r.rule, "text": r.text, "shared": r.shared })),
            "conflicts": all(&self.conflicts),
            "possible_conflicts": all(&self.possible_conflicts),
            "supersedes": self.supersedes,
            "credential": self.credential.as_ref().map(|f| json!({ "rule": f.rule, "masked": f.masked })),
            "message": self.message(),
        })
    }

    /// One paragraph for the model or the terminal.
    pub fn message(&self) -> String {
        let place = format!(
            "{} memory topic '{}' ({})",
            self.scope, self.topic, self.file
        );
        let id = self.id.as_deref().unwrap_or("");
        let mut out = match self.action {
            NoteAction::Stored => format!("Stored as {id} in {place}."),
            NoteAction::Replaced => format!("Replaced {place} with {id}."),
            NoteAction::Folded => format!(
                "Not added: the same note is already {id} in {place}; folded into it (its time refreshed)."
            ),
            NoteAction::Restated => format!(
                "Not stored: the rule {} already says this, and rules are given every time.",
                self.rule.as_deref().unwrap_or("?")
            ),
            NoteAction::Refused => {
                let f = self.credential.as_ref();
                format!(
                    "Refused: the note holds what looks like a credential ({}: {}). Never keep secrets in memory; store a placeholder instead, e.g. 'the deploy token is in the team's secrets manager under DEPLOY_TOKEN'.",
                    f.map_or("?", |f| f.rule.as_str()),
                    f.map_or(String::new(), |f| f.masked.clone())
                )
            }
        };
        if let Some(given) = &self.respelled {
            out.push_str(&format!(
                " The topic '{given}' is the existing topic '{}' ({}).",
                self.topic, self.file
            ));
        }
        if !self.supersedes.is_empty() {
            out.push_str(&format!(
                "\nIt supersedes {} (the same fact with another value): recall gives this one now; `wave-rules memory forget ID` removes the old one.",
                self.supersedes.join(", ")
            ));
        }
        if let Some(r) = &self.possible_restatement {
            out.push_str(&format!(
                "\nPossible restatement (not flagged: read it): rule {} says \"{}\" (shared: {}). If the note says nothing more, `wave-rules memory forget {id}`.",
                r.rule,
                short(&r.text, 160),
                r.shared.join(", ")
            ));
        }
        for c in &self.conflicts {
            out.push_str(&c.line(
                "Conflict",
                "Check which is right; `wave-rules memory lint` lists this.",
            ));
        }
        for c in &self.possible_conflicts {
            out.push_str(&c.line(
                "Possible conflict (not flagged: read it)",
                "It may be another fact of the same subject.",
            ));
        }
        out
    }
}

fn short(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        flat
    } else {
        let mut s: String = flat.chars().take(max).collect();
        s.push('…');
        s
    }
}

/// An entry removed by [`MemoryStore::forget`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forgotten {
    pub scope: MemoryScope,
    pub topic: String,
    pub file: String,
    pub entry: Entry,
}

impl MemoryStore {
    /// Writes a note to a topic (a new entry, or the topic's only entry with
    /// [`WriteMode::Replace`]) through [`MemoryStore::write_note`], without
    /// rules to compare with. Returns the topic's file name; a note that is
    /// refused (a credential) is an error carrying the answer's text.
    ///
    /// A topic over [`MAX_MEMORY_TOPIC_BYTES`] is refused (checked before
    /// anything is read or written); the lock is waited for at most
    /// [`MEMORY_LOCK_TIMEOUT`]; temp files a killed writer left are removed.
    pub fn write_topic(
        &self,
        scope: MemoryScope,
        topic: &str,
        content: &str,
        mode: WriteMode,
    ) -> Result<String, MemoryError> {
        let mut note = Note::new(scope, topic, content);
        note.replace = mode == WriteMode::Replace;
        let written = self.write_note(&note, None)?;
        if written.action.kept() {
            Ok(written.file)
        } else {
            Err(MemoryError::Refused(written.message()))
        }
    }

    /// Writes a note (see the module comment). Errors are for what cannot be
    /// done at all (a bad topic name, a topic over its size limit, the lock
    /// or the disk); a refused or restated note is an answer, not an error.
    pub fn write_note(
        &self,
        note: &Note<'_>,
        rules: Option<&RuleSet>,
    ) -> Result<NoteWritten, MemoryError> {
        let file = self.file_of(note.topic)?;
        let text = note.text.trim();
        let scope = note.scope;
        let given = nfc(note.topic).trim().to_string();
        if text.is_empty() {
            return Err(MemoryError::Empty);
        }
        if text.len() >= MAX_MEMORY_TOPIC_BYTES {
            return Err(too_large(note, text.len() + 1));
        }
        let mut written = NoteWritten::refused(scope, given.clone(), file.clone());
        if let Some(found) = SecretRules::shipped().find(text) {
            written.credential = Some(found);
            return Ok(written);
        }
        let dir = self.dir(scope);
        std::fs::create_dir_all(dir).map_err(|e| io_err(dir, e))?;
        let _lock =
            Lock::acquire(dir, "memory", MEMORY_LOCK_TIMEOUT).map_err(|e| io_err(dir, e))?;
        fs::remove_stray_temps(dir);
        let mut topics = TopicList::parse(&self.read_index(scope)?);
        if let Some(name) = topics.name_of(&file) {
            written.topic = name.to_string();
            if name != given {
                written.respelled = Some(given.clone());
            }
        }
        let index = MemoryIndex::open(self);
        let parts = RuleParts::of(rules);
        let df = df_fn(&index, &parts);
        let w = weights(&index, &parts, &df);
        let profile = Profile::of(text);
        if let Some((rule, text, part)) = parts.restated(&profile, &w) {
            if hygiene::adds_nothing(&profile, part) {
                written.action = NoteAction::Restated;
                written.rule = Some(rule.clone());
                return Ok(written);
            }
            written.possible_restatement = Some(PossibleRestatement {
                rule: rule.clone(),
                text: text.clone(),
                shared: profile.shared_subject(part, &w),
            });
        }
        let near = index.search(
            &Query {
                text,
                files: &[],
                limit: COMPARED_ENTRIES,
            },
            &|_| false,
        );
        let now = SystemTime::now();
        if !note.replace {
            let dup = near
                .iter()
                .filter(|h| h.scope == scope)
                .find(|h| hygiene::is_duplicate(&profile, &Profile::of(&h.text), &w));
            if let Some(hit) = dup {
                return self.fold_into(note, hit, now, written);
            }
        }
        let superseded = if note.replace {
            None
        } else {
            superseded(&profile, scope, &near, &index, &w)
        };
        let found = conflicts(&profile, &near, &parts, &w)
            .into_iter()
            .filter(|(c, _)| !superseded.is_some_and(|h| c.with.is_entry(h.scope, &h.id)));
        for (c, flag) in found {
            if flag {
                written.conflicts.push(c);
            } else {
                written.possible_conflicts.push(c);
            }
        }
        let new = new_entry(note, text, &index, now);
        self.store_entry(note, &new, &file, &given, &mut topics)?;
        if let Some(old) = superseded {
            self.change_entry(scope, &old.file, &old.id, |e| {
                e.meta.superseded_by = Some(new.meta.id.clone());
            })?;
            written.supersedes.push(old.id.clone());
        }
        written.action = if note.replace {
            NoteAction::Replaced
        } else {
            NoteAction::Stored
        };
        written.id = Some(new.meta.id);
        Ok(written)
    }

    /// Folds a note into the entry `hit` it duplicates: the entry's time
    /// refreshed, its `paths` and `topics` joined. The caller holds the lock.
    fn fold_into(
        &self,
        note: &Note<'_>,
        hit: &MemoryHit,
        now: SystemTime,
        mut written: NoteWritten,
    ) -> Result<NoteWritten, MemoryError> {
        let (id, dup_file, dup_topic) = (hit.id.clone(), hit.file.clone(), hit.topic.clone());
        self.change_entry(note.scope, &dup_file, &id, |e| {
            e.meta.updated = Some(entry::rfc3339(now));
            join(&mut e.meta.paths, &note.paths);
            join(&mut e.meta.topics, &note.topics);
            e.meta.pinned |= note.pinned;
        })?;
        written.action = NoteAction::Folded;
        written.id = Some(id);
        written.file = dup_file;
        written.topic = dup_topic;
        written.respelled = None;
        Ok(written)
    }

    /// Adds the entry `new` to the topic file `file` (or makes it the only
    /// one), its line in `MEMORY.md` written first. The caller holds the lock.
    fn store_entry(
        &self,
        note: &Note<'_>,
        new: &Entry,
        file: &str,
        given: &str,
        topics: &mut TopicList,
    ) -> Result<(), MemoryError> {
        let scope = note.scope;
        let dir = self.dir(scope);
        let path = dir.join(file);
        let mut entries = if note.replace {
            Vec::new()
        } else {
            self.read_entries(&path, file)?
        };
        entries.push(new.clone());
        let body = entry::render(&entries);
        if body.len() > MAX_MEMORY_TOPIC_BYTES {
            return Err(too_large(note, body.len()));
        }
        // The index line first: a topic file is never without its line.
        let index_path = dir.join(INDEX_FILE);
        let before = topics.render();
        topics.insert(given, file);
        let after = topics.render();
        if after != before || !index_path.exists() {
            fs::replace(&index_path, after.as_bytes()).map_err(|e| io_err(&index_path, e))?;
        }
        fs::replace(&path, body.as_bytes()).map_err(|e| io_err(&path, e))?;
        MemoryIndex::after_write(self, scope, file, &body);
        Ok(())
    }

    /// Where the entry `id` (or a prefix only one id has) is: its scope,
    /// topic file, topic and full id, from the search index.
    fn locate(&self, id: &str) -> Result<(MemoryScope, String, String, String), MemoryError> {
        let index = MemoryIndex::open(self);
        match index.find(id) {
            Ok(e) => Ok((
                e.scope(),
                e.file().to_string(),
                e.topic().to_string(),
                e.id().to_string(),
            )),
            Err(candidates) => Err(MemoryError::unknown_entry(id, candidates)),
        }
    }

    /// Removes an entry (by id, or a prefix only one id has) from its topic;
    /// a topic left empty is removed with its index line.
    pub fn forget(&self, id: &str) -> Result<Forgotten, MemoryError> {
        let (scope, file, topic, id) = self.locate(id)?;
        let dir = self.dir(scope);
        let _lock =
            Lock::acquire(dir, "memory", MEMORY_LOCK_TIMEOUT).map_err(|e| io_err(dir, e))?;
        let path = dir.join(&file);
        let mut entries = self.read_entries(&path, &file)?;
        let Some(at) = entries.iter().position(|e| e.meta.id == id) else {
            return Err(MemoryError::unknown_entry(&id, Vec::new()));
        };
        let entry = entries.remove(at);
        if entries.is_empty() {
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(io_err(&path, e)),
            }
            let index_path = dir.join(INDEX_FILE);
            let mut topics = TopicList::parse(&self.read_index(scope)?);
            topics.remove(&file);
            fs::replace(&index_path, topics.render().as_bytes())
                .map_err(|e| io_err(&index_path, e))?;
            MemoryIndex::open(self);
        } else {
            let body = entry::render(&entries);
            fs::replace(&path, body.as_bytes()).map_err(|e| io_err(&path, e))?;
            MemoryIndex::after_write(self, scope, &file, &body);
        }
        Ok(Forgotten {
            scope,
            topic,
            file,
            entry,
        })
    }

    /// Records an agent's proposal to turn an entry into a rule (a person
    /// accepts it with `wave-rules memory promote`). Returns the entry's
    /// scope, topic and full id.
    pub fn propose(
        &self,
        id: &str,
        proposal: Proposal,
    ) -> Result<(MemoryScope, String, String), MemoryError> {
        let (scope, file, topic, id) = self.locate(id)?;
        let dir = self.dir(scope);
        let _lock =
            Lock::acquire(dir, "memory", MEMORY_LOCK_TIMEOUT).map_err(|e| io_err(dir, e))?;
        let mut proposal = proposal;
        proposal.at = Some(entry::rfc3339(SystemTime::now()));
        self.change_entry(scope, &file, &id, |e| e.meta.proposed = Some(proposal))?;
        Ok((scope, topic, id))
    }

    /// The entries of a topic file (through no link; at most a topic's size).
    pub fn entries(&self, scope: MemoryScope, topic: &str) -> Result<Vec<Entry>, MemoryError> {
        let file = self.file_of(topic)?;
        let path = self.dir(scope).join(&file);
        match fs::read_limited(&path, MAX_MEMORY_TOPIC_BYTES) {
            Ok(Some(text)) => Ok(entry::parse(&file, &text)),
            Ok(None) => Err(MemoryError::UnknownTopic {
                scope,
                topic: topic.to_string(),
            }),
            Err(e) => Err(io_err(&path, e)),
        }
    }

    /// Changes one entry of a topic file in place; the caller holds the lock.
    fn change_entry(
        &self,
        scope: MemoryScope,
        file: &str,
        id: &str,
        change: impl FnOnce(&mut Entry),
    ) -> Result<(), MemoryError> {
        let path = self.dir(scope).join(file);
        let mut entries = self.read_entries(&path, file)?;
        let Some(e) = entries.iter_mut().find(|e| e.meta.id == id) else {
            return Err(MemoryError::unknown_entry(id, Vec::new()));
        };
        change(e);
        let body = entry::render(&entries);
        if body.len() > MAX_MEMORY_TOPIC_BYTES {
            return Err(MemoryError::TooLarge {
                scope,
                topic: file.to_string(),
                size: body.len(),
            });
        }
        fs::replace(&path, body.as_bytes()).map_err(|e| io_err(&path, e))?;
        MemoryIndex::after_write(self, scope, file, &body);
        Ok(())
    }

    /// A topic file's entries, those without a comment given their created
    /// time (the file's mtime) so that the next write keeps it.
    fn read_entries(&self, path: &Path, file: &str) -> Result<Vec<Entry>, MemoryError> {
        let text = match fs::read_limited(path, MAX_MEMORY_TOPIC_BYTES + 1) {
            Ok(t) => t.unwrap_or_default(),
            Err(e) => return Err(io_err(path, e)),
        };
        let mut entries = entry::parse(file, &text);
        if entries.iter().any(|e| !e.marked) {
            let mtime = std::fs::metadata(path)
                .and_then(|m| m.modified())
                .map(entry::rfc3339)
                .ok();
            for e in entries.iter_mut().filter(|e| !e.marked) {
                e.meta.created = mtime.clone();
                e.marked = true;
            }
        }
        Ok(entries)
    }
}

/// The entries among `near`, then the rules' parts, a note conflicts with,
/// each with whether it is flagged ([`hygiene::flagged`]) or possible.
fn conflicts(
    profile: &Profile,
    near: &[MemoryHit],
    parts: &RuleParts,
    w: &Weights<'_>,
) -> Vec<(NoteConflict, bool)> {
    let found = |with: &dyn Fn() -> Other, text: &str, other: &Profile| {
        let clash = hygiene::conflict(profile, other, w)?;
        let flag = hygiene::flagged(profile, other, &clash, w);
        let conflict = NoteConflict {
            with: with(),
            clash,
            text: text.to_string(),
            shared: profile.shared_subject(other, w),
        };
        Some((conflict, flag))
    };
    let mut out: Vec<(NoteConflict, bool)> = near
        .iter()
        .filter_map(|h| {
            let with = || Other::Entry {
                scope: h.scope,
                id: h.id.clone(),
                topic: h.topic.clone(),
            };
            found(&with, &h.text, &Profile::of(&h.text))
        })
        .collect();
    out.extend(
        parts
            .parts
            .iter()
            .filter_map(|(rule, part, p)| found(&|| Other::Rule { id: rule.clone() }, part, p)),
    );
    out
}

/// The entry of `scope` among `near` the note supersedes: one whose value
/// the note names as the old one, else the one whose subject is nearest, among those no other entry superseded yet (a chain
/// moves on from its newest).
fn superseded<'h>(
    profile: &Profile,
    scope: MemoryScope,
    near: &'h [MemoryHit],
    index: &MemoryIndex,
    w: &Weights<'_>,
) -> Option<&'h MemoryHit> {
    near.iter()
        .filter(|h| h.scope == scope)
        .filter_map(|h| {
            let old = Profile::of(&h.text);
            hygiene::supersedes(profile, &old, w)?;
            let named = profile.names_old_of(&old);
            Some((
                (
                    named,
                    hygiene::similarity(&profile.subject, &old.subject, w),
                ),
                h,
            ))
        })
        .filter(|(_, h)| {
            !h.superseded_by
                .as_deref()
                .is_some_and(|n| index.find_exact(n))
        })
        .max_by(|a, b| a.0 .0.cmp(&b.0 .0).then(a.0 .1.total_cmp(&b.0 .1)))
        .map(|(_, h)| h)
}

/// The entry a note becomes, with an id no entry has.
fn new_entry(note: &Note<'_>, text: &str, index: &MemoryIndex, now: SystemTime) -> Entry {
    let mut new = Entry::new(text, now);
    while index.find_exact(&new.meta.id) {
        new = Entry::new(text, now);
    }
    new.meta.paths = note.paths.clone();
    new.meta.topics = note.topics.clone();
    new.meta.pinned = note.pinned;
    new.meta.agent = note.agent.clone();
    new.meta.session = note.session.clone();
    new
}

/// A note's topic would be over its size limit.
fn too_large(note: &Note<'_>, size: usize) -> MemoryError {
    MemoryError::TooLarge {
        scope: note.scope,
        topic: note.topic.to_string(),
        size,
    }
}

fn join(into: &mut Vec<String>, more: &[String]) {
    for m in more {
        if !into.contains(m) {
            into.push(m.clone());
        }
    }
}

fn io_err(path: &Path, source: std::io::Error) -> MemoryError {
    MemoryError::Io {
        path: path.to_path_buf(),
        source,
    }
}
