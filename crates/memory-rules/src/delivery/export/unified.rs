//! A readable line diff of a file's old and new text.

/// A readable line diff of `old` and `new` (`-`/`+` lines with a few lines
/// of context). Bounded: beyond [`MAX_DIFF_LINES`] lines per side, the
/// whole old and new texts are shown.
pub fn unified(rel: &str, old: Option<&str>, new: Option<&str>) -> String {
    let a: Vec<&str> = old.map(|t| t.lines().collect()).unwrap_or_default();
    let b: Vec<&str> = new.map(|t| t.lines().collect()).unwrap_or_default();
    let mut out = format!(
        "--- {}\n+++ {}\n",
        if old.is_some() { rel } else { "/dev/null" },
        if new.is_some() { rel } else { "/dev/null" }
    );
    let ops = if a.len() <= MAX_DIFF_LINES && b.len() <= MAX_DIFF_LINES {
        lcs_ops(&a, &b)
    } else {
        let mut ops: Vec<(char, &str)> = a.iter().map(|l| ('-', *l)).collect();
        ops.extend(b.iter().map(|l| ('+', *l)));
        ops
    };
    const CONTEXT: usize = 2;
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, (k, _))| *k != ' ')
        .map(|(i, _)| i)
        .collect();
    let mut last_shown: Option<usize> = None;
    for (i, (k, line)) in ops.iter().enumerate() {
        let near = changed
            .iter()
            .any(|&c| i + CONTEXT >= c && i <= c + CONTEXT);
        if !near {
            continue;
        }
        if last_shown.is_some_and(|l| l + 1 != i) {
            out.push_str("@@\n");
        }
        out.push(*k);
        out.push_str(line);
        out.push('\n');
        last_shown = Some(i);
    }
    out
}

pub use crate::base::limits::MAX_DIFF_LINES;

fn lcs_ops<'a>(a: &[&'a str], b: &[&'a str]) -> Vec<(char, &'a str)> {
    // Common prefix and suffix first; the LCS table only for the middle.
    let pre = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let suf = a[pre..]
        .iter()
        .rev()
        .zip(b[pre..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (ma, mb) = (&a[pre..a.len() - suf], &b[pre..b.len() - suf]);
    let mut ops: Vec<(char, &str)> = a[..pre].iter().map(|l| (' ', *l)).collect();
    let (n, m) = (ma.len(), mb.len());
    let mut t = vec![0u32; (n + 1) * (m + 1)];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i * (m + 1) + j] = if ma[i] == mb[j] {
                t[(i + 1) * (m + 1) + j + 1] + 1
            } else {
                t[(i + 1) * (m + 1) + j].max(t[i * (m + 1) + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    while i < n || j < m {
        if i < n && j < m && ma[i] == mb[j] {
            ops.push((' ', ma[i]));
            i += 1;
            j += 1;
        } else if i < n && (j == m || t[(i + 1) * (m + 1) + j] >= t[i * (m + 1) + j + 1]) {
            ops.push(('-', ma[i]));
            i += 1;
        } else {
            ops.push(('+', mb[j]));
            j += 1;
        }
    }
    ops.extend(a[a.len() - suf..].iter().map(|l| (' ', *l)));
    ops
}
