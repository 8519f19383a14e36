//! What a secret looks like, and what may be shown of one: the rule table (one row per kind
//! of credential), matching rules against a piece of text, and the two ways to hide a
//! match (`mask` for reports, `[REDACTED:kind]` for copies). It knows nothing of files,
//! lines or JSON: [`crate::audit`] feeds it decoded strings.
//!
//! Matching is two-staged for speed: one Aho-Corasick pass (ASCII case-insensitive) over
//! the text finds the rules whose keywords occur, and only those rules' regexes run. Every
//! rule's regex can only match text that contains one of its keywords, so the prefilter
//! never loses a match.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use aho_corasick::AhoCorasick;
use regex::Regex;
use sha2::{Digest, Sha256};

/// How a candidate match is confirmed after its regex matched.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Check {
    /// The regex is specific enough.
    None,
    /// The secret, past `skip` leading characters (a fixed prefix), has at least this
    /// Shannon entropy in bits per character, and is not a placeholder.
    Entropy { skip: usize, bits: f64 },
    /// A PEM block: enough base64 in its body to be a key, not an elided example.
    PemBody,
    /// A JSON Web Token: the header decodes to a JSON object naming `alg` or `typ`.
    Jwt,
    /// `scheme://user:password@host`: the password is not a placeholder.
    UrlPassword,
    /// `NAME=value` where the name says secret: the value is long, random-looking, and
    /// neither a placeholder nor a reference to somewhere else (`${VAR}`, `process.env.X`).
    Assignment,
}

/// One kind of credential.
pub struct Rule {
    /// Stable lower-case name (JSON `kind`, `[REDACTED:kind]`, `audit --list-kinds`).
    pub kind: &'static str,
    pub description: &'static str,
    /// The secret is the capture group `s` when the pattern has one, else the whole match.
    pub pattern: &'static str,
    /// The rule runs only on text containing one of these (ASCII case-insensitive).
    pub keywords: &'static [&'static str],
    pub check: Check,
}

/// Words an assignment's name ends with when the value is a secret.
const SECRET_NAME: &str =
    r"(?:secret|token|passw(?:or)?d|pwd|api_?key|apikey|access_?key|private_?key|auth_?key|credentials?)";

/// The rules, most specific first: when two matches overlap, the earlier rule wins.
pub const RULES: &[Rule] = &[
    Rule {
        kind: "gcp_service_account",
        description: "Google Cloud service-account key file (its private_key field)",
        pattern: r#""private_key"\s*:\s*"(?P<s>-----BEGIN[A-Z ]{0,30}PRIVATE KEY-----[^"]{40,}?-----END[A-Z ]{0,30}PRIVATE KEY-----(?:\\n)?)""#,
        keywords: &["\"private_key\""],
        check: Check::PemBody,
    },
    Rule {
        kind: "private_key",
        description: "PEM private key block (RSA, EC, DSA, OpenSSH, PGP, PKCS#8)",
        pattern: r"-----BEGIN[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----(?:[A-Za-z0-9+/=\s:,]|\\[nrt])+(?:-----END[A-Z0-9 ]{0,30}PRIVATE KEY(?: BLOCK)?-----)?",
        keywords: &["private key"],
        check: Check::PemBody,
    },
    Rule {
        kind: "aws_access_key",
        description: "AWS access key id (AKIA..., ASIA...)",
        pattern: r"\b(?P<s>(?:AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[A-Z2-7]{16})\b",
        keywords: &["akia", "asia", "abia", "acca", "a3t"],
        check: Check::Entropy { skip: 4, bits: 2.5 },
    },
    Rule {
        kind: "aws_secret_key",
        description: "AWS secret access key, next to its name",
        pattern: r#"(?i)(?:aws_?secret_?(?:access_?)?key|secret_?access_?key)["']?[ \t]{0,2}[:=][ \t]{0,2}["']?(?P<s>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|$)"#,
        keywords: &["aws_secret", "awssecret", "secret_access", "secretaccess"],
        check: Check::Entropy { skip: 0, bits: 4.0 },
    },
    Rule {
        kind: "azure_storage_key",
        description: "Azure storage account key (AccountKey= in a connection string)",
        pattern: r"(?i)AccountKey[ \t]{0,2}=[ \t]{0,2}(?P<s>[A-Za-z0-9+/]{86}==)",
        keywords: &["accountkey"],
        check: Check::Entropy { skip: 0, bits: 4.0 },
    },
    Rule {
        kind: "azure_shared_access_key",
        description: "Azure Service Bus / Event Hubs shared access key (SharedAccessKey=)",
        pattern: r"(?i)SharedAccessKey[ \t]{0,2}=[ \t]{0,2}(?P<s>[A-Za-z0-9+/]{42,43}=)",
        keywords: &["sharedaccesskey"],
        check: Check::Entropy { skip: 0, bits: 4.0 },
    },
    Rule {
        kind: "github_token",
        description: "GitHub token (ghp_, gho_, ghs_, ghu_, ghr_, github_pat_)",
        pattern: r"\b(?P<s>gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59})\b",
        keywords: &["ghp_", "gho_", "ghs_", "ghu_", "ghr_", "github_pat_"],
        check: Check::Entropy { skip: 4, bits: 3.0 },
    },
    Rule {
        kind: "gitlab_token",
        description: "GitLab personal access token (glpat-)",
        pattern: r"\b(?P<s>glpat-[A-Za-z0-9_-]{20,})",
        keywords: &["glpat-"],
        check: Check::Entropy { skip: 6, bits: 3.0 },
    },
    Rule {
        kind: "slack_token",
        description: "Slack token (xoxb-, xoxp-, xoxa-, xoxr-, xoxs-)",
        pattern: r"\b(?P<s>xox[baprs]-[0-9]{6,}-[A-Za-z0-9-]{8,})",
        keywords: &["xox"],
        check: Check::Entropy { skip: 5, bits: 3.0 },
    },
    Rule {
        kind: "slack_webhook",
        description: "Slack incoming webhook URL",
        pattern: r"(?P<s>https://hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/+-]{20,})",
        keywords: &["hooks.slack.com"],
        check: Check::Entropy { skip: 33, bits: 3.0 },
    },
    Rule {
        kind: "stripe_key",
        description: "Stripe live secret or restricted key (sk_live_, rk_live_)",
        pattern: r"\b(?P<s>[sr]k_live_[A-Za-z0-9]{24,})",
        keywords: &["sk_live_", "rk_live_"],
        check: Check::Entropy { skip: 8, bits: 3.0 },
    },
    Rule {
        kind: "npm_token",
        description: "npm access token (npm_)",
        pattern: r"\b(?P<s>npm_[A-Za-z0-9]{36})\b",
        keywords: &["npm_"],
        check: Check::Entropy { skip: 4, bits: 3.0 },
    },
    Rule {
        kind: "pypi_token",
        description: "PyPI upload token (pypi-AgEI...)",
        pattern: r"\b(?P<s>pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,})",
        keywords: &["pypi-ageicHlwaS5vcmc"],
        check: Check::None,
    },
    Rule {
        kind: "anthropic_key",
        description: "Anthropic API key (sk-ant-...)",
        pattern: r"\b(?P<s>sk-ant-[a-z]{2,8}[0-9]{2}-[A-Za-z0-9_-]{32,})",
        keywords: &["sk-ant-"],
        check: Check::Entropy { skip: 14, bits: 3.5 },
    },
    Rule {
        kind: "openai_key",
        description: "OpenAI API key (sk-proj-, sk-svcacct-, sk-admin-, legacy sk-...T3BlbkFJ...)",
        pattern: r"\b(?P<s>sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}|sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}|sk-[A-Za-z0-9]{48})",
        keywords: &["sk-"],
        check: Check::Entropy { skip: 3, bits: 3.5 },
    },
    Rule {
        kind: "model_api_key",
        description: "Other model provider API keys: Google (AIza...), Hugging Face (hf_), Groq (gsk_), xAI (xai-), DeepSeek-style sk- + 32 hex",
        pattern: r"\b(?P<s>AIza[0-9A-Za-z_-]{35}|hf_[A-Za-z]{34}|gsk_[A-Za-z0-9]{52}|xai-[A-Za-z0-9]{80}|sk-[0-9a-f]{32})\b",
        keywords: &["aiza", "hf_", "gsk_", "xai-", "sk-"],
        check: Check::Entropy { skip: 4, bits: 3.0 },
    },
    Rule {
        kind: "jwt",
        description: "JSON Web Token (header.payload.signature)",
        pattern: r"\b(?P<s>eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,})",
        keywords: &["eyj"],
        check: Check::Jwt,
    },
    Rule {
        kind: "url_password",
        description: "Password in a URL (scheme://user:password@host)",
        pattern: r#"\b[A-Za-z][A-Za-z0-9+.-]{1,20}:(?://|\\/\\/)[^\s:@/?#"'<>\\\[\]]{1,64}:(?P<s>[^\s:@/?#"'<>\\\[\]]{3,128})@[A-Za-z0-9_.-]"#,
        keywords: &["://", r":\/\/"],
        check: Check::UrlPassword,
    },
    Rule {
        kind: "generic_secret",
        description: "NAME=value where the name says secret (SECRET, TOKEN, PASSWORD, API_KEY, ...) and the value looks random",
        // Filled in by `regex_source`: the name words are shared with the prefilter.
        pattern: "",
        keywords: &[
            "secret=", "secret =", "token=", "token =", "password=", "password =", "passwd=", "passwd =", "pwd=",
            "pwd =", "key=", "key =", "credential=", "credentials=",
            // The same names as JSON object keys (`"API_TOKEN": "..."`).
            "secret\":", "token\":", "password\":", "passwd\":", "pwd\":", "key\":", "credential\":",
            "credentials\":",
        ],
        check: Check::Assignment,
    },
];

/// The regex source of a rule.
fn regex_source(r: &Rule) -> Cow<'static, str> {
    if r.kind == "generic_secret" {
        return Cow::Owned(format!(
            r#"(?i)\b[A-Za-z0-9_.-]*?{SECRET_NAME}[ ]?=[ ]?["']?(?P<s>[^\s"'`;,&|<>(){{}}\[\]\\]{{12,256}})"#
        ));
    }
    Cow::Borrowed(r.pattern)
}

/// The compiled table.
pub struct Scanner {
    /// Each rule's regex, compiled the first time a text holds one of its keywords (most
    /// runs mask a few messages that hold none, and compiling the table costs more than
    /// reading a big file's first lines).
    regexes: Vec<OnceLock<Regex>>,
    keywords: AhoCorasick,
    /// For each keyword pattern, the rules it enables (a bit per rule).
    enables: Vec<u64>,
    secret_name: OnceLock<Regex>,
}

/// One match in a text: the secret's byte range and the rule that found it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hit {
    pub rule: usize,
    pub start: usize,
    pub end: usize,
}

impl Hit {
    pub fn kind(&self) -> &'static str {
        RULES[self.rule].kind
    }
}

/// The one compiled scanner of the process.
pub fn scanner() -> &'static Scanner {
    static S: OnceLock<Scanner> = OnceLock::new();
    S.get_or_init(Scanner::new)
}

impl Scanner {
    fn new() -> Scanner {
        const { assert!(RULES.len() <= 64) };
        let mut words = Vec::new();
        let mut enables = Vec::new();
        for (i, r) in RULES.iter().enumerate() {
            for k in r.keywords {
                match words.iter().position(|w: &String| w.eq_ignore_ascii_case(k)) {
                    Some(at) => enables[at] |= 1u64 << i,
                    None => {
                        words.push(k.to_ascii_lowercase());
                        enables.push(1u64 << i);
                    }
                }
            }
        }
        let keywords = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&words)
            .expect("the keyword table is a valid automaton");
        let regexes = RULES.iter().map(|_| OnceLock::new()).collect();
        let secret_name = OnceLock::new();
        Scanner { regexes, keywords, enables, secret_name }
    }

    /// Whether any keyword occurs in `bytes` (one pass that stops at the first).
    pub fn any(&self, bytes: &[u8]) -> bool {
        self.keywords.is_match(bytes)
    }

    /// The rules whose keywords occur in `bytes` (a bit per rule; 0: no rule can match).
    pub fn candidates(&self, bytes: &[u8]) -> u64 {
        let mut mask = 0;
        for m in self.keywords.find_overlapping_iter(bytes) {
            mask |= self.enables[m.pattern().as_usize()];
        }
        mask
    }

    /// Every secret in `text`, in order, overlaps resolved (the earlier rule wins).
    pub fn find(&self, text: &str) -> Vec<Hit> {
        let mask = self.candidates(text.as_bytes());
        let mut hits = Vec::new();
        if mask != 0 {
            self.find_with(text, mask, &mut hits);
        }
        resolve(hits)
    }

    /// Matches of the rules in `mask`, unresolved.
    pub fn find_with(&self, text: &str, mask: u64, out: &mut Vec<Hit>) {
        for (i, re) in self.regexes.iter().enumerate() {
            if mask & (1 << i) == 0 {
                continue;
            }
            let r = &RULES[i];
            let re = re.get_or_init(|| Regex::new(&regex_source(r)).unwrap_or_else(|e| panic!("rule {}: {e}", r.kind)));
            for caps in re.captures_iter(text) {
                let m = caps.name("s").or_else(|| caps.get(0)).expect("group 0 always matches");
                if confirm(RULES[i].check, m.as_str()) {
                    out.push(Hit { rule: i, start: m.start(), end: m.end() });
                }
            }
        }
    }

    /// A JSON object member whose name says secret (`"API_TOKEN": "..."`): the value
    /// checked as an assignment's would be. Also catches `"SecretAccessKey": "..."`.
    pub fn find_member(&self, name: &str, value: &str) -> Vec<Hit> {
        let mut hits = Vec::new();
        let aws = rule_index("aws_secret_key");
        if value.len() == 40 && self.candidates(name.as_bytes()) & (1 << aws) != 0 {
            let text = format!("{name}={value}");
            let shift = name.len() + 1;
            let mut found = Vec::new();
            self.find_with(&text, 1 << aws, &mut found);
            hits.extend(found.into_iter().filter(|h| h.start >= shift).map(|h| Hit {
                start: h.start - shift,
                end: h.end - shift,
                ..h
            }));
        }
        let generic = rule_index("generic_secret");
        if hits.is_empty()
            && self
                .secret_name
                .get_or_init(|| Regex::new(&format!(r"(?i){SECRET_NAME}$")).expect("valid regex"))
                .is_match(name)
            && (12..=256).contains(&value.len())
            && !value.contains(char::is_whitespace)
            && confirm(RULES[generic].check, value)
        {
            hits.push(Hit { rule: generic, start: 0, end: value.len() });
        }
        hits
    }
}

/// The position of a kind in [`RULES`].
pub fn rule_index(kind: &str) -> usize {
    RULES.iter().position(|r| r.kind == kind).expect("a kind of the table")
}

/// The stable kind names, in table order.
pub fn kinds() -> impl Iterator<Item = &'static Rule> {
    RULES.iter()
}

/// Keep non-overlapping hits, earlier rules first, then sort by position.
pub fn resolve(mut hits: Vec<Hit>) -> Vec<Hit> {
    if hits.len() < 2 {
        return hits;
    }
    hits.sort_by_key(|h| (h.rule, h.start));
    // The kept hits' spans, start -> end. They never overlap, so a hit overlaps one of them
    // exactly when it overlaps the last that starts before it ends: one probe a hit, where a
    // search of every kept hit made a string of 200,000 secrets take 9 s. (Two kept spans
    // share a start only if one is empty; the longer stands for both.)
    let mut spans: BTreeMap<usize, usize> = BTreeMap::new();
    let mut kept: Vec<Hit> = Vec::with_capacity(hits.len());
    for h in hits {
        let overlaps = spans.range(..h.end).next_back().is_some_and(|(_, &end)| h.start < end);
        if !overlaps {
            let end = spans.entry(h.start).or_insert(h.end);
            *end = (*end).max(h.end);
            kept.push(h);
        }
    }
    kept.sort_by_key(|h| h.start);
    kept
}

fn confirm(check: Check, s: &str) -> bool {
    match check {
        Check::None => true,
        Check::Entropy { skip, bits } => {
            let body = s.get(skip.min(s.len())..).unwrap_or(s);
            !placeholder(s) && entropy(body) >= bits
        }
        Check::PemBody => {
            let body = s.split("-----").nth(2).unwrap_or("");
            let b64 = body.bytes().filter(|b| b.is_ascii_alphanumeric() || *b == b'+' || *b == b'/').count();
            b64 >= 64 && !placeholder(body)
        }
        Check::Jwt => {
            let head = s.split('.').next().unwrap_or("");
            base64url(head).is_some_and(|h| {
                serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(&h)
                    .is_ok_and(|m| m.contains_key("alg") || m.contains_key("typ"))
            })
        }
        Check::UrlPassword => !placeholder(s) && !s.starts_with(['$', '%', '<', '{', '*']),
        Check::Assignment => {
            s.len() >= 12
                && !placeholder(s)
                && !s.starts_with(['$', '%', '<', '{', '*', '@'])
                && !dotted_identifier(s)
                && entropy(s) >= 3.5
        }
    }
}

/// Words of example and template values: a value containing one is not a live secret.
const PLACEHOLDERS: &[&str] = &[
    "xxxx",
    "****",
    "....",
    "changeme",
    "change_me",
    "change-me",
    "your_",
    "your-",
    "yourkey",
    "<your",
    "example",
    "placeholder",
    "dummy",
    "redacted",
    "sample",
    "replace_me",
    "replaceme",
    "insert_",
    "${",
    "{{",
    "fake",
];

/// Values that are not secrets whatever the rule: templates, elisions, our own redactions.
pub fn placeholder(s: &str) -> bool {
    let lower = s.to_ascii_lowercase();
    if PLACEHOLDERS.iter().any(|p| lower.contains(p)) {
        return true;
    }
    if matches!(lower.as_str(), "password" | "pass" | "passwd" | "secret" | "pwd" | "token" | "test" | "admin") {
        return true;
    }
    // One character repeated (`aaaaaaaa`, `00000000`).
    let mut chars = s.chars();
    let first = chars.next();
    first.is_some() && chars.all(|c| Some(c) == first)
}

/// `process.env.API_KEY`, `settings.SECRET_KEY`: a reference to a secret, not one.
fn dotted_identifier(s: &str) -> bool {
    s.contains('.')
        && s.split('.').all(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'))
        && s.split('.').all(|p| !p.bytes().all(|b| b.is_ascii_digit()))
}

/// Shannon entropy of the characters of `s`, in bits per character.
pub fn entropy(s: &str) -> f64 {
    let mut counts = [0u32; 256];
    let mut n = 0u32;
    for b in s.bytes() {
        counts[b as usize] += 1;
        n += 1;
    }
    if n == 0 {
        return 0.0;
    }
    let n = f64::from(n);
    counts.iter().filter(|&&c| c > 0).map(|&c| f64::from(c) / n).map(|p| -p * p.log2()).sum()
}

fn base64url(s: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(s.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in s.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// What a report may show of a secret: a short prefix (at most 6 characters, never more
/// than a quarter of it) and its length, e.g. `ghp_ab…(40 chars)`.
pub fn mask(secret: &str) -> String {
    let n = secret.chars().count();
    let shown: String = secret.chars().take((n / 4).min(6)).collect();
    format!("{shown}…({n} chars)")
}

/// What a copy holds in place of a secret.
pub fn redaction(kind: &str) -> String {
    format!("[REDACTED:{kind}]")
}

/// A finding's identity across files and runs: SHA-256 of the kind and the secret (hex).
/// The same secret leaked in two sessions has one fingerprint, so one `--allow` line
/// silences it wherever it appears; moving or appending to a file changes nothing.
pub fn fingerprint(kind: &str, secret: &str) -> String {
    let mut h = Sha256::new();
    h.update(kind.as_bytes());
    h.update(b"\0");
    h.update(secret.as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// `text` with every secret replaced by `with(kind, secret)`.
pub fn replace_all<'t>(text: &'t str, with: impl Fn(&str, &str) -> String) -> Cow<'t, str> {
    let hits = scanner().find(text);
    if hits.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for h in hits {
        out.push_str(&text[at..h.start]);
        out.push_str(&with(h.kind(), &text[h.start..h.end]));
        at = h.end;
    }
    out.push_str(&text[at..]);
    Cow::Owned(out)
}

/// `text` with every secret masked: for messages that quote session text.
pub fn mask_text(text: &str) -> Cow<'_, str> {
    replace_all(text, |_, s| mask(s))
}

/// `text` with every secret replaced by `[REDACTED:kind]`.
pub fn redact_text(text: &str) -> Cow<'_, str> {
    replace_all(text, |k, _| redaction(k))
}

#[cfg(test)]
mod tests;
