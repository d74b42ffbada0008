//! How often a model met features outside its training ranges, for the warning that the data
//! differs from what the model learned from.
//!
//! Every model file since format 5 stores each feature's training range, and scoring clamps into
//! it (docs/MODEL_FILE.md, "Feature ranges"). Clamping keeps one odd summary from moving a score
//! far, but it also hides how far new data lies from the training data. That distance is what
//! the classic content built-ins' transfer failures have in common: under leave-one-set-out,
//! `surface.compression` of 11 % of Newsroom's summaries lies above the range of the
//! `responsiveness` recipe's other training sets, `content.cosine_topic_words` of 8 % of
//! DialSummEval's, `content.multinomial_loglik` of 28 % of SummEval-OP's (reference-free recipe),
//! while no feature of SummEval or REALSumm leaves it for as many as 5 % (docs/RESULTS.md,
//! "Features outside the training range").
//!
//! The warning is per feature, not per summary: a new summary from the training corpus itself
//! falls outside the range of one feature or another often when a model has hundreds of them
//! (38 % of the summaries of half of SummEval for the `readability` recipe trained on the other
//! half, no feature for more than 2 %), as the maximum of a sample is exceeded by about one new
//! value in n + 1. So a feature counts when at least [`WARN_SHARE`] of the scored summaries, and
//! at least [`WARN_SUMMARIES`] of them, lie outside its range.

use serde::Serialize;

use super::model_file::FeatureRange;

/// The share of a run's scored summaries outside a feature's range from which it is named.
pub const WARN_SHARE: f64 = 0.05;

/// The fewest summaries outside a feature's range for it to be named: one or two summaries
/// outside some range say little about the data as a whole.
pub const WARN_SUMMARIES: usize = 5;

/// Features outside one model's training ranges, over the summaries it scored (summaries not
/// scored, such as empty ones, are not counted).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RangeTally {
    /// Summaries counted.
    pub summaries: usize,
    /// Per feature column of the model: values below the training minimum.
    pub below: Vec<usize>,
    /// Per feature column of the model: values above the training maximum.
    pub above: Vec<usize>,
}

impl RangeTally {
    /// An empty tally for a model of `columns` features.
    pub fn new(columns: usize) -> RangeTally {
        RangeTally {
            summaries: 0,
            below: vec![0; columns],
            above: vec![0; columns],
        }
    }

    /// Add the counts of `other` (a tally of the same model over other summaries).
    pub fn add(&mut self, other: &RangeTally) {
        self.summaries += other.summaries;
        for (mine, theirs) in [
            (&mut self.below, &other.below),
            (&mut self.above, &other.above),
        ] {
            if mine.len() < theirs.len() {
                mine.resize(theirs.len(), 0);
            }
            for (m, t) in mine.iter_mut().zip(theirs) {
                *m += t;
            }
        }
    }

    /// The feature columns outside their range for at least [`WARN_SHARE`] and
    /// [`WARN_SUMMARIES`] of the summaries, most often outside first (ties in column order).
    pub fn flagged(&self) -> Vec<usize> {
        let columns = self.below.len().max(self.above.len());
        let mut flagged: Vec<usize> = (0..columns)
            .filter(|&k| {
                let n = self.count(k);
                n >= WARN_SUMMARIES && n as f64 >= WARN_SHARE * self.summaries as f64
            })
            .collect();
        flagged.sort_by_key(|&k| std::cmp::Reverse(self.count(k)));
        flagged
    }

    /// Count value `v` of column `k` where it lies outside `range` (a missing value, NaN, never
    /// does). The caller counts the summary itself in `summaries`.
    pub fn count_value(&mut self, k: usize, v: f64, range: &FeatureRange) {
        if v < range.min {
            self.below[k] += 1;
        } else if v > range.max {
            self.above[k] += 1;
        }
    }

    /// The flagged features (see [`RangeTally::flagged`]) by name, most often outside first;
    /// `features` names the model's columns.
    pub fn outside(&self, features: &[String]) -> Vec<OutsideRange> {
        self.flagged()
            .into_iter()
            .map(|k| OutsideRange {
                feature: features.get(k).map_or("?", String::as_str).to_string(),
                below: self.below.get(k).copied().unwrap_or(0),
                above: self.above.get(k).copied().unwrap_or(0),
                share: self.count(k) as f64 / self.summaries as f64,
            })
            .collect()
    }

    /// The warning for model `model` whose feature columns are `features`, naming the flagged
    /// features (see [`RangeTally::flagged`]) and on which side of their range they fell; `None`
    /// when no feature is flagged.
    pub fn warning(&self, model: &str, features: &[String]) -> Option<String> {
        let outside = self.outside(features);
        if outside.is_empty() {
            return None;
        }
        Some(format!(
            "model {model}: of the {} scored summaries, many have features outside the range the \
             model was trained on: {}; they were clamped into it, but data this far from the \
             training data may be scored less well (docs/MODEL_FILE.md, \"Feature ranges\")",
            self.summaries,
            named_list(&outside, 3),
        ))
    }

    /// Values of column `k` outside the range.
    fn count(&self, k: usize) -> usize {
        self.below.get(k).copied().unwrap_or(0) + self.above.get(k).copied().unwrap_or(0)
    }
}

/// One feature outside a model's training range for many of the summaries it scored.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutsideRange {
    pub feature: String,
    /// Summaries whose value lay below the training minimum.
    pub below: usize,
    /// Summaries whose value lay above the training maximum.
    pub above: usize,
    /// Share of the counted summaries outside on either side.
    pub share: f64,
}

impl std::fmt::Display for OutsideRange {
    /// `surface.compression above it for 46 (11%)`: the wording of the warning.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = match (self.below > 0, self.above > 0) {
            (true, false) => "below",
            (false, true) => "above",
            _ => "below and above",
        };
        write!(
            f,
            "{} {side} it for {} ({:.0}%)",
            self.feature,
            self.below + self.above,
            100.0 * self.share
        )
    }
}

/// The first `shown` of `outside`, then how many more: `a above it for 3 (30%), 2 more`.
pub fn named_list(outside: &[OutsideRange], shown: usize) -> String {
    let mut named: Vec<String> = outside.iter().take(shown).map(|o| o.to_string()).collect();
    if outside.len() > shown {
        named.push(format!("{} more", outside.len() - shown));
    }
    named.join(", ")
}

/// The tallies of a run's models, by model name in the order first seen, for one warning per
/// model at the end of the run.
#[derive(Debug, Clone, Default)]
pub struct RunRanges {
    models: Vec<(String, Vec<String>, RangeTally)>,
}

impl RunRanges {
    /// Add `tally` to model `name`'s, whose feature columns are `features`.
    pub fn add(&mut self, name: &str, features: &[String], tally: &RangeTally) {
        match self.models.iter_mut().find(|(n, _, _)| n == name) {
            Some((_, _, total)) => total.add(tally),
            None => self
                .models
                .push((name.to_string(), features.to_vec(), tally.clone())),
        }
    }

    /// One warning per model with a flagged feature (see [`RangeTally::flagged`]).
    pub fn warnings(&self) -> Vec<String> {
        self.models
            .iter()
            .filter_map(|(name, features, tally)| tally.warning(name, features))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<String> {
        ["a.x", "a.y", "b.z", "b.w", "c.v"]
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    fn tally(summaries: usize, below: &[usize], above: &[usize]) -> RangeTally {
        RangeTally {
            summaries,
            below: below.to_vec(),
            above: above.to_vec(),
        }
    }

    #[test]
    fn a_feature_is_named_from_five_percent_and_five_summaries_outside() {
        // 4 of 10: 40 %, but under five summaries.
        assert_eq!(tally(10, &[4, 0], &[0, 0]).warning("m", &names()), None);
        // 4 of 100: five summaries are not 5 %.
        assert_eq!(tally(100, &[4, 0], &[0, 0]).warning("m", &names()), None);
        // Two features of 4 % each do not add up to one of 8 %.
        assert_eq!(tally(100, &[4, 4], &[0, 0]).warning("m", &names()), None);
        assert_eq!(tally(100, &[5, 0], &[0, 0]).flagged(), vec![0]);
        assert_eq!(tally(10, &[0, 2], &[0, 3]).flagged(), vec![1]);
        assert_eq!(tally(0, &[], &[]).warning("m", &names()), None);
    }

    #[test]
    fn the_warning_names_the_features_most_often_outside_and_their_side() {
        let warning = tally(100, &[6, 0, 10, 7, 5], &[0, 30, 10, 0, 0])
            .warning("responsiveness", &names())
            .expect("warns");
        assert_eq!(
            warning,
            "model responsiveness: of the 100 scored summaries, many have features outside the \
             range the model was trained on: a.y above it for 30 (30%), b.z below and above it \
             for 20 (20%), b.w below it for 7 (7%), 2 more; they were clamped into it, but data \
             this far from the training data may be scored less well (docs/MODEL_FILE.md, \
             \"Feature ranges\")"
        );
    }

    #[test]
    fn outside_lists_the_flagged_features_with_their_sides_and_shares() {
        let outside = tally(100, &[6, 0, 10, 1, 0], &[0, 30, 10, 0, 0]).outside(&names());
        let listed: Vec<(&str, usize, usize)> = outside
            .iter()
            .map(|o| (o.feature.as_str(), o.below, o.above))
            .collect();
        assert_eq!(listed, vec![("a.y", 0, 30), ("b.z", 10, 10), ("a.x", 6, 0)]);
        assert_eq!(outside[1].share, 0.2);
        assert_eq!(
            named_list(&outside, 2),
            "a.y above it for 30 (30%), b.z below and above it for 20 (20%), 1 more"
        );
        assert_eq!(named_list(&outside[..1], 5), "a.y above it for 30 (30%)");
    }

    #[test]
    fn count_value_counts_only_values_beyond_the_range() {
        let range = FeatureRange { min: 0.0, max: 1.0 };
        let mut tally = RangeTally::new(1);
        for v in [-0.5, 0.0, 0.5, 1.0, 1.5, 2.0, f64::NAN] {
            tally.count_value(0, v, &range);
        }
        assert_eq!((tally.below[0], tally.above[0]), (1, 2));
    }

    #[test]
    fn tallies_add_up() {
        let mut total = RangeTally::new(2);
        total.add(&tally(3, &[1, 0], &[0, 0]));
        total.add(&tally(2, &[0, 0], &[2, 1]));
        assert_eq!(total, tally(5, &[1, 0], &[2, 1]));
    }

    #[test]
    fn a_run_warns_once_per_model_over_all_its_parts() {
        let mut run = RunRanges::default();
        // 3 of 50, then 2 of 50: five of 100 outside a.x, one warning; another model none.
        run.add("m", &names(), &tally(50, &[3, 0], &[0, 0]));
        run.add("m", &names(), &tally(50, &[2, 0], &[0, 0]));
        run.add("other", &names(), &tally(50, &[4, 0], &[0, 0]));
        let warnings = run.warnings();
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].starts_with("model m: of the 100 scored summaries, many have features"),
            "{warnings:?}"
        );
        assert!(
            warnings[0].contains("a.x below it for 5 (5%);"),
            "{warnings:?}"
        );
    }
}
