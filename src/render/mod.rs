//! Output: the colour palette, safe JSON, and the human text renderers. Renderers never
//! compute; they lay out views that were computed elsewhere.

pub mod compact;
pub mod fit;
pub mod json;
pub mod lines;
pub mod matches;
pub mod palette;
pub mod progress;
pub mod table;
pub mod text;
pub mod value;

pub use palette::Palette;

/// No borders, a rule under the header: the densest table layout that stays readable.
pub const RULE_UNDER_HEADER: &str = "     ─             ";

/// Columns a view may use with `--wide`: lines are never cut (text is shown whole).
pub const UNLIMITED: usize = usize::MAX / 4;

/// Columns available for one-line views: the terminal's width (`COLUMNS` first, then the
/// terminal stdout is), or a generous default when output is not a terminal (so pipes get
/// readable, bounded lines).
pub fn width() -> usize {
    use std::io::IsTerminal;
    if let Some(w) = std::env::var("COLUMNS").ok().and_then(|c| c.parse::<usize>().ok()) {
        return w.max(40);
    }
    if std::io::stdout().is_terminal() {
        if let Some((terminal_size::Width(w), _)) = terminal_size::terminal_size() {
            return (w as usize).max(40);
        }
    }
    120
}
