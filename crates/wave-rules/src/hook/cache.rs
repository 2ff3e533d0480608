//! Loading the rules for a hook.

use crate::{Env, Output};

/// The rules, loaded through the CLI's shared roots.
pub fn load(env: &Env, _out: &mut Output) -> memory_rules::Loaded {
    memory_rules::load(&env.config)
}
