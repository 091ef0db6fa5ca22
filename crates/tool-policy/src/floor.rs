//! The command floor: deny rules for shell-class tools that no tier, no
//! allow entry and no remembered approval can lower.
//!
//! A command line is split into simple commands across `;`, `&&`, `||`,
//! `|`, `&`, newlines and subshells, quotes removed, wrappers (`sudo`,
//! `env`, `nohup`, `timeout`, ...) and variable assignments stripped, and
//! programs reduced to their base name; then each simple command is checked.
//! `sh -c '...'` is checked recursively. Anything the floor cannot read with
//! confidence (command substitution, backticks, `eval`, here-docs, process
//! substitution, a variable as the program) is at least `ask`.
//!
//! Written by hand: shell-word crates split words but do not report the
//! constructs this floor must treat as unsafe, nor pipelines.
//!
//! ## The default floor
//!
//! | rule | examples | action |
//! |---|---|---|
//! | `recursive-delete-root` | `rm -rf /`, `rm -fr ~`, `rm -r --force /*`, `rm --no-preserve-root ...` | deny |
//! | `fork-bomb` | `:(){ :|:& };:` | deny |
//! | `format-disk` | `mkfs.ext4 /dev/sda1`, `wipefs`, `dd of=/dev/sda`, `> /dev/nvme0n1`, `shred /dev/sda` | deny |
//! | `partition-disk` | `fdisk`, `parted`, `sfdisk` | ask |
//! | `pipe-to-shell` | `curl URL \| sh`, `wget -O- URL \| sudo bash` | deny |
//! | `recursive-chmod-root` | `chmod -R 777 /`, `chown -R user /` | deny |
//! | `unparsed` | `$(...)`, backticks, `eval`, `source`, here-docs, `<(...)`, `xargs`, `$PROG args` | ask |

use globset::GlobMatcher;
use serde::Serialize;

use crate::{Action, CommandPolicyConfig, PolicyError};

/// A floor rule that fired.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FloorHit {
    /// `deny` or `ask`.
    pub action: Action,
    /// The rule's name (`recursive-delete-root`, `unparsed`, or the
    /// configured glob).
    pub rule: String,
    /// The simple command (or construct) that fired it.
    pub command: String,
}

struct CommandRule {
    pattern: String,
    matcher: GlobMatcher,
    action: Action,
}

/// The compiled floor: the default rules plus configured globs.
///
/// ```
/// use tool_policy::{Action, CommandFloor, CommandPolicyConfig};
/// let floor = CommandFloor::new(&CommandPolicyConfig {
///     deny: vec!["git push --force*".into()],
///     ask: vec![],
/// }).unwrap();
/// assert_eq!(floor.check("echo hi && rm -rf /").unwrap().rule, "recursive-delete-root");
/// assert_eq!(floor.check("cd repo; /usr/bin/git push --force origin").unwrap().action, Action::Deny);
/// assert_eq!(floor.check("echo $(whoami)").unwrap().action, Action::Ask);
/// assert!(floor.check("ls -la src | grep rs").is_none());
/// ```
pub struct CommandFloor {
    rules: Vec<CommandRule>,
}

impl std::fmt::Debug for CommandFloor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let patterns: Vec<&str> = self.rules.iter().map(|r| r.pattern.as_str()).collect();
        f.debug_struct("CommandFloor")
            .field("rules", &patterns)
            .finish()
    }
}

const MAX_NESTING: usize = 8;

impl CommandFloor {
    /// The default floor plus the configured rules.
    pub fn new(config: &CommandPolicyConfig) -> Result<Self, PolicyError> {
        let mut rules = Vec::new();
        for (list, action, place) in [
            (&config.deny, Action::Deny, "sandbox.command_policy.deny"),
            (&config.ask, Action::Ask, "sandbox.command_policy.ask"),
        ] {
            for pattern in list {
                let glob = crate::rules::compile_glob(place, pattern, pattern.trim())?;
                rules.push(CommandRule {
                    pattern: pattern.clone(),
                    matcher: glob.compile_matcher(),
                    action,
                });
            }
        }
        Ok(Self { rules })
    }

    /// Check a command line: the most restrictive rule that fires, if any.
    pub fn check(&self, command: &str) -> Option<FloorHit> {
        let mut hits = Vec::new();
        self.check_into(command, 0, &mut hits);
        hits.into_iter().max_by_key(|h| h.action)
    }

    fn check_into(&self, command: &str, depth: usize, hits: &mut Vec<FloorHit>) {
        if depth > MAX_NESTING {
            hits.push(unparsed(command, "shells nested too deeply"));
            return;
        }
        if let Some(hit) = fork_bomb(command) {
            hits.push(hit);
        }
        let pipelines = match split(command) {
            Ok(p) => p,
            Err(reason) => {
                hits.push(unparsed(command, reason));
                return;
            }
        };
        for pipeline in &pipelines {
            let mut fetched = false;
            for raw in pipeline {
                let Some(cmd) = strip_wrappers(raw, hits) else {
                    continue;
                };
                let program = cmd.words.first().map(String::as_str).unwrap_or_default();
                if is_shell(program) {
                    if let Some(script) = shell_script_arg(&cmd.words) {
                        self.check_into(script, depth + 1, hits);
                    } else if fetched {
                        hits.push(hit(Action::Deny, "pipe-to-shell", &cmd.text()));
                    }
                }
                if matches!(program, "curl" | "wget" | "fetch") {
                    fetched = true;
                }
                default_rules(&cmd, hits);
                let text = cmd.text();
                for rule in &self.rules {
                    if rule.matcher.is_match(&text) {
                        hits.push(hit(rule.action, &rule.pattern, &text));
                    }
                }
            }
        }
    }
}

fn hit(action: Action, rule: &str, command: &str) -> FloorHit {
    FloorHit {
        action,
        rule: rule.to_owned(),
        command: command.to_owned(),
    }
}

fn unparsed(command: &str, reason: &str) -> FloorHit {
    FloorHit {
        action: Action::Ask,
        rule: "unparsed".into(),
        command: format!("{} ({reason})", command.trim()),
    }
}

/// One simple command after quote removal.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct Simple {
    words: Vec<String>,
    /// Words holding an unquoted or double-quoted `$` expansion.
    expanded: Vec<bool>,
    /// Output redirection targets.
    redirects: Vec<String>,
}

impl Simple {
    fn text(&self) -> String {
        self.words.join(" ")
    }
}

type Pipelines = Vec<Vec<Simple>>;

/// A tokenizer for the POSIX shell subset the floor needs.
struct Splitter {
    pipelines: Pipelines,
    pipeline: Vec<Simple>,
    cmd: Simple,
    word: String,
    in_word: bool,
    word_expanded: bool,
    redirect_next: bool,
}

impl Splitter {
    fn end_word(&mut self) {
        if !self.in_word {
            return;
        }
        let word = std::mem::take(&mut self.word);
        if self.redirect_next {
            self.cmd.redirects.push(word);
            self.redirect_next = false;
        } else if word != "{" && word != "}" {
            self.cmd.words.push(word);
            self.cmd.expanded.push(self.word_expanded);
        }
        self.in_word = false;
        self.word_expanded = false;
    }
    fn end_command(&mut self) {
        self.end_word();
        let cmd = std::mem::take(&mut self.cmd);
        if !cmd.words.is_empty() || !cmd.redirects.is_empty() {
            self.pipeline.push(cmd);
        }
    }
    fn end_pipeline(&mut self) {
        self.end_command();
        let p = std::mem::take(&mut self.pipeline);
        if !p.is_empty() {
            self.pipelines.push(p);
        }
    }
    fn push(&mut self, c: char) {
        self.word.push(c);
        self.in_word = true;
    }
}

#[allow(clippy::too_many_lines)]
fn split(command: &str) -> Result<Pipelines, &'static str> {
    let mut s = Splitter {
        pipelines: Vec::new(),
        pipeline: Vec::new(),
        cmd: Simple::default(),
        word: String::new(),
        in_word: false,
        word_expanded: false,
        redirect_next: false,
    };
    let chars: Vec<char> = command.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        match c {
            ' ' | '\t' | '\r' => s.end_word(),
            '&' if next == Some('&') => {
                s.end_pipeline();
                i += 1;
            }
            '&' if next == Some('>') => {
                s.end_word();
                s.redirect_next = true;
                i += 1;
            }
            '&' | '\n' | ';' | '(' | ')' => s.end_pipeline(),
            '|' if next == Some('|') => {
                s.end_pipeline();
                i += 1;
            }
            '|' => {
                s.end_command();
                if next == Some('&') {
                    i += 1;
                }
            }
            '`' => return Err("backticks"),
            '$' if next == Some('(') => return Err("command substitution"),
            '$' => {
                s.word_expanded = true;
                s.push(c);
            }
            '<' if matches!(next, Some('<' | '(')) => {
                return Err("here-doc or process substitution")
            }
            '>' if next == Some('(') => return Err("process substitution"),
            '<' | '>' => {
                // A file descriptor number before the operator is not a word.
                if s.in_word && s.word.chars().all(|d| d.is_ascii_digit()) {
                    s.word.clear();
                    s.in_word = false;
                }
                s.end_word();
                if c == '>' {
                    s.redirect_next = true;
                }
                while matches!(chars.get(i + 1), Some('>' | '&' | '|')) {
                    i += 1;
                }
                if c == '<' {
                    s.redirect_next = false;
                    // The input file is read, not written: keep it as a word
                    // so rules still see it, but it is harmless.
                }
            }
            '#' if !s.in_word => {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            '\\' => {
                match next {
                    Some('\n') => {}
                    Some(n) => s.push(n),
                    None => return Err("a trailing backslash"),
                }
                i += 1;
            }
            '\'' => {
                s.in_word = true;
                let close = chars[i + 1..]
                    .iter()
                    .position(|&ch| ch == '\'')
                    .ok_or("an unclosed quote")?;
                s.word.extend(&chars[i + 1..i + 1 + close]);
                i += close + 1;
            }
            '"' => {
                s.in_word = true;
                i += 1;
                loop {
                    match chars.get(i) {
                        None => return Err("an unclosed quote"),
                        Some('"') => break,
                        Some('`') => return Err("backticks"),
                        Some('$') if chars.get(i + 1) == Some(&'(') => {
                            return Err("command substitution")
                        }
                        Some('$') => {
                            s.word_expanded = true;
                            s.word.push('$');
                        }
                        Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\' | '$' | '`')) => {
                            s.word.push(chars[i + 1]);
                            i += 1;
                        }
                        Some(&ch) => s.word.push(ch),
                    }
                    i += 1;
                }
            }
            _ => s.push(c),
        }
        i += 1;
    }
    s.end_pipeline();
    Ok(s.pipelines)
}

fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// Wrappers that run the rest of the line as a command, with the number of
/// option arguments that take a value.
fn wrapper_value_flags(program: &str) -> Option<&'static [&'static str]> {
    Some(match program {
        "sudo" | "doas" => &["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U"],
        "env" => &["-u", "-C", "-S"],
        "nice" => &["-n"],
        "ionice" => &["-c", "-n", "-p"],
        "timeout" => &["-s", "-k", "--signal", "--kill-after"],
        "stdbuf" => &["-i", "-o", "-e"],
        "nohup" | "time" | "command" | "builtin" | "exec" | "chronic" | "unbuffer" => &[],
        _ => return None,
    })
}

/// Strip assignments and wrappers; program reduced to its base name.
/// Returns `None` (after recording an `unparsed` hit) when the program
/// cannot be known.
fn strip_wrappers(raw: &Simple, hits: &mut Vec<FloorHit>) -> Option<Simple> {
    let mut i = 0;
    loop {
        while i < raw.words.len() && is_assignment(&raw.words[i]) {
            i += 1;
        }
        let Some(word) = raw.words.get(i) else {
            // Only assignments or redirects: still check redirect targets.
            return Some(Simple {
                words: Vec::new(),
                expanded: Vec::new(),
                redirects: raw.redirects.clone(),
            });
        };
        if raw.expanded[i] {
            hits.push(unparsed(&raw.text(), "a variable as the program"));
            return None;
        }
        let program = basename(word);
        match program {
            "eval" | "source" | "." | "xargs" | "parallel" | "watch" => {
                hits.push(unparsed(&raw.text(), "runs text the floor cannot see"));
                return None;
            }
            _ => {}
        }
        let Some(value_flags) = wrapper_value_flags(program) else {
            let mut words = vec![program.to_owned()];
            words.extend(raw.words[i + 1..].iter().cloned());
            return Some(Simple {
                words,
                expanded: raw.expanded[i..].to_vec(),
                redirects: raw.redirects.clone(),
            });
        };
        i += 1;
        // Skip the wrapper's options (and their values), and for `timeout`
        // its duration.
        while let Some(w) = raw.words.get(i) {
            if w == "--" {
                i += 1;
                break;
            }
            if !w.starts_with('-') {
                break;
            }
            i += if value_flags.contains(&w.as_str()) {
                2
            } else {
                1
            };
        }
        if program == "timeout"
            && raw
                .words
                .get(i)
                .is_some_and(|w| w.starts_with(|c: char| c.is_ascii_digit()))
        {
            i += 1;
        }
    }
}

fn is_shell(program: &str) -> bool {
    matches!(
        program,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "fish" | "ash" | "busybox"
    )
}

/// For `sh -c SCRIPT` (flags may be combined, like `-lc`), the script.
fn shell_script_arg(words: &[String]) -> Option<&str> {
    let mut iter = words.iter().skip(1);
    while let Some(w) = iter.next() {
        if w.starts_with('-') && !w.starts_with("--") && w.contains('c') {
            return iter.next().map(String::as_str);
        }
        if !w.starts_with('-') {
            return None;
        }
    }
    None
}

fn flags(words: &[String]) -> (Vec<&str>, Vec<&str>) {
    let mut flags = Vec::new();
    let mut args = Vec::new();
    let mut after_dashdash = false;
    for w in words.iter().skip(1) {
        if !after_dashdash && w == "--" {
            after_dashdash = true;
        } else if !after_dashdash && w.starts_with('-') && w.len() > 1 {
            flags.push(w.as_str());
        } else {
            args.push(w.as_str());
        }
    }
    (flags, args)
}

fn has_short_or_long(flags: &[&str], short: &[char], long: &str) -> bool {
    flags.iter().any(|f| {
        if let Some(l) = f.strip_prefix("--") {
            l == long
        } else {
            f[1..].chars().any(|c| short.contains(&c))
        }
    })
}

/// True when a path names the filesystem root or the home folder.
fn is_root_or_home(target: &str) -> bool {
    let mut t = target.trim().to_owned();
    loop {
        let before = t.clone();
        while t.contains("//") {
            t = t.replace("//", "/");
        }
        for suffix in ["/*", "/.", "/"] {
            if let Some(s) = t.strip_suffix(suffix) {
                t = s.to_owned();
            }
        }
        if t == before {
            break;
        }
    }
    matches!(t.as_str(), "" | "*" | "~" | "$HOME" | "${HOME}" | "/*")
}

fn is_block_device(path: &str) -> bool {
    let p = path.trim();
    [
        "/dev/sd",
        "/dev/hd",
        "/dev/vd",
        "/dev/xvd",
        "/dev/nvme",
        "/dev/mmcblk",
        "/dev/disk",
        "/dev/mapper/",
    ]
    .iter()
    .any(|prefix| p.starts_with(prefix))
}

fn default_rules(cmd: &Simple, hits: &mut Vec<FloorHit>) {
    let text = cmd.text();
    for target in &cmd.redirects {
        if is_block_device(target) {
            hits.push(hit(
                Action::Deny,
                "format-disk",
                &format!("{text} > {target}"),
            ));
        }
    }
    let Some(program) = cmd.words.first().map(String::as_str) else {
        return;
    };
    let (flags, args) = flags(&cmd.words);
    match program {
        "rm" => {
            let recursive = has_short_or_long(&flags, &['r', 'R'], "recursive");
            if flags.contains(&"--no-preserve-root")
                || (recursive && args.iter().any(|a| is_root_or_home(a)))
            {
                hits.push(hit(Action::Deny, "recursive-delete-root", &text));
            } else if recursive && args.iter().any(|a| a.contains('$')) {
                hits.push(unparsed(&text, "a recursive delete of a variable path"));
            }
        }
        "chmod" | "chown" | "chgrp"
            if has_short_or_long(&flags, &['R'], "recursive")
                && args.iter().skip(1).any(|a| is_root_or_home(a)) =>
        {
            hits.push(hit(Action::Deny, "recursive-chmod-root", &text));
        }
        p if p.starts_with("mkfs") || matches!(p, "mkswap" | "wipefs" | "mke2fs") => {
            hits.push(hit(Action::Deny, "format-disk", &text));
        }
        "fdisk" | "sfdisk" | "cfdisk" | "parted" | "gdisk" | "sgdisk" => {
            hits.push(hit(Action::Ask, "partition-disk", &text));
        }
        "dd" if args
            .iter()
            .any(|a| a.strip_prefix("of=").is_some_and(is_block_device)) =>
        {
            hits.push(hit(Action::Deny, "format-disk", &text));
        }
        "shred" if args.iter().any(|a| is_block_device(a)) => {
            hits.push(hit(Action::Deny, "format-disk", &text));
        }
        _ => {}
    }
}

/// `NAME(){ NAME|NAME& };NAME` in any spacing.
fn fork_bomb(command: &str) -> Option<FloorHit> {
    let compact: String = command.chars().filter(|c| !c.is_whitespace()).collect();
    let mut search = 0;
    while let Some(pos) = compact[search..].find("(){") {
        let at = search + pos;
        let name_start = compact[..at]
            .rfind([';', '&', '|', '\n', '{', '}', '('])
            .map_or(0, |i| i + 1);
        let name = compact[name_start..at].trim_start_matches("function");
        if !name.is_empty() && compact[at..].contains(&format!("{name}|{name}")) {
            return Some(hit(Action::Deny, "fork-bomb", command.trim()));
        }
        search = at + 3;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitting_handles_quotes_and_separators() {
        let p = split("a 'b c' \"d e\" && f | g; h\ni").unwrap();
        let words: Vec<Vec<Vec<String>>> = p
            .iter()
            .map(|pl| pl.iter().map(|c| c.words.clone()).collect())
            .collect();
        assert_eq!(
            words,
            vec![
                vec![vec!["a".to_owned(), "b c".into(), "d e".into()]],
                vec![vec!["f".to_owned()], vec!["g".into()]],
                vec![vec!["h".to_owned()]],
                vec![vec!["i".to_owned()]],
            ]
        );
    }

    #[test]
    fn root_targets() {
        for t in ["/", "//", "/*", "/.", "~", "~/", "$HOME", "${HOME}/*"] {
            assert!(is_root_or_home(t), "{t}");
        }
        for t in ["/tmp", "./build", "~/project"] {
            assert!(!is_root_or_home(t), "{t}");
        }
    }
}
