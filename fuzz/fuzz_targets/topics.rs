//! Topics (lines before the first NUL) against a prompt (after it): the
//! matcher agrees with brute force.
#![no_main]
use libfuzzer_sys::fuzz_target;
use memory_rules::internals::matchers::topic_matcher::TopicMatcher;

#[path = "../../crates/memory-rules/tests/oracle/mod.rs"]
mod oracle;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let (topics, prompt) = text.split_once('\0').unwrap_or((text, text));
    let lists: Vec<Vec<String>> = topics.lines().take(64).map(|t| vec![t.to_string()]).collect();
    let m = TopicMatcher::new(lists.iter().enumerate().map(|(i, t)| (i, t.as_slice())));
    let mut active = vec![false; lists.len()];
    m.activate(prompt, &mut active);
    if prompt.len() <= 512 {
        for (i, t) in lists.iter().enumerate() {
            assert_eq!(active[i], oracle::topic_fires(&t[0], prompt), "topic {:?} prompt {prompt:?}", t[0]);
        }
    }
    let _ = m.hits(prompt);
});
