//! A suite: an agent's scenarios counted as scenarios, not as pooled runs.
//! Pooling repeated runs manufactures significance (12 wins and 0 losses
//! over 4 scenarios of 3 runs read as p = 1/4096, where the scenarios say
//! 4-0); the scenarios are the units. Each scenario improved, worsened or
//! left unchanged by its uplift's interval (wholly above 0, wholly below,
//! else unchanged), and an exact two-sided sign test over the scenarios'
//! point uplifts, ties dropped.

use super::stats::sign_test;
use super::summary::Report;

/// One agent's suite.
#[derive(Debug, Clone, PartialEq)]
pub struct Suite {
    pub agent: &'static str,
    pub scenarios: u32,
    pub improved: u32,
    pub worsened: u32,
    pub unchanged: u32,
    /// Scenarios whose point uplift is above 0, below 0.
    pub up: u32,
    pub down: u32,
    pub p: f64,
}

/// A suite per agent (in the report's order), over the rows with both arms judged.
pub fn suites(report: &Report) -> Vec<Suite> {
    let mut out: Vec<Suite> = Vec::new();
    for r in report.rows.iter().filter(|r| r.judged()) {
        let agent = r.agent.as_str();
        let i = match out.iter().position(|s| s.agent == agent) {
            Some(i) => i,
            None => {
                out.push(Suite {
                    agent,
                    scenarios: 0,
                    improved: 0,
                    worsened: 0,
                    unchanged: 0,
                    up: 0,
                    down: 0,
                    p: 1.0,
                });
                out.len() - 1
            }
        };
        let s = &mut out[i];
        s.scenarios += 1;
        let u = &r.uplift;
        if u.low > 0.0 {
            s.improved += 1;
        } else if u.high < 0.0 {
            s.worsened += 1;
        } else {
            s.unchanged += 1;
        }
        // Equal rates (a tie) are dropped; a float's last bit is no uplift.
        if u.value > 1e-9 {
            s.up += 1;
        } else if u.value < -1e-9 {
            s.down += 1;
        }
    }
    for s in &mut out {
        s.p = sign_test(s.up, s.down);
    }
    out
}

impl Suite {
    /// `{"agent", "suite": {"scenarios","improved","worsened","unchanged","p"}}`.
    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "agent": self.agent,
            "suite": {
                "scenarios": self.scenarios,
                "improved": self.improved,
                "worsened": self.worsened,
                "unchanged": self.unchanged,
                "up": self.up,
                "down": self.down,
                "p": super::results::round(self.p),
            }
        })
    }

    /// One line for the table.
    pub fn text(&self) -> String {
        format!(
            "suite · {}: {} scenarios, {} improved, {} worsened, {} unchanged; sign test over the point uplifts ({} up, {} down) p = {:.4}",
            self.agent, self.scenarios, self.improved, self.worsened, self.unchanged, self.up, self.down, self.p
        )
    }
}
