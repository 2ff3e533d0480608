//! The agents `eval` runs, each headless with its own command line, pointed
//! at the recording proxy: how to find it, its command, its environment and
//! the files it needs in its scratch home, and how its hooks are installed.

use crate::base::args::HookAgent;
use clap::ValueEnum;
use std::path::{Path, PathBuf};

/// An agent `eval` runs (`--agent`).
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum EvalAgent {
    /// Claude Code (`claude -p`)
    Claude,
    /// OpenAI Codex CLI (`codex exec`)
    Codex,
    /// Gemini CLI (`gemini -p`)
    Gemini,
    /// GitHub Copilot CLI (`copilot -p`)
    Copilot,
    /// opencode (`opencode run`)
    Opencode,
    /// Any program that takes its model's base URL from the environment (`--cmd`)
    Command,
}

/// How one run starts its agent.
#[derive(Debug, Clone)]
pub struct Launch {
    pub program: PathBuf,
    pub args: Vec<String>,
    /// The whole environment (nothing else of ours is passed).
    pub env: Vec<(String, String)>,
    /// Files written before the run, relative to the scratch home.
    pub home_files: Vec<(String, String)>,
}

/// What a run needs to build its [`Launch`].
pub struct RunPlace<'a> {
    pub work: &'a Path,
    pub home: &'a Path,
    pub proxy_url: &'a str,
    /// This turn's prompt.
    pub prompt: &'a str,
    /// The turn (1-based): after the first, the agent continues its
    /// conversation by its own flag ([`EvalAgent::continuation`]).
    pub turn: usize,
    /// The turns in all, and the conversation's id (the same in each turn
    /// of one run), for a command agent.
    pub turns: usize,
    pub conversation: &'a str,
    pub model: Option<&'a str>,
    pub extra_args: &'a [String],
    /// Variables copied from our environment (the keys the agent needs).
    pub pass_env: &'a [String],
    /// `--agent command`: the shell command line.
    pub cmd: Option<&'a str>,
}

/// The variables every agent gets from ours when they are set: the keys of
/// the APIs they call, and what a shell needs.
pub const PASSED_ENV: [&str; 10] = [
    "PATH",
    "LANG",
    "LC_ALL",
    "TMPDIR",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "COPILOT_PROVIDER_API_KEY",
];

impl EvalAgent {
    /// The agent's name on the command line and in results.
    pub fn as_str(self) -> &'static str {
        match self {
            EvalAgent::Claude => "claude",
            EvalAgent::Codex => "codex",
            EvalAgent::Gemini => "gemini",
            EvalAgent::Copilot => "copilot",
            EvalAgent::Opencode => "opencode",
            EvalAgent::Command => "command",
        }
    }

    /// The arguments that make a turn after the first continue the run's
    /// conversation, each agent's own (the most recent one of the scratch
    /// home and copy: a run's turns are its only conversation). Codex's
    /// `resume --last` comes last, before the prompt. A command agent reads
    /// `WAVE_EVAL_TURN` and `WAVE_EVAL_CONVERSATION` instead.
    pub fn continuation(self) -> &'static [&'static str] {
        match self {
            EvalAgent::Claude | EvalAgent::Copilot | EvalAgent::Opencode => &["--continue"],
            EvalAgent::Codex => &["resume", "--last"],
            EvalAgent::Gemini => &["--resume", "latest"],
            EvalAgent::Command => &[],
        }
    }

    /// The agent whose hooks `hook install --agent` writes, for the agents
    /// with hooks.
    pub fn hook_agent(self) -> Option<HookAgent> {
        match self {
            EvalAgent::Claude => Some(HookAgent::Claude),
            EvalAgent::Codex => Some(HookAgent::Codex),
            EvalAgent::Gemini => Some(HookAgent::Gemini),
            EvalAgent::Copilot => Some(HookAgent::Copilot),
            EvalAgent::Opencode | EvalAgent::Command => None,
        }
    }

    /// The agent's program: `--agent-bin`, else its command on PATH, else
    /// the project's `node_modules/.bin`. An error names the agent.
    pub fn find(self, agent_bin: Option<&Path>, workdir: &Path) -> Result<PathBuf, String> {
        if self == EvalAgent::Command {
            return Ok(PathBuf::from("sh"));
        }
        if let Some(bin) = agent_bin {
            return if bin.is_file() {
                Ok(bin.to_path_buf())
            } else {
                Err(format!(
                    "--agent-bin {} for {} is not a file",
                    bin.display(),
                    self.as_str()
                ))
            };
        }
        let name = self.as_str();
        let on_path = std::env::var_os("PATH")
            .into_iter()
            .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
            .map(|dir| dir.join(name))
            .find(|p| p.is_file());
        on_path
            .or_else(|| Some(workdir.join("node_modules/.bin").join(name)).filter(|p| p.is_file()))
            .ok_or_else(|| format!("agent '{name}' is not installed: no '{name}' on PATH or in node_modules/.bin (install it, or pass --agent-bin PATH)"))
    }

    /// How one run starts the agent at `program`.
    pub fn launch(self, program: &Path, at: &RunPlace) -> Launch {
        let mut l = Launch {
            program: program.to_path_buf(),
            args: Vec::new(),
            env: base_env(at),
            home_files: Vec::new(),
        };
        let model = at.model;
        match self {
            EvalAgent::Claude => claude(&mut l, at, model),
            EvalAgent::Codex => codex(&mut l, at, model),
            EvalAgent::Gemini => gemini(&mut l, at, model),
            EvalAgent::Copilot => copilot(&mut l, at, model),
            EvalAgent::Opencode => opencode(&mut l, at, model),
            EvalAgent::Command => command(&mut l, at, model),
        }
        l.args.extend(at.extra_args.iter().cloned());
        if at.turn > 1 {
            l.arg(self.continuation());
        }
        if self == EvalAgent::Codex {
            l.args.push(at.prompt.into());
        }
        let (program, args) = node_script(&l.program, std::mem::take(&mut l.args));
        Launch { program, args, ..l }
    }
}

impl Launch {
    fn set(&mut self, key: &str, value: &str) {
        self.env.push((key.to_string(), value.to_string()));
    }

    fn arg(&mut self, args: &[&str]) {
        self.args.extend(args.iter().map(|a| a.to_string()));
    }
}

/// `claude -p PROMPT`, unattended, every tool allowed (root needs IS_SANDBOX for that).
fn claude(l: &mut Launch, at: &RunPlace, model: Option<&str>) {
    l.set("ANTHROPIC_BASE_URL", at.proxy_url);
    for key in [
        "DISABLE_TELEMETRY",
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC",
        "DISABLE_AUTOUPDATER",
        "IS_SANDBOX",
    ] {
        l.set(key, "1");
    }
    l.arg(&[
        "-p",
        at.prompt,
        "--output-format",
        "text",
        "--permission-mode",
        "bypassPermissions",
    ]);
    if let Some(m) = model {
        l.arg(&["--model", m]);
    }
}

/// `codex exec ... PROMPT` with a provider for the proxy (the Responses API).
fn codex(l: &mut Launch, at: &RunPlace, model: Option<&str>) {
    l.set("CODEX_HOME", &at.home.join(".codex").to_string_lossy());
    l.arg(&[
        "exec",
        "--trust",
        "--dangerously-bypass-hook-trust",
        "--skip-git-repo-check",
        "-c",
        "model_provider=wave_eval",
        "-c",
    ]);
    l.args.push(format!("model_providers.wave_eval={{name=\"wave eval\",base_url=\"{}\",wire_api=\"responses\",env_key=\"OPENAI_API_KEY\"}}", at.proxy_url));
    if let Some(m) = model {
        l.arg(&["-m", m]);
    }
    l.home_files.push((".codex/.keep".into(), String::new()));
}

/// `gemini --yolo -p PROMPT`, an API key chosen in its home's settings.
fn gemini(l: &mut Launch, at: &RunPlace, model: Option<&str>) {
    l.set("GOOGLE_GEMINI_BASE_URL", at.proxy_url);
    l.set("GEMINI_CLI_TRUST_WORKSPACE", "true");
    l.set("GEMINI_TELEMETRY_ENABLED", "false");
    l.set("NO_BROWSER", "true");
    l.home_files.push((
        ".gemini/settings.json".into(),
        r#"{"security":{"auth":{"selectedType":"gemini-api-key"}}}"#.into(),
    ));
    if let Some(m) = model {
        l.arg(&["-m", m]);
    }
    l.arg(&["--yolo", "-p", at.prompt]);
}

/// `copilot -p PROMPT --allow-all-tools` with its own provider (offline mode), the copy trusted.
fn copilot(l: &mut Launch, at: &RunPlace, model: Option<&str>) {
    l.set("COPILOT_OFFLINE", "true");
    l.set("COPILOT_PROVIDER_BASE_URL", at.proxy_url);
    if let Some(m) = model {
        l.set("COPILOT_MODEL", m);
    }
    let trusted = serde_json::json!({ "trusted_folders": [at.work] });
    l.home_files
        .push((".copilot/config.json".into(), trusted.to_string()));
    l.arg(&["-p", at.prompt, "--allow-all-tools"]);
}

/// `opencode run PROMPT` with a provider for the proxy (OPENCODE_CONFIG_CONTENT).
fn opencode(l: &mut Launch, at: &RunPlace, model: Option<&str>) {
    let model = model.unwrap_or("default");
    l.set(
        "OPENCODE_CONFIG_CONTENT",
        &opencode_config(at.proxy_url, model).to_string(),
    );
    l.set("OPENCODE_DISABLE_AUTOUPDATE", "1");
    l.set("OPENCODE_DISABLE_MODELS_FETCH", "1");
    l.arg(&["run", at.prompt, "--model", &format!("wave_eval/{model}")]);
}

/// `sh -c CMD`, the proxy in the base URL variables SDKs read, the prompt in
/// WAVE_EVAL_PROMPT, the turn and the conversation's id in WAVE_EVAL_TURN,
/// WAVE_EVAL_TURNS and WAVE_EVAL_CONVERSATION.
fn command(l: &mut Launch, at: &RunPlace, model: Option<&str>) {
    for key in [
        "WAVE_EVAL_BASE_URL",
        "OPENAI_BASE_URL",
        "ANTHROPIC_BASE_URL",
        "GOOGLE_GEMINI_BASE_URL",
    ] {
        l.set(key, at.proxy_url);
    }
    l.set("WAVE_EVAL_PROMPT", at.prompt);
    l.set("WAVE_EVAL_TURN", &at.turn.to_string());
    l.set("WAVE_EVAL_TURNS", &at.turns.to_string());
    l.set("WAVE_EVAL_CONVERSATION", at.conversation);
    if let Some(m) = model {
        l.set("WAVE_EVAL_MODEL", m);
    }
    l.arg(&["-c", at.cmd.unwrap_or("")]);
}

/// The environment every agent starts from: a scratch HOME, the variables
/// of [`PASSED_ENV`] and `--pass-env` that are set, and a dummy key for each
/// API whose key is not (a local model needs none; a hosted one says so).
fn base_env(at: &RunPlace) -> Vec<(String, String)> {
    let home = at.home.to_string_lossy().into_owned();
    let mut env = vec![
        ("HOME".to_string(), home.clone()),
        ("USERPROFILE".to_string(), home),
    ];
    for name in PASSED_ENV
        .iter()
        .copied()
        .chain(at.pass_env.iter().map(String::as_str))
    {
        if let Some(v) = std::env::var_os(name) {
            env.push((name.to_string(), v.to_string_lossy().into_owned()));
        }
    }
    for (key, dummy) in [
        ("ANTHROPIC_API_KEY", "sk-ant-wave-eval"),
        ("OPENAI_API_KEY", "sk-wave-eval"),
        ("GEMINI_API_KEY", "wave-eval"),
    ] {
        let has = |name: &str| env.iter().any(|(k, _)| k == name);
        // Claude Code takes either variable: a token set needs no key.
        let covered = has(key) || (key == "ANTHROPIC_API_KEY" && has("ANTHROPIC_AUTH_TOKEN"));
        if !covered {
            env.push((key.to_string(), dummy.to_string()));
        }
    }
    env
}

/// opencode's provider for the proxy (an OpenAI-compatible endpoint).
fn opencode_config(proxy_url: &str, model: &str) -> serde_json::Value {
    serde_json::json!({
        "provider": { "wave_eval": {
            "npm": "@ai-sdk/openai-compatible",
            "name": "wave eval",
            "options": { "baseURL": proxy_url, "apiKey": "{env:OPENAI_API_KEY}" },
            "models": { model: { "name": model } },
        } },
        "model": format!("wave_eval/{model}"),
        "small_model": format!("wave_eval/{model}"),
    })
}

/// A JavaScript entry point runs under the Node that runs us (`node` on PATH).
fn node_script(program: &Path, args: Vec<String>) -> (PathBuf, Vec<String>) {
    let is_js = program
        .extension()
        .is_some_and(|e| e == "js" || e == "mjs" || e == "cjs");
    if is_js {
        let mut all = vec![program.to_string_lossy().into_owned()];
        all.extend(args);
        (PathBuf::from("node"), all)
    } else {
        (program.to_path_buf(), args)
    }
}
