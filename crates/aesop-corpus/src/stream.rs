//! Streaming a judgment set through per-topic work. Topics are read a window at a time, the
//! window is processed in parallel over topics (rayon) while the next one is read, and the
//! results are handed to a sink in file order. Memory depends on the window and the largest
//! topic, never on the size of the set, so `aesop score` and `aesop features` handle a million
//! summaries the way they handle a hundred.

use super::Topic;
use aesop_core::output::Interrupted;
use anyhow::Result;
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How much work is in flight at once.
#[derive(Debug, Clone, Copy)]
pub struct Window {
    /// At most this many topics per window.
    pub topics: usize,
    /// A window is closed once it holds this many summaries (a single larger topic still forms
    /// a window of its own).
    pub summaries: usize,
}

impl Default for Window {
    /// A few topics per core, so that uneven topics still keep every core busy.
    fn default() -> Window {
        let threads = rayon::current_num_threads().max(1);
        Window {
            topics: 8 * threads,
            summaries: 512 * threads,
        }
    }
}

/// What a streamed run went through.
#[derive(Debug, Clone, Copy, Default)]
pub struct StreamStats {
    pub topics: usize,
    pub summaries: usize,
    pub elapsed: Duration,
}

impl StreamStats {
    /// Summaries per second over the whole run.
    pub fn summaries_per_second(&self) -> f64 {
        self.summaries as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Run `work` on every topic of `topics` (in parallel within a window) and give each result to
/// `sink` in input order. The first error (reading, working, or sinking) ends the run;
/// `cancel` is polled per topic and ends it with [`Interrupted`].
///
/// With `progress` (the verb's name, e.g. `"features"`) the topics and summaries done so far,
/// and their rates, are drawn as each topic's work finishes, not when its window reaches the
/// sink: a window of slow topics (the neural classes take seconds each, and a window holds up
/// to [`Window::summaries`] summaries) would otherwise show nothing for minutes. On a terminal
/// they are a spinner; off one, with `--progress`, plain lines
/// ([`aesop_core::progress::off_terminal_lines`]).
pub fn for_each_topic<I, T, W, S>(
    topics: I,
    window: Window,
    progress: Option<&str>,
    cancel: &AtomicBool,
    work: W,
    mut sink: S,
) -> Result<StreamStats>
where
    I: Iterator<Item = Result<Topic>> + Send,
    T: Send,
    W: Fn(&Topic) -> Result<T> + Sync,
    S: FnMut(&Topic, T) -> Result<()>,
{
    let start = Instant::now();
    let finished = TopicProgress::new(progress, start);
    let mut topics = topics;
    let mut current = read_window(&mut topics, window)?;
    while !current.is_empty() {
        Interrupted::check(cancel)?;
        // Read the next window while this one is worked on.
        let (next, results) = rayon::join(
            || read_window(&mut topics, window),
            || {
                current
                    .par_iter()
                    .map(|topic| {
                        Interrupted::check(cancel)?;
                        let result = work(topic);
                        finished.topic_done(topic);
                        result
                    })
                    .collect::<Vec<Result<T>>>()
            },
        );
        for (topic, result) in current.iter().zip(results) {
            sink(topic, result?)?;
        }
        current = next?;
    }
    // An interrupt that lands while the last window's topics are all in flight lets them
    // finish; the run must still end as interrupted, or the verb would write its output and
    // exit 0 after the user asked it to stop.
    Interrupted::check(cancel)?;
    finished.finish();
    // Every topic was worked on and sunk, so the progress counts are the run's.
    Ok(StreamStats {
        topics: finished.topics.into_inner(),
        summaries: finished.summaries.into_inner(),
        elapsed: start.elapsed(),
    })
}

/// What the progress of a run says: `12 topics (0.4/s), 190 summaries (6/s)`.
fn progress_message(topics: usize, summaries: usize, seconds: f64) -> String {
    let seconds = seconds.max(1e-9);
    format!(
        "{topics} topics ({:.1}/s), {summaries} summaries ({:.0}/s)",
        topics as f64 / seconds,
        summaries as f64 / seconds
    )
}

/// The progress of [`for_each_topic`]: topics and summaries whose work has finished, counted
/// from the worker threads.
struct TopicProgress {
    topics: AtomicUsize,
    summaries: AtomicUsize,
    drawing: Mutex<()>,
    start: Instant,
    /// Draws on a terminal only.
    spinner: ProgressBar,
    /// Draws off a terminal only, with `--progress`.
    lines: ProgressBar,
}

impl TopicProgress {
    fn new(progress: Option<&str>, start: Instant) -> TopicProgress {
        let (spinner, lines) = match progress {
            Some(what) => {
                let spinner = ProgressBar::new_spinner();
                spinner.set_style(
                    ProgressStyle::with_template("{spinner} {msg} [{elapsed}]")
                        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
                );
                spinner.enable_steady_tick(Duration::from_millis(200));
                (spinner, aesop_core::progress::off_terminal_lines(what))
            }
            None => (ProgressBar::hidden(), ProgressBar::hidden()),
        };
        TopicProgress {
            topics: AtomicUsize::new(0),
            summaries: AtomicUsize::new(0),
            drawing: Mutex::new(()),
            start,
            spinner,
            lines,
        }
    }

    /// `topic`'s work has finished.
    fn topic_done(&self, topic: &Topic) {
        self.topics.fetch_add(1, Ordering::Relaxed);
        self.summaries
            .fetch_add(topic.summaries.len(), Ordering::Relaxed);
        if self.spinner.is_hidden() && self.lines.is_hidden() {
            return;
        }
        // Counted and drawn under one lock, so that a thread that counted earlier cannot draw
        // a smaller count after a later one.
        let _drawing = self
            .drawing
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let topics = self.topics.load(Ordering::Relaxed);
        let summaries = self.summaries.load(Ordering::Relaxed);
        let message = progress_message(topics, summaries, self.start.elapsed().as_secs_f64());
        self.spinner.set_message(message.clone());
        self.lines.set_message(message);
    }

    fn finish(&self) {
        self.spinner.finish_and_clear();
        self.lines.finish_and_clear();
    }
}

/// The next window of topics; empty at the end of the input.
fn read_window<I: Iterator<Item = Result<Topic>>>(
    topics: &mut I,
    window: Window,
) -> Result<Vec<Topic>> {
    let mut out = Vec::new();
    let mut summaries = 0;
    while out.len() < window.topics.max(1) && summaries < window.summaries.max(1) {
        match topics.next() {
            Some(topic) => {
                let topic = topic?;
                summaries += topic.summaries.len();
                out.push(topic);
            }
            None => break,
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Summary;

    fn topic(id: usize, n: usize) -> Result<Topic> {
        let mut t = Topic::new(format!("t{id}"));
        for s in 0..n {
            t.summaries.push(Summary::new(format!("s{s}"), "text"));
        }
        Ok(t)
    }

    #[test]
    fn results_reach_the_sink_in_input_order_across_windows() {
        let input = (0..50).map(|i| topic(i, 1 + i % 4));
        let window = Window {
            topics: 3,
            summaries: 5,
        };
        let mut seen = Vec::new();
        let stats = for_each_topic(
            input,
            window,
            None,
            &AtomicBool::new(false),
            |t| Ok(t.topic.clone()),
            |t, id| {
                assert_eq!(t.topic, id);
                seen.push(id);
                Ok(())
            },
        )
        .expect("stream");
        let expected: Vec<String> = (0..50).map(|i| format!("t{i}")).collect();
        assert_eq!(seen, expected);
        assert_eq!(stats.topics, 50);
        assert_eq!(stats.summaries, (0..50).map(|i| 1 + i % 4).sum::<usize>());
    }

    #[test]
    fn progress_counts_each_topic_when_its_work_finishes_on_any_thread() {
        let finished = TopicProgress::new(None, Instant::now());
        let topics: Vec<Topic> = (0..40)
            .map(|i| topic(i, 1 + i % 3).expect("topic"))
            .collect();
        topics.par_iter().for_each(|t| finished.topic_done(t));
        assert_eq!(finished.topics.load(Ordering::Relaxed), 40);
        assert_eq!(
            finished.summaries.load(Ordering::Relaxed),
            (0..40).map(|i| 1 + i % 3).sum::<usize>()
        );
        assert_eq!(
            progress_message(3, 48, 2.0),
            "3 topics (1.5/s), 48 summaries (24/s)"
        );
        // A run that has just started divides by a tiny time, not by zero.
        assert!(progress_message(1, 16, 0.0).starts_with("1 topics ("));
    }

    #[test]
    fn a_read_error_ends_the_run_after_the_topics_before_it() {
        let input = (0..10).map(|i| {
            if i == 6 {
                Err(anyhow::anyhow!("set.jsonl:7: broken"))
            } else {
                topic(i, 2)
            }
        });
        let window = Window {
            topics: 2,
            summaries: 100,
        };
        let mut sunk = 0;
        let err = for_each_topic(
            input,
            window,
            None,
            &AtomicBool::new(false),
            |_| Ok(()),
            |_, ()| {
                sunk += 1;
                Ok(())
            },
        )
        .expect_err("read error");
        assert!(err.to_string().contains("set.jsonl:7"), "{err}");
        assert!(sunk <= 6, "{sunk}");
    }

    #[test]
    fn a_set_cancel_flag_interrupts() {
        let input = (0..10).map(|i| topic(i, 1));
        let err = for_each_topic(
            input,
            Window::default(),
            None,
            &AtomicBool::new(true),
            |_| Ok(()),
            |_, ()| Ok(()),
        )
        .expect_err("interrupted");
        assert!(err.downcast_ref::<Interrupted>().is_some());
    }

    #[test]
    fn an_interrupt_during_the_last_window_still_interrupts() {
        // One window holds every topic, and the flag is set once every topic has passed its
        // own check (here: as the last one is sunk), as when Ctrl-C lands while the last
        // topics are in flight: no later check inside the loop sees it.
        let input = (0..4).map(|i| topic(i, 1));
        let cancel = AtomicBool::new(false);
        let mut sunk = 0;
        let err = for_each_topic(
            input,
            Window::default(),
            None,
            &cancel,
            |_| Ok(()),
            |t, ()| {
                sunk += 1;
                if t.topic == "t3" {
                    cancel.store(true, Ordering::Relaxed);
                }
                Ok(())
            },
        )
        .expect_err("interrupted");
        assert!(err.downcast_ref::<Interrupted>().is_some(), "{err}");
        assert_eq!(sunk, 4);
    }
}
