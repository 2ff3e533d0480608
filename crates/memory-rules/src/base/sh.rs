//! The one shell quoting: a word written into a command line that a POSIX
//! shell runs. Every hook command we install runs under one (`sh -c`,
//! `bash`, `$SHELL -lc`: Claude Code's, Codex's, Gemini CLI's, Copilot
//! CLI's `bash` field, Cursor's, ...; on Windows the agents run them under
//! Git Bash), and so do the command lines the core rebuilds from an
//! agent's argv (`delivery/touched.rs`) and eval's proxy reads. We write no
//! hook for PowerShell or cmd.exe (Copilot CLI's `powershell` field is not
//! written), so there is no quoting for them.

/// `word` as one word of a POSIX shell command line: itself when every byte
/// is a letter, a digit or one of `-_./=:,@%+` (and it does not start with
/// `=`, which zsh expands), else in single quotes, a `'` inside written
/// `'\''`.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && !word.starts_with('=')
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,@%+".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WORDS: [&str; 14] = [
        "/usr/bin/wave-rules",
        "/a b/it's",
        "",
        "a=b",
        "=zsh-equals",
        "50%",
        "$HOME",
        "`id`",
        "$(id)",
        "a\\b",
        "semi;colon&amp|pipe",
        "glob*?[x]",
        "tab\tand\nnewline",
        "~user/{a,b}",
    ];

    #[test]
    fn plain_words_stay_and_others_are_single_quoted() {
        assert_eq!(quote("/usr/bin/wave-rules"), "/usr/bin/wave-rules");
        assert_eq!(
            quote("node_modules/.bin/wave-rules"),
            "node_modules/.bin/wave-rules"
        );
        assert_eq!(quote("/a b/it's"), r"'/a b/it'\''s'");
        assert_eq!(quote(""), "''");
        assert_eq!(quote("=x"), "'=x'");
        assert_eq!(quote("$HOME"), "'$HOME'");
    }

    /// Each shell the hooks run under, for real: `printf '%s\n' <quoted>`
    /// prints every word back unchanged.
    #[cfg(unix)]
    #[test]
    fn sh_and_bash_read_each_quoted_word_back_as_it_was() {
        let line: Vec<String> = WORDS.iter().map(|w| quote(w)).collect();
        let script = format!("printf '%s\\0' {}", line.join(" "));
        for shell in ["sh", "bash"] {
            let out = std::process::Command::new(shell)
                .args(["-c", &script])
                .env_clear()
                .env("HOME", "/nonexistent")
                .output()
                .unwrap_or_else(|e| panic!("cannot run {shell}: {e}"));
            assert!(out.status.success(), "{shell}: {:?}", out);
            let text = String::from_utf8(out.stdout).unwrap();
            let back: Vec<&str> = text.split_terminator('\0').collect();
            assert_eq!(back, WORDS, "{shell} read the quoted words otherwise");
        }
    }
}
