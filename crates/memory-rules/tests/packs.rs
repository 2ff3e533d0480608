//! Packs and the policy as sources: the layers' order, provenance, locked
//! policy rules, `disable`, stale and missing packs, reload.

use memory_rules::{load, reload, reload_from, Code, LayerKind, Loaded, Severity};

use memory_rules::sources::Config;
use std::path::{Path, PathBuf};

struct Tree {
    _t: tempfile::TempDir,
    root: PathBuf,
}

impl Tree {
    fn new() -> Tree {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        for d in ["work", "home", "policy"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        Tree { _t: t, root }
    }
    fn work(&self) -> PathBuf {
        self.root.join("work")
    }
    fn write(&self, rel: &str, text: &str) {
        let p = self.root.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    fn config(&self, policy: bool) -> Config {
        Config::with_home(self.work(), self.root.join("home"))
            .with_layers(true, policy.then(|| self.root.join("policy")))
    }
    fn npm(&self, name: &str, version: &str, rules: &[(&str, &str)]) {
        let dir = format!("work/node_modules/{name}");
        self.write(
            &format!("{dir}/package.json"),
            &format!(
                r#"{{"name":"{name}","version":"{version}","waveRules":{{"rules":"rules"}}}}"#
            ),
        );
        for (file, text) in rules {
            self.write(&format!("{dir}/rules/{file}"), text);
        }
    }
}

fn rule<'a>(loaded: &'a Loaded, id: &str) -> &'a memory_rules::Rule {
    loaded
        .rules
        .rules()
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("no rule {id}"))
}

fn with_code(loaded: &Loaded, code: Code) -> Vec<String> {
    loaded
        .diagnostics
        .iter()
        .filter(|d| d.code == code)
        .map(|d| d.to_string())
        .collect()
}

#[test]
fn packs_come_first_and_each_rule_says_where_it_came_from() {
    let t = Tree::new();
    t.npm(
        "@acme/rules",
        "2.3.1",
        &[("security.md", "Pack security."), ("sql.md", "Pack SQL.")],
    );
    t.write("team/style.md", "Team style.");
    t.write(
        "work/.wave/config.toml",
        "packs = [\"@acme/rules@^2\", \"../team\"]\n",
    );
    t.write("work/.wave/rules/sql.md", "Our SQL.");
    let loaded = load(&t.config(false));
    let security = rule(&loaded, "security.md");
    assert_eq!(security.origin.layer, LayerKind::Pack);
    assert_eq!(security.origin.provenance, "@acme/rules@2.3.1:security.md");
    assert_eq!(security.origin.pack.as_deref(), Some("@acme/rules@2.3.1"));
    assert_eq!(
        rule(&loaded, "style.md").origin.provenance,
        "../team:style.md"
    );
    // The project's rule of the same id replaces the pack's, and says so.
    let sql = rule(&loaded, "sql.md");
    assert_eq!(&*sql.content, "Our SQL.");
    assert_eq!(sql.origin.provenance, "project:.wave/rules/sql.md");
    assert_eq!(sql.origin.overrides, ["@acme/rules@2.3.1:sql.md"]);
    let overridden = with_code(&loaded, Code::Overridden);
    assert!(
        overridden.iter().any(|d| d.contains("pack rule 'sql.md' (@acme/rules@2.3.1:sql.md) is overridden by the project rule project:.wave/rules/sql.md")),
        "{overridden:?}"
    );
    assert!(
        loaded
            .diagnostics
            .iter()
            .all(|d| d.severity == Severity::Info),
        "{:?}",
        loaded.diagnostics
    );
}

#[test]
fn a_locked_policy_rule_survives_a_project_rule_and_a_disable_and_both_are_reported() {
    let t = Tree::new();
    t.write("policy/rules/secrets.md", "Never commit secrets.");
    t.write("work/.wave/rules/secrets.md", "Secrets are fine.");
    t.write("home/.wave/rules/secrets.md", "Mine.");
    t.npm(
        "@acme/rules",
        "1.0.0",
        &[("legacy.md", "Old."), ("keep.md", "Keep.")],
    );
    t.write(
        "work/.wave/config.toml",
        "packs = [\"@acme/rules\"]\n\n[rules]\ndisable = [\"secrets.md\", \"@acme/rules:legacy.md\", \"nothing.md\"]\n",
    );
    let loaded = load(&t.config(true));
    let secrets = rule(&loaded, "secrets.md");
    assert_eq!(&*secrets.content, "Never commit secrets.");
    assert!(secrets.origin.locked);
    assert_eq!(secrets.origin.layer, LayerKind::Policy);
    let policy_file = t.root.join("policy/rules/secrets.md");
    assert_eq!(
        secrets.origin.provenance,
        format!("policy:{}", policy_file.display())
    );
    assert_eq!(
        secrets.origin.overrides.len(),
        2,
        "{:?}",
        secrets.origin.overrides
    );
    let locked = with_code(&loaded, Code::Locked);
    assert_eq!(locked.len(), 3, "{locked:?}");
    assert!(locked.iter().any(|d| d.contains("work/.wave/rules/secrets.md: warning[locked]: project:.wave/rules/secrets.md is not used: the policy rule policy:")), "{locked:?}");
    assert!(
        locked
            .iter()
            .any(|d| d
                .contains("config.toml:4:12: warning[locked]: disable 'secrets.md' is refused")),
        "{locked:?}"
    );
    // The unlocked pack rule is disabled, by its qualified id.
    assert!(loaded.rules.rules().iter().all(|r| r.id != "legacy.md"));
    assert!(
        with_code(&loaded, Code::Disabled)[0].contains("@acme/rules@1.0.0:legacy.md is disabled")
    );
    assert!(
        with_code(&loaded, Code::InvalidConfig)[0].contains("disable 'nothing.md' names no rule")
    );
    assert_eq!(rule(&loaded, "keep.md").origin.layer, LayerKind::Pack);
}

#[test]
fn policy_packs_are_locked_too() {
    let t = Tree::new();
    t.write("policy/config.toml", "packs = [\"./org\"]\n");
    t.write("policy/org/rules/review.md", "Two reviewers.");
    t.write("work/.wave/rules/review.md", "One reviewer.");
    let loaded = load(&t.config(true));
    let review = rule(&loaded, "review.md");
    assert_eq!(&*review.content, "Two reviewers.");
    assert_eq!(review.origin.provenance, "policy:./org:review.md");
    assert!(review.origin.locked);
}

#[test]
fn a_missing_pack_and_a_stale_pack_are_diagnostics_and_what_is_on_disk_is_used() {
    let t = Tree::new();
    t.npm("@acme/rules", "2.4.0", &[("a.md", "A.")]);
    t.write(
        "work/.wave/config.toml",
        "packs = [\"@acme/rules@^2\", \"@acme/absent\", \"git+file:///nowhere/x.git#v1\"]\n",
    );
    t.write(
        "work/.wave/packs.lock",
        "version = 1\n[[pack]]\nspec = \"@acme/rules@^2\"\nkind = \"npm\"\nname = \"@acme/rules\"\nversion = \"2.3.1\"\nhash = \"sha256:00\"\n",
    );
    let loaded = load(&t.config(false));
    assert_eq!(
        rule(&loaded, "a.md").origin.pack.as_deref(),
        Some("@acme/rules@2.4.0")
    );
    let missing = with_code(&loaded, Code::PackMissing);
    assert_eq!(missing.len(), 2, "{missing:?}");
    assert!(
        missing[0].contains(
            "config.toml:1:28: error[pack-missing]: the npm pack @acme/absent is not installed"
        ),
        "{missing:?}"
    );
    assert!(
        missing[1].contains("is not checked out: run `wave-rules packs sync`"),
        "{missing:?}"
    );
    let stale = with_code(&loaded, Code::PackStale);
    assert!(
        stale[0].contains("node_modules has @acme/rules 2.4.0, the lock pins 2.3.1"),
        "{stale:?}"
    );
}

#[test]
fn a_broken_pack_rule_names_its_pack_and_the_others_load() {
    let t = Tree::new();
    t.npm(
        "@acme/rules",
        "1.0.0",
        &[("bad.md", "---\npaths: [\n---\nX"), ("ok.md", "OK.")],
    );
    t.write("work/.wave/config.toml", "packs = [\"@acme/rules\"]\n");
    let loaded = load(&t.config(false));
    assert!(loaded.rules.rules().iter().any(|r| r.id == "ok.md"));
    let errors: Vec<&memory_rules::Diagnostic> = loaded
        .diagnostics
        .iter()
        .filter(|d| d.severity == Severity::Error)
        .collect();
    assert!(!errors.is_empty());
    assert!(
        errors
            .iter()
            .all(|d| d.message.ends_with("(pack @acme/rules@1.0.0)")),
        "{errors:?}"
    );
}

#[test]
fn a_new_pack_version_reaches_reload_and_a_saved_snapshot() {
    let t = Tree::new();
    t.npm("@acme/rules", "1.0.0", &[("a.md", "A.")]);
    t.write("work/.wave/config.toml", "packs = [\"@acme/rules\"]\n");
    let config = t.config(false);
    let first = load(&config);
    let saved = first.snapshot().to_bytes().unwrap();
    // Only package.json changes: the rule file's stamp does not.
    t.npm("@acme/rules", "1.0.1", &[]);
    let again = reload(&config, &first);
    assert!(again.changed);
    assert_eq!(
        rule(&again.loaded, "a.md").origin.pack.as_deref(),
        Some("@acme/rules@1.0.1")
    );
    let restored = memory_rules::Snapshot::from_bytes(&saved).unwrap();
    let from = reload_from(&config, &restored);
    assert_eq!(
        rule(&from.loaded, "a.md").origin.provenance,
        "@acme/rules@1.0.1:a.md"
    );
    // Naming the pack no more drops its rules.
    t.write("work/.wave/config.toml", "packs = []\n");
    let gone = reload(&config, &again.loaded);
    assert!(gone.changed && gone.loaded.rules.rules().is_empty());
}

#[test]
fn a_pack_rule_may_not_lead_outside_its_pack() {
    let t = Tree::new();
    t.npm("@acme/rules", "1.0.0", &[("a.md", "A.")]);
    t.write("secret.md", "outside");
    #[cfg(unix)]
    std::os::unix::fs::symlink(
        t.root.join("secret.md"),
        t.work().join("node_modules/@acme/rules/rules/leak.md"),
    )
    .unwrap();
    t.write("work/.wave/config.toml", "packs = [\"@acme/rules\"]\n");
    let loaded = load(&t.config(false));
    #[cfg(unix)]
    {
        assert!(loaded.rules.rules().iter().all(|r| r.id != "leak.md"));
        assert!(!with_code(&loaded, Code::SymlinkOutside).is_empty());
    }
    let _ = Path::new("");
    assert!(loaded.rules.rules().iter().any(|r| r.id == "a.md"));
}

#[test]
fn config_new_reads_no_layers_and_with_home_reads_them() {
    let t = Tree::new();
    t.write("team/x.md", "X.");
    t.write("work/.wave/config.toml", "packs = [\"../team\"]\n");
    let bare = Config::new(
        t.work(),
        Config::default_sources(&t.work(), &t.root.join("home")),
    );
    assert!(load(&bare).rules.rules().is_empty());
    assert_eq!(load(&t.config(false)).rules.rules().len(), 1);
}
