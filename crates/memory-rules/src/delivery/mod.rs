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
pub mod tokens;

#[cfg(feature = "internals")]
pub mod conversation;
#[cfg(not(feature = "internals"))]
pub(crate) mod conversation;
#[cfg(feature = "internals")]
pub mod conversations;
#[cfg(not(feature = "internals"))]
pub(crate) mod conversations;
#[cfg(feature = "internals")]
pub mod event;
#[cfg(not(feature = "internals"))]
pub(crate) mod event;
#[cfg(feature = "internals")]
pub mod responder;
#[cfg(not(feature = "internals"))]
pub(crate) mod responder;
#[cfg(feature = "internals")]
pub mod rules_at_edit;
#[cfg(not(feature = "internals"))]
pub(crate) mod rules_at_edit;
#[cfg(feature = "internals")]
pub mod session;
#[cfg(not(feature = "internals"))]
pub(crate) mod session;
#[cfg(feature = "internals")]
pub mod skills;
#[cfg(not(feature = "internals"))]
pub(crate) mod skills;
#[cfg(feature = "internals")]
pub mod tool_call;
#[cfg(not(feature = "internals"))]
pub(crate) mod tool_call;
#[cfg(feature = "internals")]
pub mod touched;
#[cfg(not(feature = "internals"))]
pub(crate) mod touched;

pub use crate::formats::kind as tool_kind;
pub use crate::rules::rule_set::enforcement as enforce;
pub use conversation::Conversation;
pub use conversations::Conversations;
pub use event::{Event, EventKind};
pub use responder::{file_contents, Answer, Given, Memory, Reminder, Responder};
pub use session::{rule_version, Budget, Due, Session, Start, SESSION_VERSION};
pub use tool_call::{ToolCall, ToolKind};
pub use touched::{
    patch_files, tool_files, Touched, COMMAND_KEYS, FILE_KEYS, FILE_LIST_KEYS, PATCH_KEYS,
};
