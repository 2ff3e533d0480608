//! `wave-rules init` and `wave-rules completions`: getting a project
//! started (`wave-rules memory` is `memory.rs`).

use crate::base::args::{
    CompletionsArgs, HookClient, InitArgs, InstallArgs, McpInstallArgs, ScopeArg,
};
use crate::base::display;
use crate::base::env::{Env, Output, EXIT_FAILURE, EXIT_TROUBLE};
use memory_rules::Scope;

/// The example rules `init` writes: one of each activation kind, each one
/// valid as written (a test runs `validate` on them).
pub const EXAMPLES: [(&str, &str); 5] = [
    (
        "project.md",
        "---\npriority: 10\n---\n# About this project\n\n(Example rule, always active: no `paths`, no `topics`, so every session starts with it. Keep such rules short.)\n\nSay here what every session must know: how to build and test, where things live, what never to do.\n",
    ),
    (
        "typescript.md",
        "---\npaths:\n  - \"src/**/*.{ts,tsx}\"\n---\n(Example rule, active when a file matching `paths` is in the agent's context.)\n\nUse strict TypeScript: no `any`; exported functions declare their return type.\n",
    ),
    (
        "database.md",
        "---\ntopics: [database, sql, migration]\n---\n(Example rule, active when the prompt mentions one of its `topics`.)\n\nNever edit a migration that has been applied; write a new one.\n",
    ),
    (
        "release.md",
        "---\nactivation: on-request\ndescription: How to cut a release (version, changelog, tag)\n---\n(Example rule, on request: the model is offered its `description` and reads the rule when it judges it relevant.)\n\nBump the version in package.json, add a CHANGELOG entry, then tag vX.Y.Z.\n",
    ),
    (
        "review.md",
        "---\nactivation: manual\n---\n(Example rule, manual: active only when a prompt mentions it as @review.)\n\nReview checklist: a test for every change, no debug output left, docs updated.\n",
    ),
];

/// `init`: the project's rules directory with the examples (an existing
/// file is kept as it is), then the hooks and MCP servers asked for.
pub fn init(env: &Env, args: &InitArgs) -> Output {
    let Some(source) = env.config.write_source(Scope::Project) else {
        return Output::fail(
            EXIT_FAILURE,
            "no project source in the wave format to create (drop --source/--sources, or add project=.wave/rules)",
        );
    };
    let dir = source.dir.clone();
    if let Err(e) = std::fs::create_dir_all(&dir) {
        return Output::fail(
            EXIT_TROUBLE,
            format!("cannot create {}: {e}", dir.display()),
        );
    }
    let workdir = &env.config.workdir;
    let (mut created, mut kept) = (Vec::new(), Vec::new());
    for (id, text) in EXAMPLES {
        let file = dir.join(id);
        match super::edit::create_new(&file, text) {
            Ok(true) => created.push(id),
            Ok(false) => kept.push(id),
            Err(out) => return out,
        }
    }
    let shown = display::show(&dir, workdir);
    let mut out = Output::default();
    let mut installs = Vec::new();
    if let Some(HookClient::Claude) = args.hooks {
        let a = InstallArgs {
            scope: ScopeArg::Project,
            command: None,
            edit_distance: None,
        };
        installs.push((
            "hooks claude".to_string(),
            crate::hook::settings::install(env, &a),
        ));
    }
    for &client in &args.mcp {
        let a = McpInstallArgs {
            client,
            scope: Some(ScopeArg::Project),
            command: None,
            server_args: Vec::new(),
        };
        installs.push((
            format!("mcp {}", client.as_str()),
            crate::mcp::client_install::install(env, &a),
        ));
    }
    if env.json {
        let installed: Vec<_> = installs
            .iter()
            .map(|(what, o)| {
                serde_json::json!({
                    "what": what,
                    "ok": o.code == 0,
                    "output": serde_json::from_str::<serde_json::Value>(&o.stdout)
                        .unwrap_or_else(|_| o.stdout.clone().into()),
                    "error": o.stderr,
                })
            })
            .collect();
        out.stdout = display::json_text(&serde_json::json!({
            "root": workdir.to_string_lossy(),
            "dir": shown,
            "created": created,
            "kept": kept,
            "installed": installed,
        }));
    } else {
        out.stdout.push_str(&display::line(&env.root_line()));
        for id in &created {
            out.stdout
                .push_str(&display::line(&format!("created {shown}/{id}")));
        }
        for id in &kept {
            out.stdout.push_str(&display::line(&format!(
                "kept {shown}/{id} (it exists; not overwritten)"
            )));
        }
        for (_, o) in &installs {
            out.stdout.push_str(&o.stdout);
        }
        out.stdout.push_str(
            "next: edit or delete the examples, then `wave-rules list` and `wave-rules validate`\n",
        );
    }
    for (_, o) in &installs {
        out.stderr.push_str(&o.stderr);
        out.code = out.code.max(o.code);
    }
    out
}

/// `completions <shell>`: the script of the command line `cmd` on stdout.
pub fn completions(args: &CompletionsArgs, mut cmd: clap::Command) -> Output {
    let mut buf = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "wave-rules", &mut buf);
    Output {
        stdout: String::from_utf8_lossy(&buf).into_owned(),
        ..Output::default()
    }
}
