//! The HTML export opened in headless Chromium: no script from the content runs, the page
//! renders (a screenshot is taken), and a folded `<details>` opens when a link points into
//! it. When `/usr/bin/chromium` is missing the tests fail under `CI=true` (or
//! `ARCTURN_REQUIRE_BROWSER=1`) and otherwise skip with a `SKIPPED:` line on stderr.

mod prereq;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

const CHROMIUM: &str = "/usr/bin/chromium";

fn browser() -> Option<PathBuf> {
    let p = PathBuf::from(CHROMIUM);
    if p.exists() {
        return Some(p);
    }
    prereq::missing(&format!("{CHROMIUM} not found"), "apt-get install chromium", "ARCTURN_REQUIRE_BROWSER");
    None
}

fn export_html(session: &str, out: &Path, extra: &[&str]) {
    let status = Command::new(env!("CARGO_BIN_EXE_arcturn-inspect"))
        .args(["-q", "export", "--html", "-o", out.to_str().unwrap()])
        .args(extra)
        .arg(session)
        .status()
        .expect("run the binary");
    assert_eq!(status.code(), Some(0));
}

/// Run Chromium headless with networking and background services off; returns stdout.
fn chromium(bin: &Path, profile: &Path, args: &[String]) -> String {
    let mut child = Command::new(bin)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-dev-shm-usage",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("start chromium");
    // A hung browser must not hang the test suite.
    let deadline = std::time::Instant::now() + Duration::from_secs(90);
    loop {
        if child.try_wait().expect("wait for chromium").is_some() {
            break;
        }
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium did not finish within 90 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let out = child.wait_with_output().expect("chromium output");
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn url(p: &Path, fragment: &str) -> String {
    format!("file://{}{fragment}", p.display())
}

#[test]
fn hostile_export_runs_no_script_and_renders() {
    let Some(bin) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("hostile.html");
    export_html("testdata/hostile/hostile.jsonl", &page, &["--thinking"]);
    let profile = dir.path().join("profile");

    let dom = chromium(&bin, &profile, &["--dump-dom".into(), url(&page, "")]);
    assert!(dom.contains("</html>"), "chromium produced a DOM: {dom:.200}");
    // Every would-be script in the content sets document.title to `pwned-...` or adds
    // <p id=pwned>; none may have run.
    let title = dom.split("<title>").nth(1).and_then(|t| t.split("</title>").next()).unwrap_or("");
    assert!(title.starts_with("&lt;script&gt;document.title='pwned-title'"), "the title changed: {title}");
    assert!(!dom.contains("<p id=\"pwned\""), "a script added an element");
    assert!(!dom.to_ascii_lowercase().contains("<script"), "a script element exists in the DOM");
    assert!(!dom.contains("<iframe"), "an iframe exists in the DOM");
    // The hostile text is there, as text.
    assert!(dom.contains("&lt;script&gt;document.title='pwned-md'&lt;/script&gt;"));

    let shot = dir.path().join("shot.png");
    chromium(
        &bin,
        &profile,
        &[format!("--screenshot={}", shot.display()), "--window-size=1280,2000".into(), url(&page, "")],
    );
    let png = std::fs::read(&shot).expect("a screenshot was written");
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    assert!(png.len() > 20_000, "a page with content, not a blank image ({} bytes)", png.len());
    if let Some(keep) = std::env::var_os("ARCTURN_KEEP_SCREENSHOT") {
        std::fs::copy(&shot, keep).unwrap();
    }
}

#[test]
fn folded_details_open_when_a_link_points_inside() {
    let Some(bin) = browser() else { return };
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("review.html");
    export_html("testdata/export/arcturn-review.jsonl", &page, &[]);
    let html = std::fs::read_to_string(&page).unwrap();
    // The 315-line `cargo test` output (call c03) starts folded.
    let folded = "<details class=\"result\"><summary><span class=\"tag\">result</span> <code>bash</code> <span class=\"dim\">315 lines</span>";
    assert!(html.contains(folded), "the long output is folded in the file");
    let profile = dir.path().join("profile");

    let closed = chromium(&bin, &profile, &["--dump-dom".into(), url(&page, "")]);
    let opened = chromium(&bin, &profile, &["--dump-dom".into(), url(&page, "#out-c03")]);
    let state = |dom: &str| {
        let at = dom.find("id=\"out-c03\"").expect("the output is in the DOM");
        let open_tag = dom[..at].rfind("<details").expect("inside a details element");
        dom[open_tag..at].split('>').next().unwrap().to_string()
    };
    assert!(!state(&closed).contains("open"), "folded without the fragment: {}", state(&closed));
    assert!(state(&opened).contains("open"), "the browser opened it: {}", state(&opened));
}
