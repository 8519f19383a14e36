//! Tables of figures that fit the terminal. A table is text columns (names) followed by
//! number columns. Numbers are never wrapped or cut: their columns take the width of their
//! widest figure, headers wrap at spaces above them, and the text columns share what is
//! left, cut with `…`. When the numbers alone do not fit, the table is stacked: one block a
//! row, the name on its first line and `header value` pairs wrapped below it.
//!
//! comfy-table lays the fitted cells out; it is never asked to wrap anything itself (its
//! dynamic arrangement splits numbers across lines).

use std::fmt;

use comfy_table::{CellAlignment, ContentArrangement, Table};

use super::fit;

/// A table of text columns then number columns, fitted to `width` columns when shown.
pub struct Grid {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
    /// Columns from this one on are numbers (right-aligned, never cut).
    numeric_from: usize,
    width: usize,
}

/// Narrowest a text column is squeezed to before the table is stacked instead.
const MIN_TEXT: usize = 8;

impl Grid {
    pub fn new(width: usize, header: &[&str]) -> Grid {
        Grid {
            header: header.iter().map(|h| h.to_string()).collect(),
            rows: Vec::new(),
            numeric_from: header.len(),
            width,
        }
    }

    pub fn add_row(&mut self, row: Vec<String>) {
        self.rows.push(row);
    }

    /// Columns from `from` on hold numbers.
    pub fn numeric(&mut self, from: usize) {
        self.numeric_from = from.min(self.header.len());
    }

    fn cell(&self, r: usize, c: usize) -> &str {
        self.rows[r].get(c).map_or("", String::as_str)
    }

    fn body_width(&self, c: usize) -> usize {
        (0..self.rows.len()).map(|r| fit::width(self.cell(r, c))).max().unwrap_or(0)
    }

    fn longest_word(&self, c: usize) -> usize {
        self.header[c].split(' ').map(fit::width).max().unwrap_or(0)
    }

    /// The width of each column's content, or `None` when the table must be stacked.
    fn layout(&self) -> Option<Vec<usize>> {
        let n = self.header.len();
        let mut cols = vec![0; n];
        // Each column has a space either side.
        let mut used = 2 * n;
        for (c, w) in cols.iter_mut().enumerate().skip(self.numeric_from) {
            *w = self.body_width(c).max(self.longest_word(c));
            used += *w;
        }
        let text: Vec<usize> = (0..self.numeric_from).collect();
        let want: Vec<usize> = text.iter().map(|&c| self.body_width(c).max(fit::width(&self.header[c]))).collect();
        let mins: usize = want.iter().map(|&w| w.min(MIN_TEXT)).sum();
        if used + mins > self.width {
            return None;
        }
        // Share what is left: the narrowest text columns get all they want first.
        let mut left = self.width - used;
        let mut order: Vec<usize> = (0..text.len()).collect();
        order.sort_by_key(|&i| want[i]);
        for (k, &i) in order.iter().enumerate() {
            let share = left / (order.len() - k);
            let w = want[i].min(share.max(MIN_TEXT.min(want[i])));
            cols[text[i]] = w;
            left = left.saturating_sub(w);
        }
        Some(cols)
    }

    fn stacked(&self) -> Vec<String> {
        let mut lines = Vec::new();
        for r in 0..self.rows.len() {
            let names: Vec<&str> = (0..self.numeric_from).map(|c| self.cell(r, c)).filter(|s| !s.is_empty()).collect();
            lines.push(fit::truncate(&names.join("  "), self.width).into_owned());
            let pairs: Vec<String> = (self.numeric_from..self.header.len())
                .filter(|&c| !self.cell(r, c).is_empty())
                .map(|c| format!("{} {}", self.header[c], self.cell(r, c)))
                .collect();
            for l in fit::wrap_parts(&pairs, " · ", self.width.saturating_sub(2), 0) {
                lines.push(format!("  {l}"));
            }
        }
        lines
    }
}

/// Header text wrapped at spaces to `w` columns.
fn wrap_header(h: &str, w: usize) -> String {
    fit::wrap(h, w, 0).join("\n")
}

impl fmt::Display for Grid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Like comfy-table's own Display: no newline after the last line.
        let Some(cols) = self.layout() else { return f.write_str(&self.stacked().join("\n")) };
        let mut t = Table::new();
        t.load_preset(super::RULE_UNDER_HEADER).set_content_arrangement(ContentArrangement::Disabled);
        let numeric = |c: usize| c >= self.numeric_from;
        t.set_header(
            self.header
                .iter()
                .enumerate()
                .map(|(c, h)| if numeric(c) { wrap_header(h, cols[c]) } else { fit::truncate(h, cols[c]).into_owned() })
                .collect::<Vec<_>>(),
        );
        for r in 0..self.rows.len() {
            t.add_row(
                (0..self.header.len())
                    .map(|c| {
                        if numeric(c) {
                            self.cell(r, c).to_string()
                        } else {
                            fit::truncate(self.cell(r, c), cols[c]).into_owned()
                        }
                    })
                    .collect::<Vec<_>>(),
            );
        }
        for c in self.numeric_from..self.header.len() {
            if let Some(col) = t.column_mut(c) {
                col.set_cell_alignment(CellAlignment::Right);
            }
        }
        // comfy-table pads every line to the table's width; trailing spaces are noise in a
        // terminal and in a pipe alike.
        let text = t.to_string();
        let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
        f.write_str(&lines.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grid(width: usize) -> Grid {
        let mut g = Grid::new(width, &["session", "input", "cache write", "total"]);
        g.add_row(vec![
            "a-very-long-session-file-name.jsonl".into(),
            "8,623".into(),
            "5,470".into(),
            "1,234,567".into(),
        ]);
        g.add_row(vec!["short".into(), "30".into(), "0".into(), "34".into()]);
        g.numeric(1);
        g
    }

    #[test]
    fn numbers_are_never_cut_and_lines_fit() {
        let text = grid(40).to_string();
        assert!(text.lines().all(|l| fit::width(l) <= 40), "{text}");
        for n in ["8,623", "5,470", "1,234,567", "30", "34"] {
            assert!(text.lines().any(|l| l.split_whitespace().any(|w| w == n)), "{n} whole on a line:\n{text}");
        }
        assert!(text.contains('…'), "the name is cut instead:\n{text}");
    }

    #[test]
    fn a_table_too_narrow_for_its_numbers_is_stacked() {
        let text = grid(24).to_string();
        assert!(text.lines().all(|l| fit::width(l) <= 24), "{text}");
        assert!(text.contains("total 1,234,567"), "{text}");
    }

    #[test]
    fn a_wide_terminal_shows_everything() {
        let text = grid(200).to_string();
        assert!(text.contains("a-very-long-session-file-name.jsonl"), "{text}");
    }
}
