//! `hook install` and `hook uninstall` for every agent: the one entry that
//! the command line and `eval` (in its scratch copy) call.

use crate::base::args::{HookAgent, InstallArgs};
use crate::base::env::{Env, Output};

/// The agent's hooks, then the sources `--sources` chose (into the
/// project's `.wave/config.toml`: see [`super::settings::save_sources`]).
pub fn install(env: &Env, agent: HookAgent, args: &InstallArgs) -> Output {
    // The sources first: a config file that is not TOML stops the install
    // before any hook is written.
    let saved = match super::settings::save_sources(env, args.scope) {
        Ok(line) => line,
        Err(fail) => return fail,
    };
    let mut out = if agent == HookAgent::Claude {
        super::settings::install(env, args)
    } else {
        super::agent_install::install(env, agent, args)
    };
    out.stdout.push_str(&saved);
    out
}

/// Our hooks out of the agent's settings (and nothing else).
pub fn uninstall(env: &Env, agent: HookAgent, args: &InstallArgs) -> Output {
    if agent == HookAgent::Claude {
        super::settings::uninstall(env, args)
    } else {
        super::agent_install::uninstall(env, agent, args)
    }
}
