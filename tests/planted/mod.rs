//! Planted secrets for the audit and redact tests: one or more per kind, each in the text
//! it usually comes in, plus near misses that must not be found. Values are assembled at
//! run time from a prefix and a pseudo-random body, so the repository holds no literal
//! token that a scanner would flag. Also plants them into the sessions of testdata/ (one
//! file per format).
#![allow(dead_code)]

use serde_json::Value;

/// `n` pseudo-random characters of `alphabet` (xorshift from `seed`).
pub fn body(seed: u64, n: usize, alphabet: &str) -> String {
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

pub const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// One planted secret: its kind, the secret itself, and the text it sits in.
pub struct Plant {
    pub kind: &'static str,
    pub secret: String,
    pub text: String,
}

fn b64url(s: &str) -> String {
    const T: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let mut out = String::new();
    for c in s.as_bytes().chunks(3) {
        let n = c.iter().enumerate().fold(0u32, |a, (i, b)| a | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=c.len() {
            out.push(T[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

fn pem(seed: u64, label: &str) -> String {
    let lines: Vec<String> = (0..10).map(|i| body(seed + i, 64, B64)).collect();
    format!("-----BEGIN {label}-----\n{}\n-----END {label}-----", lines.join("\n"))
}

/// Every kind, with `seed` varying the values (two seeds give different secrets).
pub fn plants(seed: u64) -> Vec<Plant> {
    let s = |k: u64| seed * 1000 + k;
    let p =
        |kind: &'static str, secret: String, text: &dyn Fn(&str) -> String| Plant { kind, text: text(&secret), secret };
    let pk = ["RSA PRIVATE", " KEY"].concat();
    let gcp_key = pem(s(40), &["PRIVATE", " KEY"].concat()).replace('\n', "\\n") + "\\n";
    vec![
        p("private_key", pem(s(1), &pk), &|v| format!("$ cat ~/.ssh/id_rsa\n{v}\n")),
        p("gcp_service_account", gcp_key, &|v| {
            format!("{{\n  \"type\": \"service_account\",\n  \"project_id\": \"demo\",\n  \"private_key\": \"{v}\",\n  \"client_email\": \"svc@demo.iam\"\n}}")
        }),
        p("aws_access_key", ["AK", "IA", &body(s(2), 16, UPPER32)].concat(), &|v| format!("aws_access_key_id = {v}")),
        p("aws_secret_key", body(s(3), 40, B64), &|v| {
            format!("[default]\naws_secret_access_key = {v}\nregion = eu-west-1")
        }),
        p("azure_storage_key", [body(s(4), 86, B64), "==".into()].concat(), &|v| {
            format!("DefaultEndpointsProtocol=https;AccountName=acct;AccountKey={v};EndpointSuffix=core.windows.net")
        }),
        p("azure_shared_access_key", [body(s(5), 43, B64), "=".into()].concat(), &|v| {
            format!("Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey={v}")
        }),
        p("github_token", ["gh", "p_", &body(s(6), 36, ALNUM)].concat(), &|v| {
            format!("git clone https://x-access-token@github.com/o/r # token {v}")
        }),
        p("github_token", ["gh", "s_", &body(s(7), 36, ALNUM)].concat(), &|v| format!("GH_TOKEN: {v}")),
        p("github_token", ["github", "_pat_", &body(s(8), 22, ALNUM), "_", &body(s(9), 59, ALNUM)].concat(), &|v| {
            format!("use {v} for the API")
        }),
        p("gitlab_token", ["gl", "pat-", &body(s(10), 20, ALNUM)].concat(), &|v| {
            format!("curl -H 'PRIVATE-TOKEN: {v}' https://gitlab.example/api")
        }),
        p("slack_token", ["xo", "xb-", "2345678901-", &body(s(11), 24, ALNUM)].concat(), &|v| format!("SLACK_BOT={v}")),
        p(
            "slack_webhook",
            [
                "https://hooks.",
                "slack.com/services/T",
                &body(s(12), 8, UPPER32),
                "/B",
                &body(s(13), 8, UPPER32),
                "/",
                &body(s(14), 24, ALNUM),
            ]
            .concat(),
            &|v| format!("curl -X POST -d '{{}}' {v}"),
        ),
        p("stripe_key", ["sk", "_live_", &body(s(15), 24, ALNUM)].concat(), &|v| format!("stripe.api_key = \"{v}\"")),
        p("npm_token", ["np", "m_", &body(s(16), 36, ALNUM)].concat(), &|v| {
            format!("//registry.npmjs.org/:_authToken={v}")
        }),
        p("pypi_token", ["pypi-", "AgEIcHlwaS5vcmc", &body(s(17), 70, ALNUM)].concat(), &|v| {
            format!("[pypi]\n  username = __token__\n  password = {v}")
        }),
        p("anthropic_key", ["sk-", "ant-api03-", &body(s(18), 93, ALNUM), "AA"].concat(), &|v| {
            format!("ANTHROPIC_API_KEY={v}")
        }),
        p("openai_key", ["sk-", "proj-", &body(s(19), 64, ALNUM)].concat(), &|v| {
            format!("client = OpenAI(api_key=\"{v}\")")
        }),
        p("model_api_key", ["AI", "za", &body(s(20), 35, ALNUM)].concat(), &|v| {
            format!("https://generativelanguage.googleapis.com/v1/models?key={v}")
        }),
        p("model_api_key", ["hf", "_", &body(s(21), 34, LETTERS)].concat(), &|v| {
            format!("huggingface-cli login --token {v}")
        }),
        p("model_api_key", ["gs", "k_", &body(s(22), 52, ALNUM)].concat(), &|v| format!("GROQ {v}")),
        p(
            "jwt",
            [
                b64url("{\"alg\":\"HS256\",\"typ\":\"JWT\"}"),
                b64url(&format!("{{\"sub\":\"{}\",\"iat\":1516239022}}", seed)),
                body(s(23), 43, ALNUM),
            ]
            .join("."),
            &|v| format!("Authorization: Bearer {v}"),
        ),
        p("url_password", body(s(24), 18, ALNUM), &|v| format!("DATABASE_URL=postgres://app:{v}@db.internal:5432/app")),
        p("generic_secret", body(s(25), 28, ALNUM), &|v| format!("export SESSION_SECRET={v}")),
        p("generic_secret", body(s(26), 24, ALNUM), &|v| format!("DB_PASSWORD=\"{v}\"")),
    ]
}

/// Text that looks like secrets but is not one: templates, examples, references, prose.
pub fn near_misses() -> Vec<String> {
    vec![
        ["AK", "IAIOSFODNN7EXAMPLE"].concat(),
        ["aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/", "bPxRfiCYEXAMPLEKEY"].concat(),
        ["gh", "p_", &"x".repeat(36)].concat(),
        ["gh", "p_", "short1234"].concat(),
        "xoxb-your-token-here".into(),
        ["https://hooks.", "slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"].concat(),
        ["sk", "_test_", &body(7, 24, ALNUM)].concat(),
        "sk-ant-api03-...".into(),
        "the risk-proj-management-document-for-this-quarter-is-here".into(),
        "hf_hub_download_repository_for_models_now".into(),
        "API_KEY=changeme-changeme".into(),
        "API_KEY=<your-api-key>".into(),
        "API_KEY=${API_KEY}".into(),
        "OPENAI_API_KEY=****************".into(),
        "SECRET_KEY=process.env.SECRET_KEY".into(),
        "max_tokens=4096 and input_tokens=123456789".into(),
        "postgres://app:${DB_PASSWORD}@db/app".into(),
        "https://user:password@example.com/".into(),
        "git@github.com:owner/repo.git and https://github.com/owner/repo".into(),
        ["-----BEGIN RSA ", "PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----"].concat(),
        "eyJhbGciOiJub25lIn0.eyJzdWIiOiIxIn0.".into(),
        "npm_install_dependencies_for_the_workspace_now".into(),
        "password: hunter2".into(),
        "DB_PASSWORD=aaaaaaaaaaaaaaaaaaaa".into(),
    ]
}

/// One session file of each format, from testdata/.
pub const FORMATS: &[(&str, &str)] = &[
    ("arcturn", "testdata/arcturn/basic.jsonl"),
    ("crab", "testdata/crab/basic.jsonl"),
    ("pi", "testdata/pi/v3-compacted.jsonl"),
    ("claude", "testdata/claude/compaction.jsonl"),
    ("codex", "testdata/codex/compacted.jsonl"),
];

/// Keys whose string values hold message text, tool arguments or results.
const SLOTS: &[&str] =
    &["text", "thinking", "content", "output", "arguments", "command", "message", "summary", "input"];

/// The lines of `file` with `texts` appended, one to each string slot in turn (first
/// slot of the first line onward, wrapping). Returns the new file text and, for each
/// text, the 1-based line it went to.
pub fn plant_into(file: &str, texts: &[String]) -> (String, Vec<u32>) {
    let src = std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).expect("testdata");
    let mut lines: Vec<Option<Value>> = src.lines().map(|l| serde_json::from_str::<Value>(l).ok()).collect();
    let raw: Vec<&str> = src.lines().collect();
    // Slots: (line, path) of each string under a slot key.
    let mut slots: Vec<(usize, Vec<PathStep>)> = Vec::new();
    for (i, v) in lines.iter().enumerate() {
        if let Some(v) = v {
            collect(v, &mut Vec::new(), &mut |path| slots.push((i, path)));
        }
    }
    assert!(!slots.is_empty(), "{file}: no slot to plant into");
    let mut at = Vec::new();
    for (k, t) in texts.iter().enumerate() {
        let (line, path) = &slots[k % slots.len()];
        let v = lines[*line].as_mut().expect("parsed");
        if let Value::String(s) = get_mut(v, path) {
            s.push('\n');
            s.push_str(t);
        }
        at.push(*line as u32 + 1);
    }
    let mut out = String::new();
    let mut touched: Vec<usize> = at.iter().map(|l| *l as usize - 1).collect();
    touched.sort();
    touched.dedup();
    for (i, l) in raw.iter().enumerate() {
        match (&lines[i], touched.binary_search(&i).is_ok()) {
            (Some(v), true) => out.push_str(&serde_json::to_string(v).expect("serializes")),
            _ => out.push_str(l),
        }
        out.push('\n');
    }
    (out, at)
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn collect(v: &Value, path: &mut Vec<PathStep>, f: &mut dyn FnMut(Vec<PathStep>)) {
    match v {
        Value::Object(o) => {
            for (k, x) in o {
                path.push(PathStep::Key(k.clone()));
                if matches!(x, Value::String(_)) && SLOTS.contains(&k.as_str()) {
                    f(path.clone());
                } else {
                    collect(x, path, f);
                }
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                path.push(PathStep::Index(i));
                collect(x, path, f);
                path.pop();
            }
        }
        _ => {}
    }
}

fn get_mut<'v>(v: &'v mut Value, path: &[PathStep]) -> &'v mut Value {
    path.iter().fold(v, |v, step| match step {
        PathStep::Key(k) => &mut v[k.as_str()],
        PathStep::Index(i) => &mut v[*i],
    })
}
