//! Delivery: the agent event every road maps onto, what it touched, one
//! conversation's session and what is due, the responder, the renderer,
//! the delivery log, token counts and export to every agent's files.
//!
//! Public: the event and the responder's types below, and the namespaces
//! [`delivery_log`], [`export`], [`read_rule_tool`], [`render`],
//! [`telemetry`] and [`tokens`]; [`enforce`] is the rule set's verdict on a tool call.

pub mod delivery_log;
pub mod export;
pub mod read_rule_tool;
pub mod render;
pub mod telemetry;
mod token_cache;
pub mod tokens;

pub(crate) mod conversation;
pub(crate) mod conversations;
pub(crate) mod event;
pub(crate) mod responder;
pub(crate) mod rules_at_edit;
pub(crate) mod session;
pub(crate) mod skills;
pub(crate) mod tool_call;
pub(crate) mod touched;

pub use crate::formats::activation_label;
pub use crate::load::rule_index::RulesNeeded;
pub use crate::rules::rule_set::enforcement;
pub use conversation::Conversation;
pub use conversations::Conversations;
pub use event::{Event, EventKind};
pub use responder::{file_contents, Answer, Given, Memory, Reminder, Responder};
pub use session::{rule_version, Budget, Due, Session, Start, SESSION_VERSION};
pub use tool_call::{ToolCall, ToolKind};
pub use touched::{
    patch_files, tool_files, Touched, COMMAND_KEYS, FILE_KEYS, FILE_LIST_KEYS, PATCH_KEYS,
};
