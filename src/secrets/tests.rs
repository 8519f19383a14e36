//! A true positive and a near miss per rule. Secret-looking values are assembled at run
//! time (prefix + pseudo-random body), so this file holds no literal token.

use super::*;

/// `n` pseudo-random characters from `alphabet` (xorshift, fixed seed per call site).
fn body(seed: u64, n: usize, alphabet: &str) -> String {
    let a: Vec<char> = alphabet.chars().collect();
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            a[(x % a.len() as u64) as usize]
        })
        .collect()
}

const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn kinds_in(text: &str) -> Vec<&'static str> {
    scanner().find(text).iter().map(|h| h.kind()).collect()
}

/// The secret a rule must find in `text`, exactly once, with `kind`.
fn finds(kind: &str, text: &str, secret: &str) {
    let hits = scanner().find(text);
    assert_eq!(hits.len(), 1, "{kind}: expected one hit in {text:?}, got {hits:?}");
    assert_eq!(hits[0].kind(), kind, "in {text:?}");
    assert_eq!(&text[hits[0].start..hits[0].end], secret);
}

fn misses(text: &str) {
    assert_eq!(kinds_in(text), Vec::<&str>::new(), "expected nothing in {text:?}");
}

fn pem(label: &str) -> String {
    let lines: Vec<String> = (0..8).map(|i| body(100 + i, 64, B64)).collect();
    format!("-----BEGIN {label}-----\n{}\n-----END {label}-----", lines.join("\n"))
}

#[test]
fn private_key() {
    let key = pem(&["RSA ", "PRIVATE KEY"].concat());
    finds("private_key", &format!("cat id_rsa\n{key}\ndone"), &key);
    misses(&["-----BEGIN RSA ", "PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----"].concat());
}

#[test]
fn private_key_in_a_json_text_with_escaped_newlines() {
    let key = pem(&["OPENSSH ", "PRIVATE KEY"].concat()).replace('\n', "\\n");
    finds("private_key", &format!("echo \"{key}\""), &key);
}

#[test]
fn gcp_service_account() {
    let key = pem(&["PRIVATE", " KEY"].concat()).replace('\n', "\\n");
    let text = format!("{{\"type\": \"service_account\", \"private_key\": \"{key}\\n\", \"client_email\": \"a@b\"}}");
    finds("gcp_service_account", &text, &format!("{key}\\n"));
    misses("{\"type\": \"service_account\", \"private_key\": \"<the key>\"}");
}

#[test]
fn aws_access_key() {
    let k = ["AKIA", &body(1, 16, UPPER32)].concat();
    finds("aws_access_key", &format!("aws_access_key_id = {k}"), &k);
    misses(&["AKIA", "IOSFODNN7EXAMPLE"].concat());
    misses(&["AKIA", "AAAAAAAAAAAAAAAA"].concat());
}

#[test]
fn aws_secret_key() {
    let k = body(2, 40, B64);
    finds("aws_secret_key", &format!("aws_secret_access_key = {k}\n"), &k);
    misses(&format!("aws_secret_access_key = {}", ["wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"].concat()));
}

#[test]
fn aws_secret_key_as_a_json_member() {
    let k = body(3, 40, B64);
    let hits = scanner().find_member("SecretAccessKey", &k);
    assert_eq!(hits.iter().map(|h| h.kind()).collect::<Vec<_>>(), ["aws_secret_key"]);
    assert!(scanner().find_member("Description", &k).is_empty());
}

#[test]
fn azure_storage_key() {
    let k = [body(4, 86, B64), "==".into()].concat();
    let text =
        format!("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={k};EndpointSuffix=core.windows.net");
    finds("azure_storage_key", &text, &k);
    misses("DefaultEndpointsProtocol=https;AccountName=devstoreaccount1;AccountKey=<key>");
}

#[test]
fn azure_shared_access_key() {
    let k = [body(5, 43, B64), "=".into()].concat();
    finds("azure_shared_access_key", &format!("Endpoint=sb://x/;SharedAccessKeyName=root;SharedAccessKey={k}"), &k);
    misses("SharedAccessKey=placeholderplaceholderplaceholderplaceholde=");
}

#[test]
fn github_token() {
    let k = ["gh", "p_", &body(6, 36, ALNUM)].concat();
    finds("github_token", &format!("export GITHUB_TOKEN={k}"), &k);
    let pat = ["github", "_pat_", &body(7, 22, ALNUM), "_", &body(8, 59, ALNUM)].concat();
    finds("github_token", &format!("token: {pat}"), &pat);
    misses(&["gh", "p_", &"x".repeat(36)].concat());
    misses(&["gh", "p_", &body(6, 20, ALNUM)].concat());
}

#[test]
fn gitlab_token() {
    let k = ["gl", "pat-", &body(9, 20, ALNUM)].concat();
    finds("gitlab_token", &format!("PRIVATE-TOKEN: {k}"), &k);
    misses(&["gl", "pat-", "xxxxxxxxxxxxxxxxxxxx"].concat());
}

#[test]
fn slack_token() {
    let k = ["xo", "xb-", "123456789012-", &body(10, 24, ALNUM)].concat();
    finds("slack_token", &format!("SLACK={k}"), &k);
    misses("xoxb-your-token-here");
}

#[test]
fn slack_webhook() {
    let k = [
        "https://hooks.",
        "slack.com/services/T",
        &body(11, 8, UPPER32),
        "/B",
        &body(12, 8, UPPER32),
        "/",
        &body(13, 24, ALNUM),
    ]
    .concat();
    finds("slack_webhook", &format!("curl -X POST {k}"), &k);
    misses(&["https://hooks.", "slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"].concat());
}

#[test]
fn stripe_key() {
    let k = ["sk", "_live_", &body(14, 24, ALNUM)].concat();
    finds("stripe_key", &format!("stripe.api_key = \"{k}\""), &k);
    misses(&["sk", "_test_", &body(14, 24, ALNUM)].concat());
}

#[test]
fn npm_token() {
    let k = ["np", "m_", &body(15, 36, ALNUM)].concat();
    finds("npm_token", &format!("//registry.npmjs.org/:_authToken={k}"), &k);
    misses("npm_install_dependencies_for_the_workspace_now");
}

#[test]
fn pypi_token() {
    let k = ["pypi-", "AgEIcHlwaS5vcmc", &body(16, 60, ALNUM)].concat();
    finds("pypi_token", &format!("password = {k}"), &k);
    misses("pypi-AgEIcHlwaS5vcmc");
}

#[test]
fn anthropic_key() {
    let k = ["sk-", "ant-api03-", &body(17, 93, ALNUM), "AA"].concat();
    finds("anthropic_key", &format!("ANTHROPIC_API_KEY={k}"), &k);
    misses("sk-ant-api03-...");
}

#[test]
fn openai_key() {
    let k = ["sk-", "proj-", &body(18, 64, ALNUM)].concat();
    finds("openai_key", &format!("client = OpenAI(api_key=\"{k}\")"), &k);
    let legacy = ["sk-", &body(19, 20, ALNUM), "T3Blbk", "FJ", &body(20, 20, ALNUM)].concat();
    finds("openai_key", &legacy, &legacy);
    misses("the risk-proj-management-document-for-this-quarter-is-here");
}

#[test]
fn model_api_key() {
    let g = ["AI", "za", &body(21, 35, ALNUM)].concat();
    finds("model_api_key", &format!("key={g}&q=1"), &g);
    let h = ["hf", "_", &body(22, 34, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")].concat();
    finds("model_api_key", &format!("HF {h}"), &h);
    let q = ["gs", "k_", &body(23, 52, ALNUM)].concat();
    finds("model_api_key", &q, &q);
    misses("hf_hub_download_repository_for_models_now");
}

#[test]
fn jwt() {
    let b64 = |s: &str| {
        const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        let mut out = String::new();
        for c in s.as_bytes().chunks(3) {
            let n = c.iter().enumerate().fold(0u32, |a, (i, b)| a | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..=c.len() {
                out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
            }
        }
        out
    };
    let k = [
        b64("{\"alg\":\"HS256\",\"typ\":\"JWT\"}"),
        b64("{\"sub\":\"1234567890\",\"iat\":1516239022}"),
        body(24, 43, ALNUM),
    ]
    .join(".");
    finds("jwt", &format!("Authorization: Bearer {k}"), &k);
    // Base64 of something that is not a JOSE header.
    let fake = [b64("{\"not\":\"a header at all\"}"), b64("{\"sub\":\"1234567890\"}"), body(24, 43, ALNUM)].join(".");
    misses(&fake);
}

#[test]
fn url_password() {
    let p = body(25, 16, ALNUM);
    finds("url_password", &format!("DATABASE_URL=postgres://app:{p}@db.internal:5432/app"), &p);
    misses("postgres://app:${DB_PASSWORD}@db/app");
    misses("https://user:password@example.com/");
    misses("https://github.com/owner/repo and mailto:someone@example.com");
}

#[test]
fn generic_secret() {
    let v = body(26, 24, ALNUM);
    finds("generic_secret", &format!("MY_SERVICE_SECRET={v}"), &v);
    finds("generic_secret", &format!("export DB_PASSWORD=\"{v}\""), &v);
    misses("API_KEY=changeme-changeme");
    misses("API_KEY=<your-key>");
    misses("API_KEY=${API_KEY}");
    misses("API_KEY=****************");
    misses("SECRET_KEY=process.env.SECRET_KEY");
    misses("max_tokens=4096");
    misses("DB_PASSWORD=aaaaaaaaaaaaaaaa");
}

#[test]
fn generic_secret_as_a_json_member() {
    let v = body(27, 24, ALNUM);
    assert_eq!(scanner().find_member("api_token", &v).len(), 1);
    assert!(scanner().find_member("api_token", "your-token-here-please").is_empty());
    assert!(scanner().find_member("input_tokens", &v).is_empty());
}

#[test]
fn redactions_are_not_found_again() {
    let k = ["gh", "p_", &body(6, 36, ALNUM)].concat();
    let p = body(25, 16, ALNUM);
    let text = format!("GITHUB_TOKEN={k} and postgres://app:{p}@db/app and SECRET={}", body(3, 20, ALNUM));
    let red = redact_text(&text);
    assert!(!red.contains(&k) && !red.contains(&p));
    assert!(red.contains("[REDACTED:github_token]"), "{red}");
    assert!(scanner().find(&red).is_empty(), "{red}");
}

#[test]
fn the_earlier_rule_wins_an_overlap() {
    let k = ["gh", "p_", &body(6, 36, ALNUM)].concat();
    assert_eq!(kinds_in(&format!("GITHUB_TOKEN={k}")), ["github_token"]);
}

#[test]
fn masks_show_a_short_prefix_and_the_length() {
    let k = ["gh", "p_", &body(6, 36, ALNUM)].concat();
    let m = mask(&k);
    assert_eq!(m, format!("{}…(40 chars)", &k[..6]));
    assert_eq!(mask("abcdefgh"), "ab…(8 chars)");
    assert!(mask_text(&format!("x {k} y")).contains(&m));
}

#[test]
fn fingerprints_depend_on_kind_and_secret_only() {
    let a = fingerprint("github_token", "abc");
    assert_eq!(a.len(), 64);
    assert_eq!(a, fingerprint("github_token", "abc"));
    assert_ne!(a, fingerprint("jwt", "abc"));
    assert_ne!(a, fingerprint("github_token", "abd"));
}

#[test]
fn kinds_are_unique_lower_case_names() {
    let mut seen = std::collections::HashSet::new();
    for r in RULES {
        assert!(r.kind.bytes().all(|b| b.is_ascii_lowercase() || b == b'_'), "{}", r.kind);
        assert!(seen.insert(r.kind), "{} twice", r.kind);
        assert!(!r.keywords.is_empty(), "{} has no keyword", r.kind);
    }
}

#[test]
fn every_rule_regex_compiles() {
    // The scanner compiles a rule's regex on first use: a bad one must fail here, not later.
    for r in RULES {
        assert!(Regex::new(&regex_source(r)).is_ok(), "rule {}", r.kind);
    }
    assert!(Regex::new(&format!(r"(?i){SECRET_NAME}$")).is_ok());
}
