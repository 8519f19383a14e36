//! The one place colours come from. `--color` beats the environment; in `auto`, `NO_COLOR`
//! disables and `CLICOLOR_FORCE` forces, else colour only on a terminal.

use std::fmt::Display;

use owo_colors::{OwoColorize, Style};

/// The user's colour choice.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    #[default]
    Auto,
    Always,
    Never,
}

/// Decide whether to colour a stream.
pub fn enabled(choice: ColorChoice, is_terminal: bool) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            let set = |k: &str| std::env::var_os(k).is_some_and(|v| !v.is_empty());
            if set("NO_COLOR") {
                false
            } else if std::env::var_os("CLICOLOR_FORCE").is_some_and(|v| !v.is_empty() && v != "0") {
                true
            } else {
                is_terminal
            }
        }
    }
}

/// Semantic styles. With colour off every method returns the text unchanged.
#[derive(Clone, Copy, Debug)]
pub struct Palette {
    on: bool,
}

macro_rules! styles {
    ($($name:ident => $style:expr),* $(,)?) => {
        $(pub fn $name(&self, s: impl Display) -> String { self.paint(s, $style) })*
    };
}

impl Palette {
    pub fn new(on: bool) -> Palette {
        Palette { on }
    }

    pub fn plain() -> Palette {
        Palette { on: false }
    }

    pub fn is_on(&self) -> bool {
        self.on
    }

    fn paint(&self, s: impl Display, style: Style) -> String {
        if self.on {
            s.style(style).to_string()
        } else {
            s.to_string()
        }
    }

    styles! {
        id => Style::new().yellow(),
        dim => Style::new().dimmed(),
        bold => Style::new().bold(),
        error => Style::new().red().bold(),
        warning => Style::new().yellow().bold(),
        ok => Style::new().green(),
        user => Style::new().cyan().bold(),
        assistant => Style::new().magenta(),
        tool => Style::new().blue(),
        operator => Style::new().bright_yellow(),
        compaction => Style::new().bright_cyan().bold(),
        label => Style::new().green().bold(),
        state => Style::new().bright_black(),
        current => Style::new().bold(),
        marker => Style::new().bright_green().bold(),
        path => Style::new().underline(),
        matched => Style::new().red().bold(),
        file => Style::new().magenta(),
        line_number => Style::new().green(),
    }
}
