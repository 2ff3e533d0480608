//! `wave-rules packs` with real packages: an npm pack made with `npm pack`
//! and installed with `npm install` from the tarball (offline), a git pack
//! from a local bare repository over file://, a folder pack; the lockfile
//! and `packs sync --frozen`'s drift; the locked policy.

use std::path::{Path, PathBuf};
use std::process::Command;

struct T {
    _t: tempfile::TempDir,
    root: PathBuf,
}

struct Run {
    stdout: String,
    stderr: String,
    code: i32,
}

impl T {
    fn new() -> T {
        let t = tempfile::tempdir().unwrap();
        let root = t.path().canonicalize().unwrap();
        for d in ["work/.git", "home", "policy"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        // The project is a repository (a `.git` with its `HEAD`; an empty
        // `.git` folder is none), so it is its own root wherever the temp
        // folder is.
        std::fs::write(root.join("work/.git/HEAD"), "ref: refs/heads/main\n").unwrap();
        T { _t: t, root }
    }
    fn p(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }
    fn write(&self, rel: &str, text: &str) {
        let p = self.p(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    fn run(&self, args: &[&str]) -> Run {
        let out = Command::new(env!("CARGO_BIN_EXE_wave-rules"))
            .args(args)
            .arg("--home")
            .arg(self.p("home"))
            .current_dir(self.p("work"))
            .env("WAVE_POLICY_DIR", self.p("policy"))
            .env("NO_COLOR", "1")
            .output()
            .unwrap();
        Run {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code().unwrap_or(-1),
        }
    }
    fn ok(&self, args: &[&str]) -> Run {
        let r = self.run(args);
        assert_eq!(r.code, 0, "{args:?}\n{}\n{}", r.stdout, r.stderr);
        r
    }
}

fn sh(dir: &Path, program: &str, args: &[&str]) -> String {
    let out = Command::new(program)
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .env("npm_config_offline", "true")
        .env("npm_config_audit", "false")
        .env("npm_config_fund", "false")
        .env("npm_config_update_notifier", "false")
        .output()
        .unwrap_or_else(|e| panic!("{program}: {e}"));
    assert!(
        out.status.success(),
        "{program} {args:?}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

fn has(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn json(r: &Run) -> serde_json::Value {
    serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{e}: {}{}", r.stdout, r.stderr))
}

fn rule<'a>(list: &'a serde_json::Value, id: &str) -> &'a serde_json::Value {
    list["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in {list}"))
}

/// A git repository of rules at `src`, its bare clone at `bare`, tag v1.
fn git_pack(t: &T) -> String {
    let src = t.p("src-git");
    std::fs::create_dir_all(src.join("rules")).unwrap();
    std::fs::write(
        src.join("rules/security.md"),
        "---\npaths: src/**\n---\nGit pack: validate input.\n",
    )
    .unwrap();
    std::fs::write(src.join("README.md"), "a pack").unwrap();
    sh(&src, "git", &["init", "-q", "-b", "main"]);
    sh(&src, "git", &["add", "-A"]);
    sh(&src, "git", &["commit", "-qm", "one"]);
    sh(
        &t.root,
        "git",
        &["clone", "-q", "--bare", "src-git", "bare.git"],
    );
    format!("git+file://{}#main", t.p("bare.git").display())
}

fn push_commit(t: &T, file: &str, text: &str) -> String {
    let src = t.p("src-git");
    std::fs::write(src.join(file), text).unwrap();
    sh(&src, "git", &["add", "-A"]);
    sh(&src, "git", &["commit", "-qm", "next"]);
    sh(
        &src,
        "git",
        &["push", "-q", &t.p("bare.git").to_string_lossy(), "main"],
    );
    sh(&src, "git", &["rev-parse", "HEAD"])
}

/// `npm pack` of a pack package, installed into the workdir from the
/// tarball, offline.
fn npm_pack(t: &T) {
    t.write(
        "src-npm/package.json",
        r#"{"name":"@acme/rules","version":"2.3.1","files":["rules"],"waveRules":{"rules":"rules"}}"#,
    );
    t.write(
        "src-npm/rules/sql.md",
        "---\ntopics: [sql]\n---\nNpm pack: no SELECT *.\n",
    );
    let tgz = sh(
        &t.p("src-npm"),
        "npm",
        &[
            "pack",
            "--silent",
            "--pack-destination",
            &t.root.to_string_lossy(),
        ],
    );
    let tgz = t.root.join(tgz.lines().last().unwrap());
    t.write("work/package.json", r#"{"name":"work","private":true}"#);
    sh(
        &t.p("work"),
        "npm",
        &["install", "--no-save", "--offline", &tgz.to_string_lossy()],
    );
    assert!(t.p("work/node_modules/@acme/rules/rules/sql.md").is_file());
}

#[test]
fn every_kind_of_pack_is_synced_locked_listed_and_loaded_with_provenance() {
    let t = T::new();
    if !has("git") || !has("npm") {
        eprintln!("skipped: git and npm are needed for the packs test");
        return;
    }
    npm_pack(&t);
    let git = git_pack(&t);
    t.write("team/style.md", "Folder pack: two-space indent.\n");
    t.ok(&["packs", "add", "@acme/rules@^2"]);
    let added = t.ok(&["packs", "add", &git]);
    assert!(
        added.stdout.contains("wrote .wave/packs.lock"),
        "{}",
        added.stdout
    );
    t.ok(&["packs", "add", "../team"]);
    let config = std::fs::read_to_string(t.p("work/.wave/config.toml")).unwrap();
    assert!(
        config.contains("\"@acme/rules@^2\"") && config.contains("\"../team\""),
        "{config}"
    );
    let lock = std::fs::read_to_string(t.p("work/.wave/packs.lock")).unwrap();
    assert!(
        lock.contains("version = \"2.3.1\"") && lock.contains("commit = \""),
        "{lock}"
    );
    assert!(t.p("work/.wave/packs/.gitignore").is_file());

    let list = json(&t.ok(&["list", "--json"]));
    assert_eq!(
        rule(&list, "sql.md")["provenance"],
        "@acme/rules@2.3.1:sql.md"
    );
    let security = rule(&list, "security.md")["provenance"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        security.starts_with("security@") || security.starts_with("bare@"),
        "{security}"
    );
    assert!(security.ends_with(":security.md"), "{security}");
    assert_eq!(rule(&list, "style.md")["provenance"], "../team:style.md");
    assert_eq!(rule(&list, "sql.md")["layer"], "pack");

    let packs = json(&t.ok(&["packs", "list", "--json"]));
    let statuses: Vec<&str> = packs["packs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, ["locked", "locked", "not pinned"]);
    t.ok(&["packs", "sync", "--frozen"]);
    let outdated = t.run(&["packs", "outdated"]);
    assert_eq!(outdated.code, 0, "{}{}", outdated.stdout, outdated.stderr);
}

#[test]
fn a_new_commit_in_a_git_pack_fails_frozen_and_sync_keeps_the_lock_until_update() {
    let t = T::new();
    if !has("git") {
        eprintln!("skipped: git is needed for the git pack test");
        return;
    }
    let git = git_pack(&t);
    t.ok(&["packs", "add", &git]);
    let lock = std::fs::read_to_string(t.p("work/.wave/packs.lock")).unwrap();
    let next = push_commit(&t, "rules/new.md", "A new rule.\n");
    let frozen = t.run(&["packs", "sync", "--frozen"]);
    assert_eq!(frozen.code, 1, "{}{}", frozen.stdout, frozen.stderr);
    assert!(
        frozen
            .stderr
            .contains(&format!("main is now at {}", &next[..7])),
        "{}",
        frozen.stderr
    );
    assert_eq!(
        std::fs::read_to_string(t.p("work/.wave/packs.lock")).unwrap(),
        lock
    );
    let outdated = t.run(&["packs", "outdated", "--json"]);
    assert_eq!(outdated.code, 1);
    assert_eq!(json(&outdated)["packs"][0]["status"], "outdated");
    // A plain sync keeps the locked commit, and says the ref moved.
    let kept = t.ok(&["packs", "sync"]);
    assert!(kept.stderr.contains("has moved to"), "{}", kept.stderr);
    assert_eq!(
        std::fs::read_to_string(t.p("work/.wave/packs.lock")).unwrap(),
        lock
    );
    let ids = |t: &T| -> Vec<String> {
        json(&t.ok(&["list", "--json"]))["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(&t), ["security.md"]);
    t.ok(&["packs", "sync", "--update"]);
    assert!(std::fs::read_to_string(t.p("work/.wave/packs.lock"))
        .unwrap()
        .contains(&next));
    assert_eq!(ids(&t), ["new.md", "security.md"]);
    t.ok(&["packs", "sync", "--frozen"]);
}

#[test]
fn a_changed_file_in_an_installed_npm_pack_fails_frozen() {
    let t = T::new();
    if !has("npm") {
        eprintln!("skipped: npm is needed for the npm pack test");
        return;
    }
    npm_pack(&t);
    t.ok(&["packs", "add", "@acme/rules@^2"]);
    t.ok(&["packs", "sync", "--frozen"]);
    std::fs::write(
        t.p("work/node_modules/@acme/rules/rules/sql.md"),
        "Tampered.\n",
    )
    .unwrap();
    let frozen = t.run(&["packs", "sync", "--frozen", "--json"]);
    assert_eq!(frozen.code, 1);
    let j = json(&frozen);
    assert_eq!(j["packs"][0]["status"], "drift");
    assert!(j["packs"][0]["message"]
        .as_str()
        .unwrap()
        .contains("the installed package was changed"));
    // The range is npm's: 2.3.1 is not in ^3.
    t.write("work/.wave/config.toml", "packs = [\"@acme/rules@^3\"]\n");
    let out = t.run(&["packs", "sync"]);
    assert_eq!(out.code, 1);
    assert!(
        out.stderr
            .contains("node_modules has 2.3.1, which is not in ^3"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_frozen_sync_without_a_lock_or_with_an_extra_entry_fails() {
    let t = T::new();
    t.write(
        "work/node_modules/x-rules/package.json",
        r#"{"name":"x-rules","version":"1.0.0"}"#,
    );
    t.write("work/node_modules/x-rules/rules/a.md", "A.\n");
    t.write("work/.wave/config.toml", "packs = [\"x-rules\"]\n");
    let none = t.run(&["packs", "sync", "--frozen"]);
    assert_eq!(none.code, 1);
    assert!(
        none.stderr.contains("there is no .wave/packs.lock"),
        "{}",
        none.stderr
    );
    t.ok(&["packs", "sync"]);
    t.ok(&["packs", "sync", "--frozen"]);
    t.write("work/.wave/config.toml", "packs = []\n");
    let extra = t.run(&["packs", "sync", "--frozen"]);
    assert_eq!(extra.code, 1);
    assert!(
        extra
            .stderr
            .contains("x-rules is in the lock but not in the config"),
        "{}",
        extra.stderr
    );
}

#[test]
fn a_locked_policy_rule_survives_a_project_rule_and_a_disable_and_why_says_so() {
    let t = T::new();
    t.write("policy/rules/secrets.md", "Policy: never commit secrets.\n");
    t.write(
        "work/.wave/rules/secrets.md",
        "Project: secrets are fine.\n",
    );
    t.write("work/team/old.md", "Old team rule.\n");
    t.write(
        "work/.wave/config.toml",
        "packs = [\"./team\"]\n[rules]\ndisable = [\"secrets.md\", \"old.md\"]\n",
    );
    let list = json(&t.ok(&["list", "--json"]));
    let secrets = rule(&list, "secrets.md");
    assert_eq!(secrets["locked"], true);
    assert_eq!(secrets["layer"], "policy");
    assert_eq!(
        secrets["provenance"],
        format!("policy:{}", t.p("policy/rules/secrets.md").display())
    );
    assert_eq!(secrets["overrides"][0], "project:.wave/rules/secrets.md");
    assert!(list["rules"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["id"] != "old.md"));
    let validate = t.run(&["validate"]);
    assert!(
        validate
            .stdout
            .contains("warning[locked]: project:.wave/rules/secrets.md is not used"),
        "{}",
        validate.stdout
    );
    assert!(
        validate
            .stdout
            .contains("warning[locked]: disable 'secrets.md' is refused"),
        "{}",
        validate.stdout
    );
    assert!(
        validate
            .stdout
            .contains("info[disabled]: ./team:old.md is disabled"),
        "{}",
        validate.stdout
    );
    let why = t.ok(&["packs", "why", "secrets.md"]);
    assert!(why.stdout.contains("is used (locked)"), "{}", why.stdout);
    assert!(
        why.stdout.contains("project:.wave/rules/secrets.md"),
        "{}",
        why.stdout
    );
    assert!(why.stdout.contains("not used: policy:"), "{}", why.stdout);
    assert!(
        why.stdout.contains("disable 'secrets.md' is refused"),
        "{}",
        why.stdout
    );
    let doctor = json(&t.ok(&["doctor", "--json"]));
    let layers: Vec<&str> = doctor["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["layer"].as_str().unwrap())
        .collect();
    assert_eq!(layers.first(), Some(&"pack"), "{layers:?}");
    assert_eq!(layers.last(), Some(&"policy"), "{layers:?}");
    assert_eq!(doctor["overrides"][0]["id"], "secrets.md");
    assert!(
        doctor["layers"].to_string().contains("is refused"),
        "{}",
        doctor["layers"]
    );
    let text = t.ok(&["doctor"]).stdout;
    assert!(
        text.contains("secrets.md (policy:")
            && text.contains("overrides project:.wave/rules/secrets.md"),
        "{text}"
    );
    let listed = t.ok(&["list"]).stdout;
    assert!(
        listed.contains("FROM") && listed.contains("policy  "),
        "{listed}"
    );
    let remove = t.run(&["remove", "secrets.md", "--scope", "user"]);
    assert!(
        remove.stderr.contains("locked policy rule"),
        "{}",
        remove.stderr
    );
    t.write("work/team/keep.md", "Keep.\n");
    let remove = t.run(&["remove", "keep"]);
    assert!(
        remove.stderr.contains("add it to `disable`"),
        "{}",
        remove.stderr
    );
    let m = json(&t.ok(&["match", "--all", "--json", "x.ts"]));
    let text = m.to_string();
    assert!(text.contains("\"provenance\":\"policy:"), "{text}");
    assert!(
        m["layers"]
            .to_string()
            .contains("./team:old.md is disabled"),
        "{}",
        m["layers"]
    );
    let all = t.ok(&["match", "--all", "x.ts"]).stdout;
    assert!(
        all.contains("locked: disable 'secrets.md' is refused"),
        "{all}"
    );
    assert!(
        listed.contains("disabled: ./team:old.md is disabled"),
        "{listed}"
    );
}

#[test]
fn bad_specs_and_configs_are_clear_errors() {
    let t = T::new();
    let r = t.run(&["packs", "add", "Not A Name"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("is not an npm package name"),
        "{}",
        r.stderr
    );
    t.write("work/.wave/config.toml", "packs = [\"@acme/nothing\"]\n");
    let add = t.ok(&["packs", "add", "@acme/other@^1"]);
    assert!(
        add.stdout.contains("npm install --save-dev @acme/other@^1"),
        "{}",
        add.stdout
    );
    t.write("work/pnpm-lock.yaml", "lockfileVersion: '9.0'\n");
    let again = json(&t.ok(&["packs", "add", "@acme/other@^1", "--json"]));
    assert_eq!(again["added"], false);
    assert_eq!(again["install"], "pnpm add --save-dev @acme/other@^1");
    let sync = t.run(&["packs", "sync"]);
    assert_eq!(sync.code, 1);
    assert!(
        sync.stderr.contains("@acme/nothing is not installed"),
        "{}",
        sync.stderr
    );
    let v = t.run(&["validate"]);
    assert_eq!(v.code, 1);
    assert!(v.stdout.contains("error[pack-missing]"), "{}", v.stdout);
}

#[test]
fn export_writes_pack_rules_with_their_provenance_and_leaves_the_policy_out() {
    let t = T::new();
    t.write(
        "work/team/rules/style.md",
        "---\npaths: src/**\n---\nTeam style.\n",
    );
    t.write(
        "work/team/package.json",
        r#"{"name":"@acme/team","version":"1.2.0"}"#,
    );
    t.write("policy/rules/secrets.md", "Policy secrets.\n");
    t.write("work/.wave/config.toml", "packs = [\"./team\"]\n");
    t.ok(&["export", "--to", "cursor"]);
    let file = std::fs::read_to_string(t.p("work/.cursor/rules/style.mdc")).unwrap();
    assert!(file.contains("from @acme/team@1.2.0:style.md."), "{file}");
    assert!(file.contains("Team style."), "{file}");
    assert!(!t.p("work/.cursor/rules/secrets.mdc").exists());
    t.ok(&["export", "--to", "cursor", "--check"]);
}

#[test]
fn the_policy_has_its_own_packs_lock_and_node_modules() {
    let t = T::new();
    t.write(
        "policy/node_modules/@acme/policy/package.json",
        r#"{"name":"@acme/policy","version":"1.0.0"}"#,
    );
    t.write(
        "policy/node_modules/@acme/policy/rules/audit.md",
        "Policy pack: log every access.\n",
    );
    t.write("policy/config.toml", "packs = [\"@acme/policy@1\"]\n");
    // The project's node_modules does not count for the policy.
    t.write(
        "work/node_modules/@acme/other/package.json",
        r#"{"name":"@acme/other","version":"9.9.9"}"#,
    );
    let synced = t.ok(&["packs", "sync", "--policy"]);
    assert!(synced.stdout.contains("wrote"), "{}", synced.stdout);
    assert!(std::fs::read_to_string(t.p("policy/packs.lock"))
        .unwrap()
        .contains("version = \"1.0.0\""));
    assert!(!t.p("work/.wave/packs.lock").exists());
    t.ok(&["packs", "sync", "--policy", "--frozen"]);
    let list = json(&t.ok(&["packs", "list", "--policy", "--json"]));
    assert_eq!(list["packs"][0]["status"], "locked");
    assert_eq!(list["packs"][0]["rules"], 1);
    let rules = json(&t.ok(&["list", "--json"]));
    let audit = rule(&rules, "audit.md");
    assert_eq!(audit["provenance"], "policy:@acme/policy@1.0.0:audit.md");
    assert_eq!(audit["locked"], true);
}
