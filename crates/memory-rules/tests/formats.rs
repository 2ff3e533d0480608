//! Every agent's rule files on real temp trees, read with the meaning their
//! own tool gives them: one table per format (each activation row, each key
//! shape: string, list, comma-joined string), the lints, and a rule of every
//! format side by side in one project.

mod common;
use common::Tree;
use memory_rules::sources::Config;
use memory_rules::{Activation, Code, Format, Loaded, Severity};

fn load(t: &Tree, formats: &[Format]) -> Loaded {
    std::fs::create_dir_all(t.workdir()).unwrap();
    std::fs::create_dir_all(t.home()).unwrap();
    memory_rules::load(&Config::named(t.workdir(), t.home(), formats))
}

fn active(l: &Loaded, files: &[&str], prompt: Option<&str>) -> Vec<String> {
    common::active(l, files, prompt)
}

fn available(l: &Loaded, files: &[&str], prompt: Option<&str>) -> Vec<String> {
    let on = l.rules.active(files, prompt);
    l.rules
        .available(&on)
        .into_iter()
        .map(|i| l.rules.rules()[i].id.clone())
        .collect()
}

fn activation(l: &Loaded, id: &str) -> Activation {
    l.rules
        .find(id)
        .unwrap_or_else(|| panic!("no rule {id}: {:?}", common::ids(l)))
        .metadata
        .activation
}

/// `code:file:line` of each diagnostic of at least `severity`.
fn diags(l: &Loaded, severity: Severity) -> Vec<String> {
    l.diagnostics
        .iter()
        .filter(|d| d.severity <= severity)
        .map(|d| {
            let file = std::path::Path::new(&d.file_path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            format!(
                "{}:{file}:{}",
                d.code,
                d.line.map_or("-".to_string(), |l| l.to_string())
            )
        })
        .collect()
}

fn message(l: &Loaded, code: Code) -> String {
    l.diagnostics
        .iter()
        .find(|d| d.code == code)
        .map(|d| d.message.clone())
        .unwrap_or_else(|| panic!("no {code}: {:?}", l.diagnostics))
}

#[test]
fn claude_code_rules() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(w.join(".claude/rules/always.md"), "Always.");
    t.write(
        w.join(".claude/rules/string.md"),
        "---\npaths: src/**/*.ts\n---\nString.",
    );
    t.write(
        w.join(".claude/rules/deep/list.md"),
        "---\npaths:\n  - docs/**\n  - '*.md'\n---\nList.",
    );
    t.write(
        w.join(".claude/rules/braces.md"),
        "---\npaths: \"lib/**/*.{js,jsx}\"\n---\nBraces.",
    );
    t.write(
        w.join(".claude/rules/comma.md"),
        "---\npaths: \"a/*.rs, b/*.rs\"\n---\nComma.",
    );
    t.write(t.home().join(".claude/rules/mine.md"), "Mine.");
    let l = load(&t, &[Format::Claude]);
    assert_eq!(active(&l, &[], None), ["always.md", "mine.md"]);
    assert_eq!(
        active(&l, &["src/x/y.ts"], None),
        ["always.md", "string.md", "mine.md"]
    );
    assert_eq!(
        active(&l, &["docs/a/b.txt"], None),
        ["always.md", "deep/list.md", "mine.md"]
    );
    assert_eq!(
        active(&l, &["README.md"], None),
        ["always.md", "deep/list.md", "mine.md"]
    );
    assert_eq!(
        active(&l, &["lib/a/b.jsx"], None),
        ["always.md", "braces.md", "mine.md"]
    );
    assert_eq!(
        active(&l, &["b/x.rs"], None),
        ["always.md", "comma.md", "mine.md"]
    );
    assert!(l.rules.rules().iter().all(|r| r.format == Format::Claude));
}

#[test]
fn cursor_rules() {
    let t = Tree::new();
    let r = t.workdir().join(".cursor/rules");
    t.write(
        r.join("always.mdc"),
        "---\ndescription: x\nglobs:\nalwaysApply: true\n---\nAlways.",
    );
    t.write(
        r.join("comma.mdc"),
        "---\nglobs: src/**/*.ts, docs/*.md\nalwaysApply: false\n---\nComma.",
    );
    // Cursor's own reading (see formats/cursor.rs): a YAML list gives it no
    // globs, and a quoted value keeps its quotes, so neither ever attaches.
    t.write(
        r.join("list.mdc"),
        "---\nglobs:\n  - \"lib/**\"\n---\nList.",
    );
    t.write(r.join("string.mdc"), "---\nglobs: \"*.json\"\n---\nString.");
    t.write(r.join("bare.mdc"), "---\nglobs: *.json,lib/**\n---\nBare.");
    t.write(
        r.join("api.mdc"),
        "---\ndescription: How to write API handlers\nglobs:\nalwaysApply: false\n---\nRequested.",
    );
    t.write(
        r.join("sub/release.mdc"),
        "---\nalwaysApply: false\n---\nManual.",
    );
    t.write(r.join("notes.md"), "Not a Cursor rule file.");
    t.write(t.workdir().join(".cursorrules"), "Legacy: always.");
    let l = load(&t, &[Format::Cursor]);
    assert_eq!(common::ids(&l).len(), 8, "{:?}", common::ids(&l));
    assert_eq!(
        active(&l, &[], None),
        ["cursor:.cursorrules", "cursor:always.mdc"]
    );
    let warned = |file: &str| {
        l.diagnostics
            .iter()
            .any(|d| d.file_path.ends_with(file) && d.code == Code::QuotedGlob)
    };
    assert!(warned("list.mdc") && warned("string.mdc") && !warned("bare.mdc"));
    assert!(
        !l.diagnostics.iter().any(|d| d.code == Code::UnquotedValue),
        "the unquoted form is the one Cursor applies: {:?}",
        l.diagnostics
    );
    assert_eq!(activation(&l, "cursor:list.mdc"), Activation::Manual);
    let l = {
        std::fs::remove_file(t.workdir().join(".cursorrules")).unwrap();
        load(&t, &[Format::Cursor])
    };
    assert_eq!(
        active(&l, &["src/a/b.ts"], None),
        ["cursor:always.mdc", "cursor:comma.mdc"]
    );
    assert_eq!(
        active(&l, &["docs/x.md"], None),
        ["cursor:always.mdc", "cursor:comma.mdc"]
    );
    assert_eq!(
        active(&l, &["lib/x/y.c"], None),
        ["cursor:always.mdc", "cursor:bare.mdc"]
    );
    assert_eq!(
        active(&l, &["package.json"], None),
        ["cursor:always.mdc", "cursor:bare.mdc"]
    );
    // Agent Requested: offered, not active; a mention activates it.
    assert_eq!(activation(&l, "cursor:api.mdc"), Activation::OnRequest);
    assert_eq!(available(&l, &[], None), ["cursor:api.mdc"]);
    assert_eq!(
        active(&l, &[], Some("follow @api please")),
        ["cursor:always.mdc", "cursor:api.mdc"]
    );
    assert!(available(&l, &[], Some("follow @api please")).is_empty());
    // Manual: only when mentioned, by base name, file name or id.
    assert_eq!(activation(&l, "cursor:sub/release.mdc"), Activation::Manual);
    for prompt in [
        "cut it, see @release.",
        "@release.mdc",
        "@cursor:sub/release.mdc",
        "@RELEASE",
    ] {
        assert!(
            active(&l, &[], Some(prompt)).contains(&"cursor:sub/release.mdc".to_string()),
            "{prompt}"
        );
    }
    for prompt in ["release it", "mail me@release.com", "@releases"] {
        assert!(
            !active(&l, &[], Some(prompt)).contains(&"cursor:sub/release.mdc".to_string()),
            "{prompt}"
        );
    }
}

#[test]
fn nested_cursor_rules_apply_under_their_directory() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join("packages/web/.cursor/rules/tsx.mdc"),
        "---\nglobs: **/*.tsx\n---\nWeb TSX.",
    );
    t.write(
        w.join("packages/web/.cursor/rules/always.mdc"),
        "---\nalwaysApply: true\n---\nWeb always.",
    );
    t.write(
        w.join("node_modules/dep/.cursor/rules/x.mdc"),
        "---\nalwaysApply: true\n---\nNever read.",
    );
    t.write(
        w.join(".cursor/rules/root.mdc"),
        "---\nglobs: **/*.tsx\n---\nRoot TSX.",
    );
    let l = load(&t, &[Format::Cursor]);
    assert_eq!(common::ids(&l).len(), 3, "{:?}", common::ids(&l));
    assert_eq!(active(&l, &["app/a.tsx"], None), ["cursor:root.mdc"]);
    assert_eq!(
        active(&l, &["packages/web/src/a.tsx"], None),
        [
            "cursor:root.mdc",
            "cursor:packages/web/.cursor/rules/always.mdc",
            "cursor:packages/web/.cursor/rules/tsx.mdc"
        ]
    );
    assert_eq!(
        active(&l, &["packages/web/README"], None),
        ["cursor:packages/web/.cursor/rules/always.mdc"]
    );
    let r = l
        .rules
        .find("cursor:packages/web/.cursor/rules/tsx.mdc")
        .unwrap();
    assert_eq!(r.metadata.directory.as_deref(), Some("packages/web"));
    assert_eq!(
        r.metadata.paths.as_deref(),
        Some(&["packages/web/**/*.tsx".to_string()][..])
    );
}

#[test]
fn subfolders_of_cursor_rules_are_organisation_not_scope() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join(".cursor/rules/team/backend/always.mdc"),
        "---\nalwaysApply: true\n---\nBackend team always.",
    );
    t.write(
        w.join(".cursor/rules/team/backend/ts.mdc"),
        "---\nglobs: src/**/*.ts\n---\nTS.",
    );
    t.write(
        w.join("team/backend/.cursor/rules/nested.mdc"),
        "---\nalwaysApply: true\n---\nReally scoped.",
    );
    let l = load(&t, &[Format::Cursor]);
    let always = l.rules.find("cursor:team/backend/always.mdc").unwrap();
    assert_eq!(always.metadata.directory, None);
    assert_eq!(always.metadata.paths, None);
    let ts = l.rules.find("cursor:team/backend/ts.mdc").unwrap();
    assert_eq!(
        ts.metadata.paths.as_deref(),
        Some(&["src/**/*.ts".to_string()][..])
    );
    assert_eq!(
        active(&l, &["README.md"], None),
        ["cursor:team/backend/always.mdc"]
    );
    assert_eq!(
        active(&l, &["src/a.ts"], None),
        [
            "cursor:team/backend/always.mdc",
            "cursor:team/backend/ts.mdc"
        ]
    );
    assert_eq!(
        active(&l, &["team/backend/x.rs"], None),
        [
            "cursor:team/backend/always.mdc",
            "cursor:team/backend/.cursor/rules/nested.mdc"
        ]
    );
}

#[test]
fn copilot_instructions() {
    let t = Tree::new();
    let g = t.workdir().join(".github");
    t.write(g.join("copilot-instructions.md"), "Repository wide.");
    t.write(
        g.join("instructions/all.instructions.md"),
        "---\napplyTo: \"**\"\n---\nAll.",
    );
    t.write(
        g.join("instructions/star.instructions.md"),
        "---\napplyTo: '*'\n---\nStar.",
    );
    t.write(
        g.join("instructions/ts.instructions.md"),
        "---\napplyTo: \"src/*.ts\"\n---\nTS.",
    );
    t.write(
        g.join("instructions/deep/comma.instructions.md"),
        "---\napplyTo: \"**/*.py,**/*.pyi\"\n---\nPython.",
    );
    t.write(
        g.join("instructions/list.instructions.md"),
        "---\napplyTo:\n  - '*.go'\n---\nGo.",
    );
    t.write(
        g.join("instructions/ask.instructions.md"),
        "---\ndescription: Database migrations\n---\nAsk.",
    );
    t.write(
        g.join("instructions/review.instructions.md"),
        "---\napplyTo: '**'\nexcludeAgent: coding-agent\n---\nReview only.",
    );
    t.write(
        g.join("instructions/coding.instructions.md"),
        "---\napplyTo: '**/*.rs'\nexcludeAgent: code-review\n---\nRust.",
    );
    t.write(g.join("instructions/notes.md"), "Not an instructions file.");
    let l = load(&t, &[Format::Copilot]);
    let always = [
        "copilot:all.instructions.md",
        "copilot:copilot-instructions.md",
        "copilot:star.instructions.md",
    ];
    assert_eq!(active(&l, &[], None), always);
    // `**/`+pattern, case-insensitively.
    let with = |id: &str| {
        let mut v: Vec<String> = always.iter().map(|s| s.to_string()).collect();
        v.push(id.to_string());
        v.sort();
        v
    };
    let sorted = |mut v: Vec<String>| {
        v.sort();
        v
    };
    assert_eq!(
        sorted(active(&l, &["pkg/SRC/A.TS"], None)),
        with("copilot:ts.instructions.md")
    );
    assert_eq!(
        sorted(active(&l, &["x/y.pyi"], None)),
        with("copilot:deep/comma.instructions.md")
    );
    assert_eq!(
        sorted(active(&l, &["cmd/main.go"], None)),
        with("copilot:list.instructions.md")
    );
    assert_eq!(
        sorted(active(&l, &["a/b.rs"], None)),
        with("copilot:coding.instructions.md")
    );
    assert_eq!(available(&l, &[], None), ["copilot:ask.instructions.md"]);
    assert!(l.rules.find("copilot:review.instructions.md").is_none());
    assert!(
        diags(&l, Severity::Info).contains(&"excluded-agent:review.instructions.md:3".to_string()),
        "{:?}",
        l.diagnostics
    );
    assert!(message(&l, Code::InvalidField).contains("one comma-separated string"));
}

#[test]
fn windsurf_rules() {
    let t = Tree::new();
    let r = t.workdir().join(".windsurf/rules");
    t.write(r.join("on.md"), "---\ntrigger: always_on\n---\nOn.");
    t.write(
        r.join("glob.md"),
        "---\ntrigger: glob\nglobs: \"*.py, tests/**\"\n---\nGlob.",
    );
    t.write(
        r.join("list.md"),
        "---\ntrigger: glob\nglobs:\n  - '**/*.go'\n---\nList.",
    );
    t.write(
        r.join("model.md"),
        "---\ntrigger: model_decision\ndescription: Deploying to production\n---\nModel.",
    );
    t.write(r.join("man.md"), "---\ntrigger: manual\n---\nManual.");
    t.write(
        r.join("bare.md"),
        "---\ntrigger: model_decision\n---\nNo description.",
    );
    t.write(r.join("sub/deep.md"), "Too deep for Windsurf.");
    t.write(t.workdir().join(".windsurfrules"), "Legacy: always on.");
    let l = load(&t, &[Format::Windsurf]);
    assert_eq!(
        active(&l, &[], None),
        ["windsurf:.windsurfrules", "windsurf:on.md"]
    );
    let l = {
        std::fs::remove_file(t.workdir().join(".windsurfrules")).unwrap();
        load(&t, &[Format::Windsurf])
    };
    assert_eq!(active(&l, &[], None), ["windsurf:on.md"]);
    assert_eq!(
        active(&l, &["app.py"], None),
        ["windsurf:glob.md", "windsurf:on.md"]
    );
    assert_eq!(
        active(&l, &["tests/a/b"], None),
        ["windsurf:glob.md", "windsurf:on.md"]
    );
    assert_eq!(
        active(&l, &["x/y.go"], None),
        ["windsurf:list.md", "windsurf:on.md"]
    );
    assert_eq!(
        available(&l, &[], None),
        ["windsurf:bare.md", "windsurf:model.md"]
    );
    assert_eq!(
        active(&l, &[], Some("@man now")),
        ["windsurf:man.md", "windsurf:on.md"]
    );
    let d = diags(&l, Severity::Info);
    assert!(
        d.contains(&"missing-description:bare.md:2".to_string()),
        "{d:?}"
    );
    assert!(d.iter().any(|x| x.starts_with("too-deep:sub")), "{d:?}");
}

#[test]
fn kiro_steering() {
    let t = Tree::new();
    let s = t.workdir().join(".kiro/steering");
    t.write(s.join("product.md"), "# Product\nAlways, by default.");
    t.write(
        s.join("string.md"),
        "---\ninclusion: fileMatch\nfileMatchPattern: \"components/**/*.tsx\"\n---\nString.",
    );
    t.write(
        s.join("list.md"),
        "---\ninclusion: fileMatch\nfileMatchPattern: ['**/*.sql', 'db/**']\n---\nList.",
    );
    t.write(
        s.join("comma.md"),
        "---\ninclusion: fileMatch\nfileMatchPattern: \"*.ts,*.tsx\"\n---\nComma.",
    );
    t.write(s.join("manual.md"), "---\ninclusion: manual\n---\nManual.");
    t.write(
        s.join("auto.md"),
        "---\ninclusion: auto\nname: api-design\ndescription: REST API design\n---\nAuto.",
    );
    t.write(
        t.home().join(".kiro/steering/mine.md"),
        "---\ninclusion: always\n---\nUser steering.",
    );
    let l = load(&t, &[Format::Kiro]);
    assert_eq!(active(&l, &[], None), ["kiro:product.md", "kiro:mine.md"]);
    assert_eq!(
        active(&l, &["components/a/b.tsx"], None),
        ["kiro:product.md", "kiro:string.md", "kiro:mine.md"]
    );
    assert_eq!(
        active(&l, &["db/x"], None),
        ["kiro:list.md", "kiro:product.md", "kiro:mine.md"]
    );
    // A comma-joined pattern is ONE literal pattern to Kiro: it never fires
    // for a .ts file, and validate says so.
    assert!(!active(&l, &["a.ts", "b.tsx"], None).contains(&"kiro:comma.md".to_string()));
    assert!(
        diags(&l, Severity::Warning).contains(&"comma-joined-pattern:comma.md:3".to_string()),
        "{:?}",
        l.diagnostics
    );
    assert!(message(&l, Code::CommaJoinedPattern).contains("write a list (\"*.ts\", \"*.tsx\")"));
    assert_eq!(available(&l, &[], None), ["kiro:auto.md"]);
    assert!(active(&l, &[], Some("#manual please")).contains(&"kiro:manual.md".to_string()));
    assert!(active(&l, &[], Some("use @api-design")).contains(&"kiro:auto.md".to_string()));
}

#[test]
fn cline_rules() {
    let t = Tree::new();
    let c = t.workdir().join(".clinerules");
    t.write(c.join("always.md"), "# Always\nNo frontmatter.");
    t.write(c.join("notes.txt"), "Text rules count too.");
    t.write(
        c.join("deep/er/paths.md"),
        "---\npaths:\n  - \"src/**/*.ts\"\n  - \"*.json\"\n---\nPaths.",
    );
    t.write(
        c.join("string.md"),
        "---\npaths: \"docs/**\"\n---\nA string.",
    );
    let l = load(&t, &[Format::Cline]);
    // A `paths` string is ignored by Cline (fail-open): always on.
    assert_eq!(
        active(&l, &[], None),
        ["cline:always.md", "cline:notes.txt", "cline:string.md"]
    );
    assert_eq!(
        active(&l, &["src/a.ts"], None),
        [
            "cline:always.md",
            "cline:deep/er/paths.md",
            "cline:notes.txt",
            "cline:string.md"
        ]
    );
    assert_eq!(
        active(&l, &["docs/a"], None),
        ["cline:always.md", "cline:notes.txt", "cline:string.md"]
    );
    assert!(
        diags(&l, Severity::Warning).contains(&"invalid-field:string.md:2".to_string()),
        "{:?}",
        l.diagnostics
    );
    // A single `.clinerules` file.
    let t = Tree::new();
    t.write(t.workdir().join(".clinerules"), "One file of rules.");
    let l = load(&t, &[Format::Cline]);
    assert_eq!(active(&l, &[], None), ["cline:.clinerules"]);
}

#[test]
fn continue_rules() {
    let t = Tree::new();
    let r = t.workdir().join(".continue/rules");
    t.write(
        r.join("always.md"),
        "---\nname: Always\nalwaysApply: true\nglobs: \"*.never\"\n---\nAlways.",
    );
    t.write(
        r.join("plain.md"),
        "---\nname: Plain\n---\nNo globs: always, as Continue does.",
    );
    t.write(
        r.join("string.md"),
        "---\nglobs: \"src/**/*.ts\"\n---\nString.",
    );
    t.write(
        r.join("list.md"),
        "---\nglobs:\n  - \"**/*.py\"\n  - \"!**/test_*.py\"\n---\nList with negation.",
    );
    t.write(
        r.join("regex.md"),
        "---\nglobs: \"**/*.tsx\"\nregex: \"useEffect\\\\(\"\n---\nEffects.",
    );
    t.write(
        r.join("ask.md"),
        "---\nalwaysApply: false\ndescription: Writing migrations\n---\nAsk.",
    );
    t.write(
        r.join("off.md"),
        "---\nname: Off\nalwaysApply: false\n---\nOnly when mentioned.",
    );
    t.write(r.join("docs.md"), "---\nglobs: docs/**\nalwaysApply: false\ndescription: Writing docs\n---\nGlobs, or by description.");
    let l = load(&t, &[Format::Continue]);
    assert_eq!(
        active(&l, &[], None),
        ["continue:always.md", "continue:plain.md"]
    );
    assert_eq!(
        active(&l, &["src/a/b.ts"], None),
        [
            "continue:always.md",
            "continue:plain.md",
            "continue:string.md"
        ]
    );
    assert_eq!(
        active(&l, &["app/main.py"], None),
        [
            "continue:always.md",
            "continue:list.md",
            "continue:plain.md"
        ]
    );
    assert_eq!(
        active(&l, &["app/test_main.py"], None),
        ["continue:always.md", "continue:plain.md"]
    );
    // `regex`: on the content, when the caller provides it.
    let with = |text: &'static str| move |_: &str| Some(text.to_string());
    let ids = |v: Vec<usize>| {
        v.into_iter()
            .map(|i| l.rules.rules()[i].id.clone())
            .collect::<Vec<_>>()
    };
    let yes = with("useEffect(() => {})");
    let no = with("const x = 1");
    assert!(ids(l.rules.active_with(&["a/b.tsx"], None, Some(&yes)))
        .contains(&"continue:regex.md".to_string()));
    assert!(!ids(l.rules.active_with(&["a/b.tsx"], None, Some(&no)))
        .contains(&"continue:regex.md".to_string()));
    assert!(
        !ids(l.rules.active_with(&["a/b.ts"], None, Some(&yes)))
            .contains(&"continue:regex.md".to_string()),
        "globs still apply"
    );
    assert_eq!(
        available(&l, &[], None),
        ["continue:ask.md", "continue:docs.md"]
    );
    // alwaysApply: false with globs: the globs, or the agent by description.
    assert!(active(&l, &["docs/a.md"], None).contains(&"continue:docs.md".to_string()));
    assert_eq!(available(&l, &["docs/a.md"], None), ["continue:ask.md"]);
    assert_eq!(activation(&l, "continue:off.md"), Activation::Manual);
    assert!(active(&l, &[], Some("@off")).contains(&"continue:off.md".to_string()));
}

#[test]
fn agents_md_closest_last() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(w.join("AGENTS.md"), "Root.");
    t.write(
        w.join("CLAUDE.md"),
        "Root Claude: Claude Code's, not agents-md's.",
    );
    t.write(w.join("packages/api/AGENTS.md"), "API.");
    t.write(w.join("packages/AGENTS.md"), "Packages.");
    t.write(
        w.join("packages/AGENTS.override.md"),
        "Packages, overridden.",
    );
    t.write(w.join("node_modules/x/AGENTS.md"), "Never read.");
    t.write(w.join(".git/AGENTS.md"), "Never read.");
    t.write(w.join(".github/AGENTS.md"), "For .github/ only.");
    let l = load(&t, &[Format::AgentsMd]);
    assert_eq!(common::ids(&l).len(), 4, "{:?}", common::ids(&l));
    assert_eq!(active(&l, &[], None), ["agents-md:AGENTS.md"]);
    assert_eq!(
        active(&l, &["packages/api/src/x.ts"], None),
        [
            "agents-md:AGENTS.md",
            "agents-md:packages/AGENTS.override.md",
            "agents-md:packages/api/AGENTS.md"
        ]
    );
    assert_eq!(
        active(&l, &[".github/workflows/ci.yml"], None),
        ["agents-md:AGENTS.md", "agents-md:.github/AGENTS.md"]
    );
    // Codex reads the override instead of AGENTS.md in the same directory.
    assert!(message(&l, Code::Overridden).contains("instead of this file"));
}

#[test]
fn keyword_rules_yaml() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join(".claude/rules.yaml"),
        "- id: db\n  topics: [customer, invoice]\n  content: The customer table is read-only.\n- id: broken\n  content: No topics.\n- id: deploy\n  topics: deploy\n  content: Deploy on Fridays never.\n",
    );
    t.write(
        t.home().join(".claude/rules.yaml"),
        "rules:\n  - id: tone\n    topics: [email]\n    content: Be brief.\n",
    );
    let l = load(&t, &[Format::RulesYaml]);
    assert!(active(&l, &[], None).is_empty());
    assert_eq!(
        active(&l, &[], Some("Add a Customers column")),
        ["rules-yaml:db"]
    );
    assert_eq!(
        active(&l, &[], Some("deploy and email")),
        ["rules-yaml:deploy", "rules-yaml:tone"]
    );
    assert_eq!(diags(&l, Severity::Error), ["empty-trigger:rules.yaml:4"]);
    assert_eq!(
        l.rules.topic_active("invoice").len(),
        1,
        "topic rules go to the MANDATORY section"
    );
    // A malformed file is skipped with a located diagnostic; never fatal.
    let t = Tree::new();
    t.write(t.workdir().join(".claude/rules.yaml"), "id: [unclosed\n");
    t.write(t.workdir().join(".wave/rules/ok.md"), "Still loads.");
    let l = load(&t, &[Format::RulesYaml, Format::Wave]);
    assert_eq!(active(&l, &[], None), ["ok.md"]);
    let d = l
        .diagnostics
        .iter()
        .find(|d| d.code == Code::InvalidRulesFile)
        .expect("a diagnostic");
    assert!(d.line.is_some() && d.column.is_some(), "{d}");
}

#[test]
fn lints_say_what_to_write_for_this_tool() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join(".cursor/rules/paths.mdc"),
        "---\npaths: src/**\n---\nx",
    );
    t.write(
        w.join(".kiro/steering/globs.md"),
        "---\nglobs: src/**\n---\nx",
    );
    t.write(
        w.join(".windsurf/rules/always.md"),
        "---\nalwaysApply: true\n---\nx",
    );
    t.write(
        w.join(".cursor/rules/abs.mdc"),
        "---\nglobs: /src/**\n---\nx",
    );
    t.write(w.join(".cursor/rules/shape.mdc"), "---\nglobs: 3\n---\nx");
    t.write(
        w.join(".github/instructions/both.instructions.md"),
        "---\napplyTo: '**/*.cs'\npaths: ['**/*.cs']\n---\nx",
    );
    let l = load(
        &t,
        &[
            Format::Cursor,
            Format::Kiro,
            Format::Windsurf,
            Format::Copilot,
        ],
    );
    let find = |file: &str, code: Code| {
        l.diagnostics
            .iter()
            .find(|d| d.file_path.ends_with(file) && d.code == code)
            .unwrap_or_else(|| panic!("no {code} for {file}: {:?}", l.diagnostics))
            .clone()
    };
    let d = find("paths.mdc", Code::ForeignKey);
    assert_eq!(
        (d.severity, d.line, d.column),
        (Severity::Warning, Some(2), Some(1))
    );
    assert!(d.message.contains("write 'globs'"), "{}", d.message);
    assert!(find("globs.md", Code::ForeignKey)
        .message
        .contains("write 'inclusion: fileMatch' with 'fileMatchPattern'"));
    assert!(find("always.md", Code::ForeignKey)
        .message
        .contains("write 'trigger: always_on'"));
    assert_eq!(find("abs.mdc", Code::UnmatchableGlob).line, Some(2));
    // Cursor reads the line as written: `globs: 3` is the pattern "3".
    assert_eq!(
        l.rules.find("cursor:shape.mdc").unwrap().metadata.paths,
        Some(vec!["3".to_string()])
    );
    // A file written for two tools: the other tool's key is deliberate.
    assert_eq!(
        find("both.instructions.md", Code::ForeignKey).severity,
        Severity::Info
    );
}

#[test]
fn every_format_side_by_side_in_one_project() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(w.join(".wave/rules/style.md"), "Wave wins.");
    t.write(
        w.join(".claude/rules/style.md"),
        "Claude loses to the same relative id.",
    );
    t.write(
        w.join(".claude/rules/claude.md"),
        "---\npaths: ['**/*.ts']\n---\nClaude.",
    );
    t.write(
        w.join(".cursor/rules/style.mdc"),
        "---\nglobs: **/*.ts\n---\nCursor.",
    );
    t.write(
        w.join(".github/instructions/style.instructions.md"),
        "---\napplyTo: '**/*.ts'\n---\nCopilot.",
    );
    t.write(
        w.join(".windsurf/rules/style.md"),
        "---\ntrigger: glob\nglobs: '**/*.ts'\n---\nWindsurf.",
    );
    t.write(
        w.join(".kiro/steering/style.md"),
        "---\ninclusion: fileMatch\nfileMatchPattern: '**/*.ts'\n---\nKiro.",
    );
    t.write(
        w.join(".clinerules/style.md"),
        "---\npaths: ['**/*.ts']\n---\nCline.",
    );
    t.write(
        w.join(".continue/rules/style.md"),
        "---\nglobs: '**/*.ts'\n---\nContinue.",
    );
    t.write(w.join("AGENTS.md"), "Agents.");
    t.write(
        w.join(".claude/rules.yaml"),
        "- id: style\n  topics: style\n  content: Keywords.\n",
    );
    let all = memory_rules::formats_named(&["all"]).unwrap();
    let l = load(&t, &all);
    let got = active(&l, &["src/a.ts"], Some("style"));
    assert_eq!(
        got,
        [
            "agents-md:AGENTS.md",
            "claude.md",
            "cline:style.md",
            "continue:style.md",
            "copilot:style.instructions.md",
            "cursor:style.mdc",
            "kiro:style.md",
            "rules-yaml:style",
            "style.md",
            "windsurf:style.md",
        ]
    );
    assert_eq!(&*l.rules.find("style.md").unwrap().content, "Wave wins.");
    assert!(
        diags(&l, Severity::Info).contains(&"overridden:style.md:-".to_string()),
        "{:?}",
        l.diagnostics
    );
    // The default stays what the agent SDK reads.
    let d = memory_rules::load(&Config::with_home(t.workdir(), t.home()));
    assert_eq!(common::ids(&d), ["project:claude.md", "project:style.md"]);
    // Ids are stable across runs.
    assert_eq!(common::ids(&load(&t, &all)), common::ids(&l));
}

#[test]
fn every_place_each_tool_reads() {
    let t = Tree::new();
    let (w, h) = (t.workdir(), t.home());
    t.write(
        h.join(".copilot/copilot-instructions.md"),
        "Copilot CLI user.",
    );
    t.write(w.join(".github/copilot-instructions.md"), "Repository.");
    t.write(
        h.join(".codeium/windsurf/memories/global_rules.md"),
        "Windsurf global.",
    );
    t.write(
        w.join(".devin/rules/new.md"),
        "---\ntrigger: always_on\n---\nDevin folder.",
    );
    t.write(
        w.join(".windsurf/rules/old.md"),
        "---\ntrigger: always_on\n---\nLegacy folder.",
    );
    t.write(h.join("Documents/Cline/Rules/g.md"), "Cline global.");
    t.write(h.join(".agents/AGENTS.md"), "Global AGENTS.md.");
    t.write(h.join(".claude/CLAUDE.md"), "User memory.");
    t.write(w.join(".claude/CLAUDE.md"), "Project memory.");
    t.write(w.join("CLAUDE.md"), "Root memory.");
    t.write(w.join("CLAUDE.local.md"), "Personal project memory.");
    t.write(w.join("GEMINI.md"), "Gemini context.");
    t.write(h.join(".gemini/GEMINI.md"), "Gemini global.");
    t.write(h.join(".codex/AGENTS.md"), "Codex global.");
    t.write(h.join(".config/opencode/AGENTS.md"), "opencode global.");
    t.write(w.join(".cline/rules/c.md"), "Cline's new folder.");
    let l = load(
        &t,
        &[
            Format::AgentsMd,
            Format::Gemini,
            Format::Copilot,
            Format::Windsurf,
            Format::Cline,
            Format::Claude,
        ],
    );
    let on = active(&l, &["README.md"], None);
    for id in [
        "copilot:user/copilot-instructions.md",
        "copilot:copilot-instructions.md",
        "windsurf:user/global_rules.md",
        "windsurf:new.md",
        "windsurf:old.md",
        "cline:g.md",
        "cline:user/AGENTS.md",
        "cline:c.md",
        "claude:user/CLAUDE.md",
        "claude:.claude/CLAUDE.md",
        "claude:CLAUDE.md",
        "claude:CLAUDE.local.md",
        "gemini:GEMINI.md",
        "gemini:user/GEMINI.md",
        "agents-md:user/codex/AGENTS.md",
        "agents-md:user/opencode/AGENTS.md",
    ] {
        assert!(on.iter().any(|x| x == id), "{id} not read: {on:?}");
    }
    // The agent SDK's default sources stay the rules directories.
    let sdk = memory_rules::load(&Config::with_home(t.workdir(), t.home()));
    assert!(sdk.rules.rules().is_empty(), "{:?}", common::ids(&sdk));
}

#[test]
fn copilot_instructions_md_inside_instructions_is_not_the_repository_file() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(w.join(".github/copilot-instructions.md"), "The real one.");
    t.write(
        w.join(".github/instructions/copilot-instructions.md"),
        "Not read by Copilot.",
    );
    t.write(
        w.join(".github/instructions/ts.instructions.md"),
        "---\napplyTo: \"**/*.ts\"\n---\nTS.",
    );
    let l = load(&t, &[Format::Copilot]);
    assert_eq!(
        common::ids(&l),
        [
            "project:copilot:copilot-instructions.md",
            "project:copilot:ts.instructions.md"
        ]
    );
    assert_eq!(
        &*l.rules
            .find("copilot:copilot-instructions.md")
            .unwrap()
            .content,
        "The real one."
    );
}

#[test]
fn cline_paths_that_is_not_a_list_is_ignored_and_the_rule_always_on() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join(".clinerules/s.md"),
        "---\npaths: src/**/*.ts\n---\nString paths.",
    );
    let l = load(&t, &[Format::Cline]);
    assert_eq!(active(&l, &["README.md"], None), ["cline:s.md"]);
    assert!(
        message(&l, Code::InvalidField).contains("Cline ignores a 'paths' that is not a list"),
        "{:?}",
        l.diagnostics
    );
}

/// Cline's own loader (formats/cline.rs cites it): workflows, hooks and
/// skills are no rules; a symlink is not listed; `paths: []` never
/// activates; frontmatter Cline cannot parse makes the whole file an
/// always-on rule; `.cline/rules` is read beside `.clinerules`.
#[test]
fn cline_reads_what_cline_reads() {
    let t = Tree::new();
    let w = t.workdir();
    let c = w.join(".clinerules");
    t.write(c.join("general.md"), "General.");
    t.write(c.join("workflows/release.md"), "# Release\nRun /release.");
    t.write(c.join("hooks/README.md"), "Hooks documentation.");
    t.write(c.join("skills/pdf/SKILL.md"), "---\nname: pdf\n---\nSkill.");
    t.write(c.join("never.md"), "---\npaths: []\n---\nNever.");
    t.write(
        c.join("blank.md"),
        "---\npaths: [\"\"]\n---\nAn empty item: Cline ignores the list.",
    );
    t.write(
        c.join("broken.md"),
        "---\npaths: [src/**\n---\nBroken YAML.",
    );
    t.write(c.join("empty.md"), "  \n");
    t.write(w.join("shared/linked.md"), "Linked.");
    #[cfg(unix)]
    std::os::unix::fs::symlink(w.join("shared/linked.md"), c.join("linked.md")).unwrap();
    t.write(w.join(".cline/rules/new.markdown"), "New place.");
    let l = load(&t, &[Format::Cline]);
    assert_eq!(
        active(&l, &[], None),
        [
            "cline:blank.md",
            "cline:broken.md",
            "cline:general.md",
            "cline:new.markdown"
        ]
    );
    let broken = l.rules.find("cline:broken.md").unwrap();
    assert!(
        broken.content.starts_with("---\npaths: [src/**"),
        "fail-open keeps the fence: {}",
        broken.content
    );
    let info = |file: &str| {
        l.diagnostics
            .iter()
            .any(|d| d.file_path.ends_with(file) && d.code == Code::NotARule)
    };
    assert!(info("workflows") && info("hooks") && info("skills"));
    #[cfg(unix)]
    assert!(info("linked.md"), "{:?}", l.diagnostics);
    assert!(message(&l, Code::EmptyTrigger).contains("never activates"));
    assert!(l.rules.find("cline:never.md").is_none());
    assert!(l.rules.find("cline:empty.md").is_none());
}
