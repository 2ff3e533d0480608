//! Real repositories' rule-file layouts, each case a minimal reproduction
//! written here (never the file copied): the layout, the names, the
//! frontmatter forms and the links of the real repository named beside it
//! (repository, commit, path, licence), on a real temp tree, with the
//! meaning its tools give it and the source that says so. None of these
//! repositories is in `../shared/corpus`.
//!
//! The texts are ours; what is reproduced is what decides the meaning: file
//! names and places, frontmatter as written (quotes, spaces, lists, YAML
//! that does not parse), `@path` imports, symlinks.

mod common;
use common::Tree;
use memory_rules::sources::Config;
use memory_rules::{Activation, Code, Format, Loaded, Severity};

fn load(t: &Tree, formats: &[Format]) -> Loaded {
    std::fs::create_dir_all(t.workdir()).unwrap();
    std::fs::create_dir_all(t.home()).unwrap();
    memory_rules::load(&Config::named(t.workdir(), t.home(), formats))
}

fn all() -> Vec<Format> {
    memory_rules::formats_named(&["all"]).unwrap()
}

fn active(l: &Loaded, files: &[&str]) -> Vec<String> {
    common::active(l, files, None)
}

fn has(l: &Loaded, file: &str, code: Code) -> bool {
    l.diagnostics
        .iter()
        .any(|d| d.file_path.ends_with(file) && d.code == code)
}

fn rule<'a>(l: &'a Loaded, id: &str) -> &'a memory_rules::Rule {
    l.rules
        .find(id)
        .unwrap_or_else(|| panic!("no {id}: {:?}", common::ids(l)))
}

/// pulumi/esc @ 5e20cf80ad2940f036ce01a02b60047c82d9f8c2 (Apache-2.0):
/// `AGENTS.md` at the root, `CLAUDE.md` a symlink to it (git mode 120000,
/// target `AGENTS.md`; PR #636 "Add CLAUDE.md as symlink to AGENTS.md").
///
/// Meaning: Codex reads `AGENTS.md`, Claude Code `CLAUDE.md` (code.claude.com
/// docs, "memory"); one file, so one always-on rule when both sources are
/// read (Gemini CLI dedupes memory files by device and inode the same way,
/// `memoryDiscovery.ts`), and the `claude` source alone still reads it.
#[test]
fn pulumi_esc_claude_md_is_a_symlink_to_agents_md() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join("AGENTS.md"),
        "# Agent Instructions\n\n## Command canon\n- Format: `make format`\n- Test: `make test`\n",
    );
    common::symlink("AGENTS.md", w.join("CLAUDE.md"));
    let l = load(&t, &all());
    assert_eq!(active(&l, &[]), ["agents-md:AGENTS.md"]);
    assert!(has(&l, "CLAUDE.md", Code::Duplicate), "{:?}", l.diagnostics);
    let l = load(&t, &[Format::Claude]);
    assert_eq!(active(&l, &[]), ["claude:CLAUDE.md"]);
    assert!(rule(&l, "claude:CLAUDE.md").content.contains("make format"));
}

/// cybercog/laravel-love, `CLAUDE.md` @ 4f29ea436a4692d6e15dc0067e31d17c444bb057,
/// `AGENTS.md` @ 15839a9b312a29328928c08cb6e3760b62ac8dcb (MIT): a
/// `CLAUDE.md` with a heading, a paragraph of its own, then `@AGENTS.md`.
///
/// Meaning: Claude Code loads `CLAUDE.md` and, as its import, `AGENTS.md`
/// (docs, "Import additional files"): two rules, the import after its
/// importer; with `agents-md` read too, `AGENTS.md` is given once.
#[test]
fn laravel_love_claude_md_imports_agents_md() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join("CLAUDE.md"),
        "# CLAUDE.md\n\nUpdate AGENTS.md, not this file; this file imports it.\n\n@AGENTS.md\n",
    );
    t.write(
        w.join("AGENTS.md"),
        "# Agents\n\nRun the tests with composer test.\n",
    );
    let l = load(&t, &[Format::Claude]);
    assert_eq!(
        active(&l, &[]),
        ["claude:CLAUDE.md", "claude:CLAUDE.md@AGENTS.md"]
    );
    assert!(rule(&l, "claude:CLAUDE.md@AGENTS.md")
        .content
        .contains("composer test"));
    let l = load(&t, &all());
    assert_eq!(active(&l, &[]), ["agents-md:AGENTS.md", "claude:CLAUDE.md"]);
    assert!(has(&l, "AGENTS.md", Code::Duplicate));
}

/// A `CLAUDE.md` whose whole text is `@AGENTS.md` (the layout
/// laravel-love's file reduces to; the "whole text" case).
///
/// Meaning: nothing but an import, so the imported file is the rule, not
/// the text "@AGENTS.md".
#[test]
fn a_claude_md_that_is_only_an_import_is_its_imported_file() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(w.join("CLAUDE.md"), "@AGENTS.md\n");
    t.write(w.join("AGENTS.md"), "Use pnpm.\n");
    let l = load(&t, &[Format::Claude]);
    assert_eq!(active(&l, &[]), ["claude:CLAUDE.md@AGENTS.md"]);
    assert_eq!(
        rule(&l, "claude:CLAUDE.md@AGENTS.md").content.as_ref(),
        "Use pnpm."
    );
    assert!(!l.rules.rules().iter().any(|r| &*r.content == "@AGENTS.md"));
}

/// dankhole/quarterdeck (Apache-2.0, `package.json` "license"):
/// `.clinerules/workflows/release.md` @ 9144d8fedacd89433fed163734957c6717b5fb26
/// is the only file in `.clinerules/` (a workflow that mentions
/// `@RELEASE_WORKFLOW.md`); `CLAUDE.md` @ 709e05e71c2b90f7767b6c8920098d439f7c69f8
/// ends its "Conventions and rules" section with `@AGENTS.md`.
///
/// Meaning: Cline runs workflows as slash commands and reads no rule there
/// (cline/cline `cline-rules.ts`, `readDirectory(..., [[".clinerules",
/// "workflows"], ...])`); Claude Code imports `AGENTS.md` mid-file.
#[test]
fn quarterdeck_cline_workflows_are_no_rules() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join(".clinerules/workflows/release.md"),
        "# Release Workflow\n\nSee @RELEASE_WORKFLOW.md and bump the version.\n",
    );
    t.write(w.join("RELEASE_WORKFLOW.md"), "Tag, then publish.\n");
    t.write(
        w.join("CLAUDE.md"),
        "# Quarterdeck\n\nA board for agents.\n\n## Conventions and rules\n\n@AGENTS.md\n\n## Archive\n\nDo not read docs/archive/.\n",
    );
    t.write(w.join("AGENTS.md"), "Biome formats the code.\n");
    let l = load(&t, &[Format::Cline, Format::Claude]);
    assert!(!common::ids(&l).iter().any(|id| id.starts_with("cline:")));
    assert!(has(&l, ".clinerules/workflows", Code::NotARule));
    assert_eq!(
        active(&l, &[]),
        ["claude:CLAUDE.md", "claude:CLAUDE.md@AGENTS.md"]
    );
    // The importer keeps its own text, the token included (Claude Code
    // shows the file as written and loads the import beside it).
    assert!(rule(&l, "claude:CLAUDE.md")
        .content
        .contains("docs/archive"));
}

/// google-gemini/gemini-cli @ 5411f113cafae26161b4969b0237b8e1e024e2c2
/// (Apache-2.0): `GEMINI.md` at the root and in `packages/cli/`,
/// `packages/core/` (and five more packages); the root file mentions
/// `` `-w @google/gemini-cli-core -- src/...` `` inside a code span;
/// `.gemini/settings.json` sets no `context.fileName`.
///
/// Meaning: the root file always, a package's for the files under it (JIT
/// memory, `memoryDiscovery.ts`); an `@` in a code span is no import
/// (`memoryImportProcessor.ts`, `findCodeRegions`).
#[test]
fn gemini_cli_nested_gemini_md() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join("GEMINI.md"),
        "# Building\n\nRun one test: `npm test -w @google/gemini-cli-core -- src/a.test.ts`.\n",
    );
    t.write(w.join("packages/cli/GEMINI.md"), "Use Ink layout.\n");
    t.write(w.join("packages/core/GEMINI.md"), "Keep tools pure.\n");
    t.write(
        w.join(".gemini/settings.json"),
        "{ \"general\": { \"devtools\": true } }",
    );
    let l = load(&t, &[Format::Gemini]);
    assert_eq!(active(&l, &[]), ["gemini:GEMINI.md"]);
    assert_eq!(
        active(&l, &["packages/cli/src/ui/App.tsx"]),
        ["gemini:GEMINI.md", "gemini:packages/cli/GEMINI.md"]
    );
    assert!(!l.diagnostics.iter().any(|d| d.code == Code::Import));
    assert!(rule(&l, "gemini:GEMINI.md")
        .content
        .contains("@google/gemini-cli-core"));
}

/// Gemini CLI's `context.fileName` (settingsSchema.ts: a string or a list):
/// `["AGENTS.md", "GEMINI.md"]` makes `AGENTS.md` a Gemini context file.
#[test]
fn gemini_context_file_name_is_a_source() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join(".gemini/settings.json"),
        "{\n  // shared with Codex\n  \"context\": { \"fileName\": [\"AGENTS.md\", \"GEMINI.md\"] }\n}",
    );
    t.write(w.join("AGENTS.md"), "Shared.\n");
    let l = load(&t, &[Format::Gemini]);
    assert_eq!(active(&l, &[]), ["gemini:AGENTS.md"]);
    // With agents-md too: the one file, once.
    let l = load(&t, &[Format::AgentsMd, Format::Gemini]);
    assert_eq!(active(&l, &[]), ["agents-md:AGENTS.md"]);
}

/// sanity-io/agent-toolkit `rules/sanity-image.mdc` @ 23ef4ff5abed000e07afda57d2cd39bbf281af14
/// (MIT, README "License: MIT"; installed by copying into `.cursor/rules/`):
/// `description:` with a `: ` inside (not YAML), `globs: **/*.tsx, **/*.ts`
/// (unquoted, a space after the comma), `alwaysApply: false`.
///
/// Meaning: Auto Attached for `.tsx` and `.ts` files, as Cursor's docs show
/// the spaced form; a `spaced-globs` warning (reported to break the second
/// pattern: nefarius/BthPS3 PR #143 quoting two forum threads); no YAML
/// warning, since Cursor reads the lines, not YAML (see formats/cursor.rs).
#[test]
fn sanity_cursor_rule_with_spaced_unquoted_globs() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join(".cursor/rules/sanity-image.mdc"),
        "---\ndescription: Images in Sanity: schema, URLs and next/image.\nglobs: **/*.tsx, **/*.ts\nalwaysApply: false\n---\n\n# Images\n\nAlways enable hotspot.\n",
    );
    let l = load(&t, &[Format::Cursor]);
    let id = "cursor:sanity-image.mdc";
    assert_eq!(active(&l, &["app/page.tsx"]), [id]);
    assert_eq!(active(&l, &["lib/image.ts"]), [id]);
    assert!(active(&l, &["README.md"]).is_empty());
    assert!(has(&l, "sanity-image.mdc", Code::SpacedGlobs));
    assert!(!l
        .diagnostics
        .iter()
        .any(|d| matches!(d.code, Code::UnquotedValue | Code::YamlSyntax)));
    assert_eq!(
        rule(&l, id).metadata.description.as_deref(),
        Some("Images in Sanity: schema, URLs and next/image.")
    );
}

/// paralleldrive/aidd (MIT): `ai/rules/javascript/javascript.mdc` @
/// 1451271627f5feb30cfd6f4123be821cdf40435f has `globs: "**/*.js,...,**/*.tsx"`
/// (quoted) with `alwaysApply: true`; `ai/rules/tdd.mdc` @
/// f9cf5b8dfdb2b9ef3bf7067a4120b2d2b5fcc5fd has the unquoted form with
/// `alwaysApply: false` (PR #10 removed the quotes "that prevented proper
/// file targeting in Cursor rules"). The rules are installed into
/// `.cursor/rules/`.
///
/// Meaning: the first is Always (its quotes do not matter, no warning); the
/// second attaches to JavaScript and TypeScript files; a quoted copy of it
/// never attaches (`quoted-glob`), as Cursor keeps quotes (cosai-oasis/
/// project-codeguard issue #121, tested on Cursor 3.17.8).
#[test]
fn aidd_quoted_and_unquoted_cursor_globs() {
    let t = Tree::new();
    let r = t.workdir().join(".cursor/rules");
    t.write(
        r.join("javascript.mdc"),
        "---\ndescription: JavaScript guide\nglobs: \"**/*.js,**/*.jsx,**/*.ts,**/*.tsx\"\nalwaysApply: true\n---\nPrefer pure functions.\n",
    );
    t.write(
        r.join("tdd.mdc"),
        "---\ndescription: Test-driven development\nglobs: **/*.js,**/*.jsx,**/*.ts,**/*.tsx\nalwaysApply: false\n---\nWrite the test first.\n",
    );
    t.write(
        r.join("tdd-quoted.mdc"),
        "---\ndescription: Test-driven development\nglobs: \"**/*.js,**/*.jsx,**/*.ts,**/*.tsx\"\nalwaysApply: false\n---\nWrite the test first, quoted.\n",
    );
    let l = load(&t, &[Format::Cursor]);
    assert_eq!(active(&l, &["README.md"]), ["cursor:javascript.mdc"]);
    // The first and last patterns of the quoted line carry a quote and
    // match nothing; the middle ones are plain, and Cursor matches them.
    assert_eq!(
        active(&l, &["src/a.js"]),
        ["cursor:javascript.mdc", "cursor:tdd.mdc"]
    );
    assert_eq!(
        active(&l, &["src/a.ts"]),
        [
            "cursor:javascript.mdc",
            "cursor:tdd-quoted.mdc",
            "cursor:tdd.mdc"
        ]
    );
    assert!(has(&l, "tdd-quoted.mdc", Code::QuotedGlob));
    assert!(!has(&l, "javascript.mdc", Code::QuotedGlob));
}

/// nefarius/BthPS3 `.cursor/rules/bthps3cfgui-tooltip-delay.mdc` @
/// 48085bdca274aeb62f107db8f4a0a0ac41f420b0 (MIT): `globs:
/// BthPS3CfgUI/**/*.xaml, BthPS3CfgUI/**/*.cs` with `alwaysApply: false` and
/// a description.
///
/// Meaning: Auto Attached for files under `BthPS3CfgUI/`; the space after
/// the comma is the trap this repository's own PR #143 describes.
#[test]
fn bthps3_cursor_rule_scoped_to_a_folder() {
    let t = Tree::new();
    t.write(
        t.workdir().join(".cursor/rules/bthps3cfgui-tooltip-delay.mdc"),
        "---\ndescription: WPF tooltips show after 200 ms\nglobs: BthPS3CfgUI/**/*.xaml, BthPS3CfgUI/**/*.cs\nalwaysApply: false\n---\nSet ToolTipService.InitialShowDelay=\"200\".\n",
    );
    let l = load(&t, &[Format::Cursor]);
    let id = "cursor:bthps3cfgui-tooltip-delay.mdc";
    assert_eq!(active(&l, &["BthPS3CfgUI/MainWindow.xaml"]), [id]);
    assert!(active(&l, &["BthPS3/Driver.c"]).is_empty());
    assert_eq!(formats_kind(&l, id), ("Auto Attached", Activation::Auto));
    let d = l
        .diagnostics
        .iter()
        .find(|d| d.code == Code::SpacedGlobs)
        .unwrap();
    assert!(d
        .message
        .contains("BthPS3CfgUI/**/*.xaml,BthPS3CfgUI/**/*.cs"));
    assert_eq!(d.severity, Severity::Warning);
}

fn formats_kind(l: &Loaded, id: &str) -> (&'static str, Activation) {
    let r = rule(l, id);
    (
        memory_rules::internals::formats::activation_label(r),
        r.metadata.activation,
    )
}

/// AdoptOpenJDK/openjdk-website `.github/AGENTS.md` @
/// 188dc985fd4a115dae0ae1bed63824000d406f26 (Apache-2.0, `package.json`
/// "license"): instructions in `.github/AGENTS.md`, no root `AGENTS.md`.
///
/// Meaning: an `AGENTS.md` applies to the files of its folder (Codex reads
/// the files on the path from the root to the working directory), so this
/// one to `.github/**` only; the walk searches `.github` (it used to skip
/// every hidden folder and miss it).
#[test]
fn openjdk_website_github_agents_md_scopes_github() {
    let t = Tree::new();
    t.write(
        t.workdir().join(".github/AGENTS.md"),
        "# Instructions\n\nBuild with Vite.\n",
    );
    let l = load(&t, &[Format::AgentsMd]);
    assert!(active(&l, &["src/index.js"]).is_empty());
    assert_eq!(
        active(&l, &[".github/workflows/ci.yml"]),
        ["agents-md:.github/AGENTS.md"]
    );
}

/// The escaped glob the issue met (`globs: docs/\*_/_.{md,mdx}`, a
/// Markdown formatter's rewrite of `docs/**/*.{md,mdx}`), in a Continue rule.
///
/// Meaning: Continue matches it literally, so it never matches a real
/// file; `escaped-glob` names the pattern it was.
#[test]
fn a_formatter_escaped_glob_is_explained() {
    let t = Tree::new();
    t.write(
        t.workdir().join(".continue/rules/docs.md"),
        "---\nglobs: docs/\\*_/_.{md,mdx}\nalwaysApply: false\ndescription: Docs style\n---\nWrite in second person.\n",
    );
    let l = load(&t, &[Format::Continue]);
    let d = l
        .diagnostics
        .iter()
        .find(|d| d.code == Code::EscapedGlob)
        .unwrap_or_else(|| panic!("{:?}", l.diagnostics));
    assert!(d.message.contains("docs/**/*.{md,mdx}"), "{}", d.message);
}

/// One walk of the project for every nested source: `--sources all` reads
/// `AGENTS.md`, `CLAUDE.md`, `GEMINI.md` and nested `.cursor/rules` with one
/// walk (the closing note measures it with strace: the directory reads of
/// `--sources all` equal one walk's plus the tools' own folders).
#[test]
fn every_nested_source_shares_one_walk() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(w.join("AGENTS.md"), "A.");
    t.write(w.join("pkg/CLAUDE.md"), "C.");
    t.write(w.join("pkg/GEMINI.md"), "G.");
    t.write(
        w.join("web/.cursor/rules/x.mdc"),
        "---\nalwaysApply: true\n---\nX.",
    );
    let l = load(&t, &all());
    assert_eq!(l.walks(), 1);
    assert_eq!(common::ids(&l).len(), 4, "{:?}", common::ids(&l));
    let l = load(&t, &[Format::Wave, Format::Claude]);
    assert_eq!(l.walks(), 1);
    let l = memory_rules::load(&Config::with_home(t.workdir(), t.home()));
    assert_eq!(l.walks(), 0, "the agent SDK's four sources walk nothing");
}

/// The same real file through a hard link, and the same text copied into
/// two tools' folders: read once each.
#[test]
fn hard_links_and_copies_are_one_rule() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(w.join(".clinerules/style.md"), "Use tabs.\n");
    std::fs::create_dir_all(w.join(".continue/rules")).unwrap();
    std::fs::hard_link(
        w.join(".clinerules/style.md"),
        w.join(".continue/rules/style.md"),
    )
    .unwrap();
    t.write(
        w.join(".windsurf/rules/style.md"),
        "---\ntrigger: always_on\n---\nUse tabs.\n",
    );
    let l = load(&t, &all());
    // Windsurf's source comes first in the sources' order.
    assert_eq!(active(&l, &[]), ["windsurf:style.md"]);
    assert_eq!(
        l.diagnostics
            .iter()
            .filter(|d| d.code == Code::Duplicate)
            .count(),
        2
    );
}

/// The near misses the issue met (a `.github/copilot-instructions/` folder,
/// a `.devin/rules` that is a file) and their kin: each is a `misplaced`
/// warning on the path, saying what to move where; nothing of them is read
/// as a rule, and a source that is not read gets no warning about its files.
#[test]
fn near_misses_name_the_move_that_fixes_them() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join(".github/copilot-instructions/x.instructions.md"),
        "---\napplyTo: \"src/**\"\n---\nX.\n",
    );
    t.write(w.join(".github/instructions/api.md"), "API.\n");
    t.write(w.join(".devin/rules"), "Use tabs.\n");
    t.write(w.join(".cursor/rules/style.md"), "Style.\n");
    t.write(w.join(".kiro/steerings/product.md"), "Product.\n");
    t.write(w.join("packages/web/AGENT.md"), "Web.\n");
    let l = load(&t, &all());
    assert!(common::ids(&l).is_empty(), "{:?}", common::ids(&l));
    let says = |file: &str, words: &str| {
        l.diagnostics.iter().any(|d| {
            d.code == Code::Misplaced
                && d.severity == Severity::Warning
                && d.file_path.ends_with(file)
                && d.message.contains(words)
        })
    };
    for (file, words) in [
        (
            ".github/copilot-instructions",
            "move its files to .github/instructions/",
        ),
        (
            ".github/instructions/api.md",
            "rename it to api.instructions.md",
        ),
        (".devin/rules", "move it to .devin/rules/rules.md"),
        (".cursor/rules/style.md", "rename it to style.mdc"),
        (".kiro/steerings", "Kiro reads .kiro/steering/"),
        ("packages/web/AGENT.md", "AGENTS.md"),
    ] {
        assert!(says(file, words), "{file}: {words}\n{:#?}", l.diagnostics);
    }
    // Only the sources read are looked at.
    let l = load(&t, &[Format::Wave, Format::Claude]);
    assert!(
        !l.diagnostics.iter().any(|d| d.code == Code::Misplaced),
        "{:?}",
        l.diagnostics
    );
}

/// An import that leads outside the project (`@../team/style.md`, a link
/// to another folder) is not read, with an `import` warning naming where it
/// leads and how to allow it; allowed, it is read. A missing import stays
/// text, as both tools leave it.
#[test]
fn an_import_outside_the_project_is_refused_unless_allowed() {
    let t = Tree::new();
    let w = t.workdir();
    t.write(
        w.join("CLAUDE.md"),
        "Project notes.\n\n@../team/style.md\n@docs/missing.md\n",
    );
    let team = t.write(t.tmp.path().join("team/style.md"), "Team style.\n");
    let l = load(&t, &[Format::Claude]);
    assert_eq!(active(&l, &[]), ["claude:CLAUDE.md"]);
    let d = l
        .diagnostics
        .iter()
        .find(|d| d.code == Code::Import && d.message.contains("outside the project"))
        .unwrap_or_else(|| panic!("{:#?}", l.diagnostics));
    assert_eq!(d.severity, Severity::Warning);
    assert!(d.message.contains("--allow-dir"), "{}", d.message);
    assert!(!l
        .rules
        .rules()
        .iter()
        .any(|r| r.content.contains("Team style")));
    let mut config = Config::named(t.workdir(), t.home(), &[Format::Claude]);
    config.allow_dirs = vec![team.parent().unwrap().to_path_buf()];
    let l = memory_rules::load(&config);
    assert_eq!(
        active(&l, &[]),
        ["claude:CLAUDE.md", "claude:CLAUDE.md@../team/style.md"]
    );
    assert!(rule(&l, "claude:CLAUDE.md")
        .content
        .contains("@docs/missing.md"));
}
