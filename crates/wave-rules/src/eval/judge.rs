//! `judge:` checks: what a regex cannot say, graded by a judge model
//! (`--judge-base-url`, `--judge-model`; OpenAI chat completions, or the
//! Anthropic Messages API with `--judge-api anthropic`). The judge is
//! blind: it gets the rubric, the prompt, the agent's reply, the commands
//! the model called and the diff of the scratch copy, never the rule under
//! test nor the arm. It answers `{"pass": bool, "reason": "..."}`; one
//! that cannot answer, or answers no such JSON, makes the run an error.
//! `--judge-runs K` asks K times and takes the majority.

pub use super::options::JudgeApi;
use super::MAX_JUDGE_EVIDENCE_BYTES;
use std::time::Duration;

/// The judge model and how to reach it.
#[derive(Debug, Clone)]
pub struct Judge {
    pub base_url: String,
    pub model: String,
    pub api: JudgeApi,
    pub runs: u32,
    pub timeout: Duration,
}

/// What the judge sees of one run.
pub struct Seen<'a> {
    pub rubric: &'a str,
    pub prompt: &'a str,
    pub reply: &'a str,
    pub commands: &'a [String],
    pub diff: &'a str,
}

/// The judge's verdict and the tokens it took (all its answers).
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub pass: bool,
    pub reason: String,
    pub input_tokens: u64,
    pub output_tokens: u64,
}

const SYSTEM: &str = "You grade one run of a coding agent against a rubric. Judge only what the rubric asks, from the evidence given. Answer with JSON only: {\"pass\": true or false, \"reason\": \"one sentence\"}.";

impl Judge {
    /// Asks `runs` times; the majority's verdict (a tie fails), with the
    /// reason of its first answer. An error when an answer is no verdict.
    pub fn grade(&self, seen: &Seen) -> Result<Verdict, String> {
        let mut answers = Vec::new();
        for _ in 0..self.runs.max(1) {
            answers.push(self.ask(seen)?);
        }
        let passes = answers.iter().filter(|a| a.pass).count();
        let pass = passes * 2 > answers.len();
        let reason = answers
            .iter()
            .find(|a| a.pass == pass)
            .map_or(String::new(), |a| a.reason.clone());
        Ok(Verdict {
            pass,
            reason,
            input_tokens: answers.iter().map(|a| a.input_tokens).sum(),
            output_tokens: answers.iter().map(|a| a.output_tokens).sum(),
        })
    }

    fn ask(&self, seen: &Seen) -> Result<Verdict, String> {
        let user = evidence(seen);
        let (url, body) = match self.api {
            JudgeApi::Openai => (
                format!("{}/chat/completions", self.base_url.trim_end_matches('/')),
                serde_json::json!({ "model": self.model, "temperature": 0, "messages": [
                    { "role": "system", "content": SYSTEM }, { "role": "user", "content": user } ] }),
            ),
            JudgeApi::Anthropic => (
                format!("{}/v1/messages", self.base_url.trim_end_matches('/')),
                serde_json::json!({ "model": self.model, "max_tokens": 512, "temperature": 0,
                    "system": SYSTEM, "messages": [ { "role": "user", "content": user } ] }),
            ),
        };
        let answer = self.post(&url, &body)?;
        read_answer(self.api, &answer)
    }

    fn post(&self, url: &str, body: &serde_json::Value) -> Result<serde_json::Value, String> {
        let agent = ureq::Agent::config_builder()
            .proxy(None)
            .http_status_as_error(false)
            .timeout_global(Some(self.timeout))
            .build()
            .new_agent();
        let mut request = agent.post(url).header("content-type", "application/json");
        if let Ok(key) = std::env::var(match self.api {
            JudgeApi::Openai => "OPENAI_API_KEY",
            JudgeApi::Anthropic => "ANTHROPIC_API_KEY",
        }) {
            request = match self.api {
                JudgeApi::Openai => request.header("authorization", format!("Bearer {key}")),
                JudgeApi::Anthropic => request
                    .header("x-api-key", key)
                    .header("anthropic-version", "2023-06-01"),
            };
        }
        let mut response = request
            .send(body.to_string())
            .map_err(|e| format!("the judge at {url} cannot be reached: {e}"))?;
        let status = response.status().as_u16();
        let text = response
            .body_mut()
            .with_config()
            .limit(4 << 20)
            .read_to_string()
            .map_err(|e| format!("the judge at {url}: {e}"))?;
        if status != 200 {
            return Err(format!(
                "the judge at {url} answered HTTP {status}: {}",
                text.chars().take(200).collect::<String>()
            ));
        }
        serde_json::from_str(&text).map_err(|e| format!("the judge at {url} answered no JSON: {e}"))
    }
}

/// The user message: the rubric and the run's evidence, never the rules.
fn evidence(seen: &Seen) -> String {
    let commands = if seen.commands.is_empty() {
        "(none)".to_string()
    } else {
        seen.commands.join("\n")
    };
    format!(
        "Rubric (what must hold):\n{}\n\nThe task the agent was given:\n{}\n\nThe agent's final reply:\n{}\n\nShell commands the agent ran:\n{}\n\nThe diff of the project after the run:\n{}\n",
        seen.rubric,
        seen.prompt,
        clip(seen.reply),
        commands,
        if seen.diff.is_empty() { "(no change)" } else { clip(seen.diff) }
    )
}

fn clip(s: &str) -> &str {
    if s.len() <= MAX_JUDGE_EVIDENCE_BYTES {
        return s;
    }
    let mut end = MAX_JUDGE_EVIDENCE_BYTES;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// The verdict in an answer of `api`, and its token counts.
fn read_answer(api: JudgeApi, answer: &serde_json::Value) -> Result<Verdict, String> {
    let (text, input, output) = match api {
        JudgeApi::Openai => (
            answer["choices"][0]["message"]["content"].as_str(),
            answer["usage"]["prompt_tokens"].as_u64(),
            answer["usage"]["completion_tokens"].as_u64(),
        ),
        JudgeApi::Anthropic => (
            answer["content"][0]["text"].as_str(),
            answer["usage"]["input_tokens"].as_u64(),
            answer["usage"]["output_tokens"].as_u64(),
        ),
    };
    let text = text.ok_or("the judge's answer has no text")?;
    let verdict = verdict_in(text).ok_or_else(|| {
        format!(
            "the judge answered no verdict ({{\"pass\": bool, \"reason\": \"...\"}}): {}",
            text.chars().take(200).collect::<String>()
        )
    })?;
    Ok(Verdict {
        input_tokens: input.unwrap_or(0),
        output_tokens: output.unwrap_or(0),
        ..verdict
    })
}

/// The first JSON object in `text` with a boolean `pass`.
fn verdict_in(text: &str) -> Option<Verdict> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    let v: serde_json::Value = serde_json::from_str(text.get(start..=end)?).ok()?;
    Some(Verdict {
        pass: v["pass"].as_bool()?,
        reason: v["reason"].as_str().unwrap_or("").to_string(),
        input_tokens: 0,
        output_tokens: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_verdict_is_read_from_json_in_the_answer_and_nothing_else_is_one() {
        let v = verdict_in("Sure. {\"pass\": true, \"reason\": \"in French\"}").unwrap();
        assert!(v.pass && v.reason == "in French");
        assert!(verdict_in("yes, it passes").is_none());
        assert!(verdict_in("{\"pass\": \"yes\"}").is_none());
    }

    #[test]
    fn the_judge_never_sees_more_than_the_evidence() {
        let text = evidence(&Seen {
            rubric: "the reply is in French",
            prompt: "Say hello.",
            reply: "Bonjour",
            commands: &["ls".into()],
            diff: "",
        });
        assert!(text.contains("the reply is in French") && text.contains("Bonjour"));
        assert!(text.contains("(no change)") && text.contains("\nls\n"));
    }
}
