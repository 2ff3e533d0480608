//! `--max-tokens` and `--max-cost`: what this eval's runs may spend. Each
//! finished run is charged its tokens (and, priced by the table of
//! `--prices`, their cost); once the budget is spent no run starts. The
//! runs done are kept and reported.

use super::results::RunOutcome;
use std::path::Path;
use std::sync::Mutex;

/// One model's prices, in US dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Price {
    pub input: f64,
    pub output: f64,
}

/// The limits and what was spent so far.
#[derive(Debug, Default)]
pub struct Budget {
    pub max_tokens: Option<u64>,
    pub max_cost: Option<f64>,
    pub price: Option<Price>,
    /// The judge model's price (`judge:` checks), when there is a judge.
    pub judge_price: Option<Price>,
    spent: Mutex<(u64, f64)>,
}

impl Budget {
    pub fn new(max_tokens: Option<u64>, max_cost: Option<f64>, price: Option<Price>) -> Budget {
        Budget {
            max_tokens,
            max_cost,
            price,
            judge_price: None,
            spent: Mutex::new((0, 0.0)),
        }
    }

    /// Whether another run may start.
    pub fn allows(&self) -> bool {
        let (tokens, cost) = self.spent();
        self.max_tokens.is_none_or(|m| tokens < m) && self.max_cost.is_none_or(|m| cost < m)
    }

    /// Charges a finished run: the agent's tokens and the judge's.
    pub fn charge(&self, run: &RunOutcome) {
        let tokens =
            run.input_tokens + run.output_tokens + run.judge_input_tokens + run.judge_output_tokens;
        let priced = |p: Option<Price>, input: u64, output: u64| {
            p.map_or(0.0, |p| {
                (input as f64 * p.input + output as f64 * p.output) / 1e6
            })
        };
        let cost = priced(self.price, run.input_tokens, run.output_tokens)
            + priced(
                self.judge_price,
                run.judge_input_tokens,
                run.judge_output_tokens,
            );
        if let Ok(mut s) = self.spent.lock() {
            s.0 += tokens;
            s.1 += cost;
        }
    }

    /// Tokens and US dollars spent.
    pub fn spent(&self) -> (u64, f64) {
        self.spent.lock().map_or((0, 0.0), |s| *s)
    }
}

/// The price of `model` in the table at `file`: a JSON object of model
/// names, each `{"input": USD, "output": USD}` per million tokens.
pub fn price_of(file: &Path, model: Option<&str>) -> Result<Price, String> {
    let shown = file.display();
    let model = model.ok_or("--max-cost needs --model: the price table is by model")?;
    let text = std::fs::read_to_string(file).map_err(|e| format!("--prices {shown}: {e}"))?;
    let table: std::collections::BTreeMap<String, Price> = serde_json::from_str(&text)
        .map_err(|e| format!("{shown}:{}: {e} (the format: {{\"MODEL\": {{\"input\": USD, \"output\": USD}}}} per million tokens)", e.line()))?;
    let price = *table.get(model).ok_or_else(|| {
        let known: Vec<&str> = table.keys().map(String::as_str).collect();
        format!(
            "{shown}: no price for the model '{model}' (models: {})",
            known.join(", ")
        )
    })?;
    if !(price.input >= 0.0 && price.output >= 0.0) {
        return Err(format!(
            "{shown}: the prices of '{model}' must be 0 or more"
        ));
    }
    Ok(price)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(input: u64, output: u64) -> RunOutcome {
        RunOutcome {
            arm: crate::eval::results::Arm::With,
            index: 1,
            passed: true,
            error: None,
            failures: Vec::new(),
            input_tokens: input,
            output_tokens: output,
            wall_ms: 0,
            rule_reached: true,
            requests: 1,
            commands: Vec::new(),
            scratch: None,
            kept: None,
            judge_input_tokens: 0,
            judge_output_tokens: 0,
        }
    }

    #[test]
    fn a_budget_stops_allowing_runs_once_spent() {
        let b = Budget::new(Some(100), None, None);
        assert!(b.allows());
        b.charge(&run(60, 30));
        assert!(b.allows());
        b.charge(&run(10, 0));
        assert!(!b.allows());
        let c = Budget::new(
            None,
            Some(1.0),
            Some(Price {
                input: 3.0,
                output: 15.0,
            }),
        );
        c.charge(&run(100_000, 40_000));
        assert!((c.spent().1 - 0.9).abs() < 1e-9 && c.allows());
        c.charge(&run(0, 10_000));
        assert!(!c.allows());
    }
}
