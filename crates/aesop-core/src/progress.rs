//! Whether long runs draw progress, and where: the one meaning of every verb's `--progress`.
//!
//! Progress is drawn when standard error is a terminal, or everywhere when the user asked for it
//! with `--progress` (e.g. to follow a run whose standard error goes to a log file). The flag is
//! parsed once by the binary, which calls [`force`]; every verb asks [`enabled`], so no verb has
//! its own notion of it. Off a terminal, indicatif draws nothing on its own terminal target, so
//! bars are drawn through [`draw_target`]: on a terminal the usual bar, elsewhere one plain line
//! per update, about once a second (after a first burst).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle, TermLike};
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

static FORCED: AtomicBool = AtomicBool::new(false);

/// Work done and in all, for a caller that draws progress its own way (the Python package's
/// `progress=`): the worker adds to `done` as units finish and sets `total` once it knows it (0
/// until then: a features table counts its columns only after reading every set).
#[derive(Debug, Default)]
pub struct Counter {
    pub done: AtomicUsize,
    pub total: AtomicUsize,
}

/// `--progress` was given: draw progress even when standard error is not a terminal.
pub fn force(on: bool) {
    FORCED.store(on, Ordering::Relaxed);
}

/// Draw progress now: `--progress` was given, or standard error is a terminal.
pub fn enabled() -> bool {
    FORCED.load(Ordering::Relaxed) || std::io::stderr().is_terminal()
}

/// Where a progress bar draws: hidden unless [`enabled`]; the terminal when standard error is
/// one; else plain lines on standard error (about once a second).
pub fn draw_target() -> ProgressDrawTarget {
    if !enabled() {
        ProgressDrawTarget::hidden()
    } else if std::io::stderr().is_terminal() {
        ProgressDrawTarget::stderr()
    } else {
        ProgressDrawTarget::term_like_with_hz(Box::new(Lines), 1)
    }
}

/// A spinner with `message` and the elapsed time, for verbs whose work has no natural count
/// (`import`, `analyze`, `evaluate`): drawn where [`draw_target`] draws. End it with
/// `finish_and_clear`.
pub fn spinner(message: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(None, draw_target());
    bar.set_style(
        ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar.set_message(message.to_string());
    bar.enable_steady_tick(std::time::Duration::from_millis(200));
    bar
}

/// A bar counting `len` units of work (`{what} [====>   ] 3/10 {unit} 0:01 (eta 0:02)`), drawn
/// where [`draw_target`] draws.
pub fn counted(len: u64, what: &str, unit: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(len), draw_target());
    let template =
        format!("{{spinner}} {what} [{{bar:30}}] {{pos}}/{{len}} {unit} {{elapsed}} (eta {{eta}})");
    bar.set_style(
        ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| ProgressStyle::default_bar())
            .progress_chars("=> "),
    );
    bar
}

/// A status line for runners whose own bar is a terminal-only spinner (the stream runner of
/// `features` and `score`): it draws its message (`{what}: {msg} [{elapsed}]`), as plain lines,
/// only when `--progress` asked for progress and standard error is not a terminal, so the two
/// never both draw.
pub fn off_terminal_lines(what: &str) -> ProgressBar {
    if !FORCED.load(Ordering::Relaxed) || std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(
        None,
        ProgressDrawTarget::term_like_with_hz(Box::new(Lines), 1),
    );
    let template = format!("{what}: {{msg}} [{{elapsed}}]");
    bar.set_style(
        ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    bar
}

/// Standard error that is not a terminal: every redraw is one line, nothing is erased.
#[derive(Debug)]
struct Lines;

impl TermLike for Lines {
    fn width(&self) -> u16 {
        100
    }
    fn move_cursor_up(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_down(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_right(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn move_cursor_left(&self, _: usize) -> std::io::Result<()> {
        Ok(())
    }
    fn write_line(&self, s: &str) -> std::io::Result<()> {
        writeln!(std::io::stderr().lock(), "{s}")
    }
    fn write_str(&self, s: &str) -> std::io::Result<()> {
        if s.trim().is_empty() {
            return Ok(());
        }
        writeln!(std::io::stderr().lock(), "{s}")
    }
    fn clear_line(&self) -> std::io::Result<()> {
        Ok(())
    }
    fn flush(&self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn forcing_turns_progress_on() {
        super::force(true);
        assert!(super::enabled());
        assert!(!super::draw_target().is_hidden());
        super::force(false);
    }
}
