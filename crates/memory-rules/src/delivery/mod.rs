//! Delivery: the agent event every road maps onto, what it touched, one
//! conversation's session and what is due, the responder, the renderer,
//! the delivery log and token counts.

pub mod conversation;
pub mod conversations;
pub mod delivery_log;
pub mod event;
pub mod export;
pub mod read_rule_tool;
pub mod render;
pub mod responder;
pub mod rules_at_edit;
pub mod session;
pub mod skills;
pub mod tokens;
pub mod tool_call;
pub mod touched;
