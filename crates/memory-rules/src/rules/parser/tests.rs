use super::*;

fn parse(text: &str) -> Outcome {
    parse_rule(Scope::Project, "r.md", Path::new("/x/r.md"), text)
}

fn codes(o: &Outcome) -> Vec<(Severity, Code, Option<u32>)> {
    o.diagnostics
        .iter()
        .map(|d| (d.severity, d.code, d.line))
        .collect()
}

#[test]
fn full_rule() {
    let o = parse("---\npaths:\n  - \"src/**/*.ts\"\n  - '!**/*.test.ts'\npriority: \"7\"\ntopics: customer, SQL\ndescription: DB rules\n---\n\n  Body text.\n\n");
    let r = o.rule.clone().unwrap();
    assert_eq!(&*r.rule.content, "Body text.");
    assert_eq!(
        r.rule.metadata.paths.as_deref(),
        Some(&["src/**/*.ts".to_string(), "!**/*.test.ts".to_string()][..])
    );
    assert_eq!(r.rule.metadata.priority, Some(7));
    assert_eq!(
        r.rule.metadata.topics.as_deref(),
        Some(&["customer".to_string(), "SQL".to_string()][..])
    );
    assert_eq!(r.rule.metadata.description.as_deref(), Some("DB rules"));
    assert_eq!(r.patterns.len(), 2);
    assert!(r.patterns[1].compiled.negated);
    assert_eq!(codes(&o), vec![(Severity::Info, Code::SplitList, Some(6))]);
}

#[test]
fn no_frontmatter_is_all_body() {
    let o = parse("# Title\n\nText\n");
    let r = o.rule.as_ref().unwrap().rule.clone();
    assert_eq!(&*r.content, "# Title\n\nText");
    assert!(r.metadata.is_unconditional());
    assert!(o.diagnostics.is_empty());
}

#[test]
fn formatter_escaped_globs_are_recognised() {
    for (written, meant) in [
        ("docs/\\*_/_.{md,mdx}", Some("docs/**/*.{md,mdx}")),
        ("\\*_/_.snap", Some("**/*.snap")),
        ("src/\\*\\*/\\*.ts", Some("src/**/*.ts")),
        ("\\*.md", Some("*.md")),
        ("docs/**/*.md", None),
        ("file\\[1\\].md", None),
    ] {
        assert_eq!(
            crate::matchers::glob_check::formatter_escaped(written).as_deref(),
            meant,
            "{written}"
        );
    }
}

#[test]
fn comma_split_respects_braces() {
    assert_eq!(
        split_commas("*.{ts,tsx}, docs/**"),
        vec!["*.{ts,tsx}", "docs/**"]
    );
    assert_eq!(split_commas("a\\,b,c"), vec!["a\\,b", "c"]);
    assert_eq!(split_commas("[,]x,y"), vec!["[,]x", "y"]);
    let o = parse("---\npaths: \"*.py, **/*.py\"\n---\nx");
    assert_eq!(
        o.rule
            .as_ref()
            .unwrap()
            .rule
            .metadata
            .paths
            .clone()
            .unwrap(),
        vec!["*.py", "**/*.py"]
    );
    // List items are taken as written.
    let o = parse("---\npaths: ['a\\{b,c\\}.txt']\ntopics: ['x, y']\n---\nx");
    let m = &o.rule.as_ref().unwrap().rule.metadata;
    assert_eq!(m.paths.clone().unwrap(), vec!["a\\{b,c\\}.txt"]);
    assert_eq!(m.topics.clone().unwrap(), vec!["x, y"]);
    assert!(o.diagnostics.is_empty());
}

#[test]
fn unquoted_glob_is_understood_with_warning() {
    let o = parse("---\npaths: *.ts\n---\nx");
    assert_eq!(
        o.rule
            .as_ref()
            .unwrap()
            .rule
            .metadata
            .paths
            .clone()
            .unwrap(),
        vec!["*.ts"]
    );
    assert_eq!(
        codes(&o),
        vec![(Severity::Warning, Code::UnquotedValue, Some(2))]
    );
    assert_eq!(o.diagnostics[0].column, Some(8));
}

#[test]
fn broken_yaml_is_an_error_with_location_and_no_rule() {
    let o = parse("---\ndescription: ok\npaths: [a, b\n---\nx");
    assert!(o.rule.is_none());
    let d = &o.diagnostics[0];
    assert_eq!((d.severity, d.code), (Severity::Error, Code::YamlSyntax));
    assert!(d.line.unwrap() >= 3, "{d}");
    assert!(d.column.is_some());
}

#[test]
fn unclosed_frontmatter_is_an_error() {
    let o = parse("---\npaths: a\nbody");
    assert!(o.rule.is_none());
    assert_eq!(
        codes(&o),
        vec![(Severity::Error, Code::UnclosedFrontmatter, Some(1))]
    );
}

#[test]
fn wrong_trigger_types_do_not_load() {
    for text in [
        "---\npaths: {a: 1}\n---\nx",
        "---\npaths: true\n---\nx",
        "---\ntopics: [[a]]\n---\nx",
    ] {
        let o = parse(text);
        assert!(o.rule.is_none(), "{text}");
        assert_eq!(o.diagnostics[0].code, Code::InvalidField, "{text}");
    }
}

#[test]
fn skills_field_is_a_name_or_a_list_compared_lowercased() {
    let o = parse("---\nskills: [DB-Work, /deploy, db-work]\n---\nx");
    let meta = &o.rule.as_ref().unwrap().rule.metadata;
    assert_eq!(
        meta.skills.as_deref(),
        Some(&["db-work".to_string(), "deploy".to_string()][..])
    );
    assert!(!meta.is_unconditional());
    assert_eq!(meta.activation_kind(), "skills");
    assert!(o.diagnostics.is_empty(), "{:?}", o.diagnostics);
    let o = parse("---\nskills: notes, tools:pdf\ntopics: x\n---\nx");
    let meta = &o.rule.as_ref().unwrap().rule.metadata;
    assert_eq!(meta.skills.clone().unwrap(), ["notes", "tools:pdf"]);
    assert_eq!(meta.activation_kind(), "topics+skills");
}

#[test]
fn a_bad_skills_value_is_an_error_at_its_line_and_the_rule_does_not_load() {
    for (text, line, says) in [
        (
            "---\ndescription: d\nskills: [ok, 'two words']\n---\nx",
            3,
            "'skills' entry \"two words\" is not a skill name: a skill name has no spaces",
        ),
        (
            "---\nskills: {a: 1}\n---\nx",
            2,
            "'skills' must be a string or a list of strings",
        ),
        (
            "---\nskills: [[a]]\n---\nx",
            2,
            "'skills' items must be strings",
        ),
    ] {
        let o = parse(text);
        assert!(o.rule.is_none(), "{text}");
        let d = &o.diagnostics[0];
        assert_eq!(
            (d.severity, d.code, d.line),
            (Severity::Error, Code::InvalidField, Some(line)),
            "{text}"
        );
        assert!(d.message.starts_with(says), "{}", d.message);
    }
    let long = format!(
        "---\nskills: {}\n---\nx",
        "s".repeat(crate::base::limits::MAX_SKILL_NAME_CHARS + 1)
    );
    let o = parse(&long);
    assert!(o.rule.is_none());
    assert!(
        o.diagnostics[0]
            .message
            .contains("longer than the limit of 128"),
        "{:?}",
        o.diagnostics
    );
    // Empty: a warning, the rule is always active.
    let o = parse("---\nskills: []\n---\nx");
    assert!(o.rule.unwrap().rule.metadata.is_unconditional());
    assert_eq!(o.diagnostics[0].code, Code::EmptyTrigger);
    // Beside `activation`: does nothing, said so.
    let o = parse("---\nactivation: manual\nskills: x\n---\nx");
    assert!(
        o.diagnostics.iter().any(|d| d
            .message
            .starts_with("'skills' does nothing in a rule with 'activation: manual'")),
        "{:?}",
        o.diagnostics
    );
}

#[test]
fn remind_field() {
    let o = parse("---\nremind: every-turn\ntopics: x\n---\nx");
    assert_eq!(
        o.rule.as_ref().unwrap().rule.metadata.remind,
        Some(Remind::EveryTurn)
    );
    assert!(o.diagnostics.is_empty());
    let o = parse("---\nremind: sometimes\n---\nx");
    assert_eq!(o.rule.as_ref().unwrap().rule.metadata.remind, None);
    assert_eq!(
        codes(&o),
        vec![(Severity::Warning, Code::InvalidField, Some(2))]
    );
}

#[test]
fn bad_priority_loads_with_zero() {
    let o = parse("---\npriority: high\n---\nx");
    assert_eq!(o.rule.as_ref().unwrap().rule.priority(), 0);
    assert_eq!(
        codes(&o),
        vec![(Severity::Error, Code::InvalidField, Some(2))]
    );
}

#[test]
fn foreign_and_unknown_keys() {
    let o = parse("---\nglobs: src/**\nalwaysApply: false\napplyTo: '**'\nfileMatchPattern: x\nname: y\n---\nx");
    assert!(o.rule.as_ref().unwrap().rule.metadata.is_unconditional());
    let msgs: Vec<String> = o
        .diagnostics
        .iter()
        .map(|d| format!("{}:{}:{}", d.line.unwrap(), d.code, d.message))
        .collect();
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("2:foreign-key:'globs' is Cursor's key: write 'paths'")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("3:foreign-key:'alwaysApply'")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("4:foreign-key:'applyTo'")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("5:foreign-key:'fileMatchPattern'")),
        "{msgs:?}"
    );
    assert!(
        msgs.iter()
            .any(|m| m.starts_with("6:unknown-key:unknown key 'name'")),
        "{msgs:?}"
    );
}

#[test]
fn typo_of_a_trigger_key_is_an_error_naming_key_and_consequence() {
    for (text, key, meant, consequence) in [
        (
            "---\npath: src/**\n---\nx",
            "path",
            "paths",
            "this rule is now always active",
        ),
        (
            "---\ntopic: sql\n---\nx",
            "topic",
            "topics",
            "this rule is now always active",
        ),
        (
            "---\nPaths: src/**\ntopics: [db]\n---\nx",
            "Paths",
            "paths",
            "this rule now fires only on its topics",
        ),
        (
            "---\nskill: db-work\n---\nx",
            "skill",
            "skills",
            "this rule is now always active",
        ),
        (
            "---\nSkils: [db-work]\npaths: src/**\n---\nx",
            "Skils",
            "skills",
            "this rule now fires only on its paths",
        ),
    ] {
        let o = parse(text);
        let typo: Vec<_> = o
            .diagnostics
            .iter()
            .filter(|d| d.code == Code::MisspelledKey)
            .collect();
        assert_eq!(typo.len(), 1, "{text}: {:?}", o.diagnostics);
        assert_eq!(typo[0].severity, Severity::Error);
        assert_eq!(typo[0].line, Some(2));
        assert!(
            typo[0]
                .message
                .contains(&format!("'{key}': did you mean '{meant}'?")),
            "{}",
            typo[0].message
        );
        assert!(
            typo[0].message.ends_with(consequence),
            "{}",
            typo[0].message
        );
    }
    // A close typo of another key is a warning with the suggestion.
    let o = parse("---\npriorty: 2\n---\nx");
    assert_eq!(
        codes(&o),
        vec![(Severity::Warning, Code::UnknownKey, Some(2))]
    );
    assert!(o.diagnostics[0]
        .message
        .contains("did you mean 'priority'?"));
}

#[test]
fn unclosed_brace_or_bracket_warns() {
    let o = parse("---\npaths: ['src/{a,b', 'x/[ab', 'ok/{a,b}', 'lit/\\{']\n---\nx");
    let msgs: Vec<&str> = o.diagnostics.iter().map(|d| d.message.as_str()).collect();
    assert_eq!(msgs.len(), 2, "{msgs:?}");
    assert!(
        msgs[0].starts_with("pattern 'src/{a,b': its '{' is never closed"),
        "{msgs:?}"
    );
    assert!(
        msgs[1].starts_with("pattern 'x/[ab': its '[' is never closed"),
        "{msgs:?}"
    );
}

#[test]
fn activation_key_makes_on_request_and_manual_rules() {
    let o = parse("---\nactivation: on-request\ndescription: SQL style\n---\nx");
    assert!(o.diagnostics.is_empty(), "{:?}", o.diagnostics);
    assert_eq!(
        o.rule.unwrap().rule.metadata.activation,
        Activation::OnRequest
    );
    let o = parse("---\nactivation: manual\n---\nx");
    assert!(o.diagnostics.is_empty(), "{:?}", o.diagnostics);
    assert_eq!(o.rule.unwrap().rule.metadata.activation, Activation::Manual);
    let o = parse("---\nactivation: on-request\n---\nx");
    assert_eq!(
        codes(&o),
        vec![(Severity::Warning, Code::MissingDescription, Some(2))]
    );
    let o = parse("---\nactivation: sometimes\n---\nx");
    assert!(o.rule.is_none());
    assert_eq!(
        codes(&o),
        vec![(Severity::Error, Code::InvalidField, Some(2))]
    );
}

#[test]
fn unsupported_glob_is_error_but_rule_stays_conditional() {
    let o = parse("---\npaths:\n  - '+(a|b).ts'\n  - src/**\n---\nx");
    let r = o.rule.clone().unwrap();
    assert_eq!(r.patterns.len(), 1);
    assert_eq!(r.patterns[0].index, 1);
    assert!(!r.rule.metadata.is_unconditional());
    assert_eq!(
        codes(&o),
        vec![(Severity::Error, Code::UnsupportedGlob, Some(3))]
    );
    assert_eq!(o.diagnostics[0].column, Some(6));
}

#[test]
fn empty_trigger_and_body() {
    let o = parse("---\npaths: []\ntopics:\n---\n");
    assert!(o.rule.as_ref().unwrap().rule.metadata.is_unconditional());
    assert_eq!(
        codes(&o),
        vec![
            (Severity::Warning, Code::EmptyTrigger, Some(2)),
            (Severity::Warning, Code::EmptyTrigger, Some(3)),
            (Severity::Warning, Code::EmptyBody, Some(5))
        ]
    );
}

#[test]
fn unmatchable_patterns_warn() {
    let o = parse("---\npaths: ['/abs/**', '../x/*.ts', '!src/**']\n---\nx");
    assert_eq!(
        o.diagnostics
            .iter()
            .filter(|d| d.code == Code::UnmatchableGlob)
            .count(),
        2
    );
    let o = parse("---\npaths: '!src/**'\n---\nx");
    assert_eq!(
        codes(&o),
        vec![(Severity::Warning, Code::UnmatchableGlob, Some(2))]
    );
}

#[test]
fn a_rule_has_a_sole_trigger_only_when_paths_topics_or_nothing_alone_activate_it() {
    use crate::rules::rule::Trigger;
    let trigger = |front: &str| {
        let text = format!("---\n{front}\n---\nBody");
        parse(&text)
            .rule
            .expect("a rule")
            .rule
            .metadata
            .sole_trigger()
    };
    assert_eq!(trigger("paths: src/**"), Some(Trigger::Paths));
    assert_eq!(trigger("topics: [billing]"), Some(Trigger::Topics));
    assert_eq!(trigger("paths: src/**\nremind: once"), Some(Trigger::Paths));
    assert_eq!(trigger("description: always on"), Some(Trigger::Always));
    for other in [
        "description: always\nremind: every-turn",
        "paths: src/**\ntopics: [billing]",
        "paths: src/**\nremind: every-turn",
        "paths: src/**\nenforce: block",
        "topics: [billing]\nactivation: on-request",
        "topics: [billing]\nskills: [deploy]",
        "paths: src/**\nactivation: manual",
    ] {
        assert_eq!(trigger(other), None, "{other}");
    }
}
