//! The keys of a `.wave/rules` file read into a rule's [`Metadata`]: each
//! key by its reader, then the checks that need the whole rule (enforcement,
//! misspelled trigger keys, triggers an activation mode ignores).

use super::*;

/// The `.wave/rules` keys read so far, in file order.
struct WaveKeys<'e> {
    meta: Metadata,
    patterns: Vec<RulePattern>,
    /// False once a key makes the rule unusable (it is then not loaded).
    usable: bool,
    /// Misspelled trigger keys: (key as written, the key it is a typo of,
    /// where).
    typos: Vec<(&'e str, &'static str, At)>,
}

impl WaveKeys<'_> {
    /// The value a reader gave; an unusable one (`Err`, reported by the
    /// reader) makes the rule unusable.
    fn kept<T>(&mut self, read: Result<Option<T>, ()>) -> Option<T> {
        read.unwrap_or_else(|()| {
            self.usable = false;
            None
        })
    }
}

impl<'a> RuleReader<'a> {
    /// A rule's metadata and compiled patterns from its frontmatter
    /// entries; `None` when the rule must not be loaded.
    pub(super) fn metadata(&mut self, entries: &[Entry]) -> Option<(Metadata, Vec<RulePattern>)> {
        let mut keys = WaveKeys {
            meta: Metadata::default(),
            patterns: Vec::new(),
            usable: true,
            typos: Vec::new(),
        };
        for (key, value, at) in entries {
            self.wave_key(&mut keys, key, value, *at);
        }
        self.check_enforcement(&keys.meta);
        self.report_typos(&keys.meta, keys.typos);
        if keys.meta.activation != Activation::Auto {
            self.check_not_automatic(&keys.meta);
        }
        keys.usable.then_some((keys.meta, keys.patterns))
    }

    /// Reads one key into `keys`.
    fn wave_key<'e>(&mut self, keys: &mut WaveKeys<'e>, key: &'e str, value: &Value, at: At) {
        match key {
            "paths" => {
                if let Some(list) = keys.kept(self.string_list(key, value, at)) {
                    keys.patterns = self.compile_patterns(&list);
                    keys.meta.paths = Some(list);
                }
            }
            "topics" => {
                if let Some(list) = keys.kept(self.topic_list(key, value, at)) {
                    keys.meta.topics = Some(list);
                }
            }
            "skills" => {
                if let Some(names) = keys.kept(self.skill_list(key, value, at)) {
                    keys.meta.skills = Some(names);
                }
            }
            "priority" => keys.meta.priority = self.priority(value, at),
            "remind" => {
                if let Some(remind) = self.remind(value, at) {
                    keys.meta.remind = Some(remind);
                }
            }
            "description" => keys.meta.description = self.description(value, at),
            "enforce" => keys.meta.enforce = self.enforce(value, at),
            "commands" => match self.commands(value, at) {
                Ok(list) => keys.meta.commands = list,
                Err(()) => keys.usable = false,
            },
            "summary" => keys.meta.summary = self.summary(value, at),
            "activation" => {
                if let Some(activation) = keys.kept(self.activation(value, at)) {
                    keys.meta.activation = activation;
                }
            }
            // The rule's eval scenarios: `wave-rules eval` reads them.
            "evals" => {}
            _ => {
                if let Some(meant) = self.unknown_key(key, at) {
                    keys.typos.push((key, meant, at));
                }
            }
        }
    }

    /// `topics`: a string list within the limits of count and length.
    fn topic_list(&mut self, key: &str, value: &Value, at: At) -> Result<Option<Vec<String>>, ()> {
        match self.string_list(key, value, at)? {
            Some(list) if list.len() > MAX_TOPICS_PER_RULE => {
                self.report(Severity::Error, Code::Limit, at, format!("'topics' has {} topics, over the limit of {MAX_TOPICS_PER_RULE}; the rule is not loaded", list.len()));
                Err(())
            }
            Some(list) if list.iter().any(|t| t.chars().count() > MAX_TOPIC_CHARS) => {
                self.report(Severity::Error, Code::Limit, at, format!("a topic is longer than the limit of {MAX_TOPIC_CHARS} characters; the rule is not loaded"));
                Err(())
            }
            list => Ok(list),
        }
    }

    /// `skills`: a string list of skill names.
    fn skill_list(&mut self, key: &str, value: &Value, at: At) -> Result<Option<Vec<String>>, ()> {
        match self.string_list(key, value, at)? {
            Some(list) => self.skill_names(&list, at).map(Some).ok_or(()),
            None => Ok(None),
        }
    }

    /// `remind: once | every-turn`; anything else is reported (`None`).
    fn remind(&mut self, value: &Value, at: At) -> Option<Remind> {
        match value.as_text().as_deref().map(str::trim) {
            Some("every-turn") => Some(Remind::EveryTurn),
            Some("once") => Some(Remind::Once),
            _ => {
                self.report(
                    Severity::Warning,
                    Code::InvalidField,
                    at,
                    format!(
                        "'remind' is 'once' or 'every-turn', not {}; using 'once'",
                        describe(value)
                    ),
                );
                None
            }
        }
    }

    /// `activation: on-request | manual | auto` (`auto`: `Ok(None)`, the
    /// default); anything else is reported and makes the rule unusable.
    fn activation(&mut self, value: &Value, at: At) -> Result<Option<Activation>, ()> {
        match value.as_text().as_deref().map(str::trim) {
            Some("on-request") => Ok(Some(Activation::OnRequest)),
            Some("manual") => Ok(Some(Activation::Manual)),
            Some("auto") => Ok(None),
            _ => {
                self.report(
                    Severity::Error,
                    Code::InvalidField,
                    at,
                    format!(
                        "'activation' is 'on-request' or 'manual' (or absent), not {}; the rule is not loaded",
                        describe(value)
                    ),
                );
                Err(())
            }
        }
    }

    /// Reports each misspelled trigger key with what the rule became
    /// without it.
    fn report_typos(&mut self, meta: &Metadata, typos: Vec<(&str, &'static str, At)>) {
        for (key, meant, at) in typos {
            let consequence = typo_consequence(meta, meant);
            self.report(
                Severity::Error,
                Code::MisspelledKey,
                at,
                format!("unknown key '{key}': did you mean '{meant}'? '{key}' is ignored, so {consequence}"),
            );
            self.fix_last(key, meant);
        }
    }

    /// A rule on request or manual: its automatic triggers do nothing, and
    /// it needs a description.
    fn check_not_automatic(&mut self, meta: &Metadata) {
        for (key, present) in [
            ("paths", meta.paths.is_some()),
            ("topics", meta.topics.is_some()),
            ("skills", meta.skills.is_some()),
        ] {
            if present {
                let at = self.key_location(key);
                self.report(
                    Severity::Warning,
                    Code::InvalidField,
                    at,
                    format!(
                        "'{key}' does nothing in a rule with 'activation: {}'; remove one of them",
                        meta.activation.as_str()
                    ),
                );
            }
        }
        let at = self.key_location("activation");
        self.needs_description(Format::Wave, "'activation: on-request'", meta, at);
    }
}

/// What a misspelled trigger key does to the rule, as parsed without it.
fn typo_consequence(meta: &Metadata, meant: &str) -> String {
    let present = match meant {
        "paths" => meta.paths.is_some(),
        "topics" => meta.topics.is_some(),
        "skills" => meta.skills.is_some(),
        "enforce" => meta.enforce.is_some(),
        "commands" => meta.commands.is_some(),
        _ => meta.activation != Activation::Auto,
    };
    if present {
        return format!("only the '{meant}' written correctly counts");
    }
    match meant {
        "enforce" => return "this rule refuses nothing".to_string(),
        "commands" if meta.enforce.is_some() => return "no command is checked".to_string(),
        _ => {}
    }
    if meta.is_unconditional() {
        return "this rule is now always active".to_string();
    }
    match meta.activation {
        Activation::OnRequest | Activation::Manual => {
            format!("this rule is {} only", meta.activation.as_str())
        }
        Activation::Auto => format!(
            "this rule now fires only on its {}",
            meta.activation_kind().replace('+', " and ")
        ),
    }
}
