//! A subagent is a conversation of its own, at the hook: each agent's
//! payloads as the pinned agents send them (recorded: docs/subagents.md),
//! through the real binary. The subagent starts with the always-on rules
//! and its task's topic rules, its own reads bring the path rules its parent
//! had, nothing it gets counts for its parent, and its stop drops it.

mod common;
use common::*;
use serde_json::{json, Value};
use std::path::Path;

const GENERAL: &str = "[general.md] Keep functions small.";
const DB: &str = "[db.md] The customer table is read-only.";
const API: &str = "[api.md] Validate input.";

fn project() -> Tree {
    let t = Tree::made();
    t.project("general.md", "Keep functions small.\n");
    t.project(
        "db.md",
        "---\ntopics: [customer]\n---\nThe customer table is read-only.\n",
    );
    t.project("api.md", "---\npaths: src/api/**\n---\nValidate input.\n");
    t
}

/// Runs one hook event of `agent` with `payload`; the context it gives.
fn hook(t: &Tree, agent: &str, event: &str, payload: Value) -> Value {
    let state = t.workdir().join("state");
    let (out, err, code) = hook_run(
        &t.workdir(),
        &state,
        &["hook", "--agent", agent, event],
        payload.to_string().as_bytes(),
    );
    assert_eq!(code, 0, "{agent} {event}: {err}");
    assert!(!err.contains("error"), "{agent} {event}: {err}");
    if out.trim().is_empty() {
        Value::Null
    } else {
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{agent} {event}: {e}: {out}"))
    }
}

fn context(v: &Value) -> String {
    v.pointer("/hookSpecificOutput/additionalContext")
        .or_else(|| v.get("additionalContext"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

fn state_files(t: &Tree) -> usize {
    std::fs::read_dir(t.workdir().join("state/sessions"))
        .map(|d| {
            d.flatten()
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .count()
        })
        .unwrap_or(0)
}

fn read(work: &Path, extra: Value) -> Value {
    let mut v = json!({"session_id": "s1", "cwd": work, "hook_event_name": "PostToolUse", "tool_name": "Read", "tool_input": {"file_path": work.join("src/api/orders.ts")}});
    for (k, x) in extra.as_object().unwrap() {
        v[k] = x.clone();
    }
    v
}

#[test]
fn claude_code_a_subagent_gets_its_own_rules_and_its_stop_drops_it() {
    let t = project();
    let w = t.workdir();
    let start = hook(
        &t,
        "claude",
        "SessionStart",
        json!({"session_id": "s1", "cwd": w, "source": "startup"}),
    );
    assert!(context(&start).contains(GENERAL));
    assert!(context(&hook(&t, "claude", "PostToolUse", read(&w, json!({})))).contains(API));
    // The Agent tool announces the task; SubagentStart carries none.
    let agent = json!({"session_id": "s1", "cwd": w, "hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_input": {"description": "d", "prompt": "check the customer orders", "subagent_type": "general-purpose"}});
    assert_eq!(
        hook(&t, "claude", "PreToolUse", agent),
        Value::Null,
        "nothing refuses it"
    );
    let sub = hook(
        &t,
        "claude",
        "SubagentStart",
        json!({"session_id": "s1", "cwd": w, "agent_id": "a1", "agent_type": "general-purpose", "hook_event_name": "SubagentStart"}),
    );
    assert_eq!(sub["hookSpecificOutput"]["hookEventName"], "SubagentStart");
    let text = context(&sub);
    assert!(text.contains(GENERAL) && text.contains(DB), "{text}");
    // Its own read: the path rule its parent had.
    let inside = read(
        &w,
        json!({"agent_id": "a1", "agent_type": "general-purpose"}),
    );
    assert!(context(&hook(&t, "claude", "PostToolUse", inside.clone())).contains(API));
    assert_eq!(
        hook(&t, "claude", "PostToolUse", inside),
        Value::Null,
        "once"
    );
    let files = state_files(&t);
    hook(
        &t,
        "claude",
        "SubagentStop",
        json!({"session_id": "s1", "cwd": w, "agent_id": "a1", "agent_type": "general-purpose", "stop_hook_active": false, "agent_transcript_path": "/x.jsonl"}),
    );
    assert_eq!(
        state_files(&t),
        files - 1,
        "its state is dropped at its stop"
    );
    // The parent got nothing of it, and is given nothing again.
    assert_eq!(
        hook(&t, "claude", "PostToolUse", read(&w, json!({}))),
        Value::Null
    );
    let prompt = hook(
        &t,
        "claude",
        "UserPromptSubmit",
        json!({"session_id": "s1", "cwd": w, "prompt": "go on"}),
    );
    assert!(
        !context(&prompt).contains(GENERAL),
        "the parent's always-on rule is not repeated"
    );
}

#[test]
fn codex_and_copilot_cli_subagents_get_their_tasks_topics_at_their_own_prompt() {
    let t = project();
    let w = t.workdir();
    // Codex: SubagentStart (no task), then the child's own UserPromptSubmit.
    let sub = hook(
        &t,
        "codex",
        "SubagentStart",
        json!({"session_id": "x1", "cwd": w, "agent_id": "c1", "agent_type": "default", "hook_event_name": "SubagentStart", "transcript_path": "/c1.jsonl", "turn_id": "t"}),
    );
    let text = context(&sub);
    assert!(text.contains(GENERAL) && !text.contains(DB), "{text}");
    let prompt = hook(
        &t,
        "codex",
        "UserPromptSubmit",
        json!({"session_id": "x1", "cwd": w, "agent_id": "c1", "agent_type": "default", "prompt": "check the customer orders"}),
    );
    let text = context(&prompt);
    assert!(text.contains(DB) && !text.contains(GENERAL), "{text}");
    // Copilot CLI: the child's own events carry its id as sessionId.
    let sub = hook(
        &t,
        "copilot",
        "SubagentStart",
        json!({"sessionId": "p1", "cwd": w, "agentName": "general-purpose", "agentId": "k1", "agentType": "general-purpose", "parentAgentId": "p1"}),
    );
    assert_eq!(sub, json!({"additionalContext": context(&sub)}));
    assert!(context(&sub).contains(GENERAL));
    let view = json!({"sessionId": "k1", "cwd": w, "toolName": "view", "toolArgs": {"path": w.join("src/api/orders.ts")}, "agentId": "k1", "agentType": "general-purpose", "parentAgentId": "p1"});
    assert!(context(&hook(&t, "copilot", "PostToolUse", view.clone())).contains(API));
    assert_eq!(hook(&t, "copilot", "PostToolUse", view), Value::Null);
    // The main conversation still gets it.
    let main = json!({"sessionId": "p1", "cwd": w, "toolName": "view", "toolArgs": {"path": w.join("src/api/orders.ts")}});
    assert!(context(&hook(&t, "copilot", "PostToolUse", main)).contains(API));
}

#[test]
fn gemini_cli_a_subagent_starts_at_invoke_agent_its_task_rewritten_and_its_tools_are_its_own() {
    let t = project();
    let w = t.workdir();
    let payload = |event: &str, tool: &str, input: Value, ts: &str| json!({"session_id": "g1", "transcript_path": "", "cwd": w, "hook_event_name": event, "timestamp": ts, "tool_name": tool, "tool_input": input});
    let task = json!({"agent_name": "generalist", "prompt": "check the customer orders"});
    let before = hook(
        &t,
        "gemini",
        "PreToolUse",
        payload(
            "BeforeTool",
            "invoke_agent",
            task.clone(),
            "2026-01-01T00:00:01Z",
        ),
    );
    let rewritten = before["hookSpecificOutput"]["tool_input"].clone();
    assert_eq!(
        rewritten["agent_name"], "generalist",
        "the whole input, as Gemini CLI validates it"
    );
    let prompt = rewritten["prompt"].as_str().unwrap();
    assert!(
        prompt.contains(GENERAL)
            && prompt.contains(DB)
            && prompt.ends_with("\n\ncheck the customer orders"),
        "{prompt}"
    );
    // Its read (Gemini CLI sends nothing of the subagent): the subagent's.
    let read = payload(
        "AfterTool",
        "read_file",
        json!({"file_path": "src/api/orders.ts"}),
        "2026-01-01T00:00:02Z",
    );
    assert!(context(&hook(&t, "gemini", "PostToolUse", read.clone())).contains(API));
    assert_eq!(hook(&t, "gemini", "PostToolUse", read.clone()), Value::Null);
    // Its stop: the AfterTool of invoke_agent. Then the main conversation's read gets the rule.
    hook(
        &t,
        "gemini",
        "PostToolUse",
        payload(
            "AfterTool",
            "invoke_agent",
            rewritten,
            "2026-01-01T00:00:03Z",
        ),
    );
    assert!(context(&hook(&t, "gemini", "PostToolUse", read)).contains(API));
}

#[test]
fn live_subagents_are_bounded_the_oldest_forgotten() {
    let t = project();
    let w = t.workdir();
    let max = memory_rules::base::limits::MAX_SUBAGENTS;
    for i in 0..max + 3 {
        hook(
            &t,
            "claude",
            "SubagentStart",
            json!({"session_id": "s9", "cwd": w, "agent_id": format!("a{i}"), "agent_type": "x"}),
        );
    }
    // The session's own state, and the live subagents' only.
    assert_eq!(state_files(&t), max + 1);
}

#[test]
fn from_saved_rules_a_subagent_gets_its_waiting_tasks_topic_rules_and_its_files_path_rules() {
    let t = project();
    t.project(
        "billing.md",
        "---\ntopics: [billing]\n---\nBilling is in cents.\n",
    );
    t.project(
        "docs.md",
        "---\npaths: docs/**/*.md\n---\nWrite docs plainly.\n",
    );
    let w = t.workdir();
    std::fs::create_dir_all(w.join("state")).unwrap();
    age_tree(&w);
    age_tree(&t.home());
    let start = json!({"session_id": "s1", "cwd": w, "source": "startup"});
    assert!(context(&hook(&t, "claude", "SessionStart", start.clone())).contains(GENERAL));
    // Saved now; this session's events restore from it, in part.
    let s2 = json!({"session_id": "s2", "cwd": w, "source": "startup"});
    assert!(context(&hook(&t, "claude", "SessionStart", s2)).contains(GENERAL));
    let api = hook(
        &t,
        "claude",
        "PostToolUse",
        read(&w, json!({"session_id": "s2"})),
    );
    assert!(context(&api).contains(API) && !context(&api).contains("docs.md"));
    let agent = json!({"session_id": "s2", "cwd": w, "hook_event_name": "PreToolUse", "tool_name": "Agent", "tool_input": {"description": "d", "prompt": "check the customer orders", "subagent_type": "general-purpose"}});
    hook(&t, "claude", "PreToolUse", agent);
    let sub = hook(
        &t,
        "claude",
        "SubagentStart",
        json!({"session_id": "s2", "cwd": w, "agent_id": "a1", "agent_type": "general-purpose", "hook_event_name": "SubagentStart"}),
    );
    let text = context(&sub);
    assert!(text.contains(GENERAL) && text.contains(DB), "{text}");
    assert!(!text.contains("billing.md"), "{text}");
    let doc = json!({"session_id": "s2", "cwd": w, "hook_event_name": "PostToolUse", "tool_name": "Read", "agent_id": "a1", "agent_type": "general-purpose", "tool_input": {"file_path": w.join("docs/guide/intro.md")}});
    let text = context(&hook(&t, "claude", "PostToolUse", doc));
    assert!(text.contains("[docs.md] Write docs plainly."), "{text}");
    assert!(!text.contains(API), "{text}");
}
