//! What `aesop evaluate` prints and draws: the text report and the SVG scatter plot of the
//! system means.

use super::{EvaluationReport, MisorderedPair};
use crate::bootstrap::{DiscriminativePower, Estimate, Resample};
use crate::levels::{LengthAlone, LevelStats, SummaryCoverage};
use crate::svg::{escape as xml_escape, Svg};
use std::fmt::Write as _;

fn fmt3(x: f64) -> String {
    if x.is_nan() {
        "   —  ".to_string()
    } else {
        format!("{x:6.3}")
    }
}

fn with_interval(e: &Estimate) -> String {
    format!(
        "{} [{}, {}]",
        fmt3(e.value),
        fmt3(e.interval.lower).trim(),
        fmt3(e.interval.upper).trim()
    )
}

/// What the intervals of a report are: `95% percentile-bootstrap intervals: 1000 samples
/// resampling topics and systems, seed 1`.
pub(super) fn bootstrap_line(samples: usize, resample: Resample, seed: u64) -> String {
    format!(
        "95% percentile-bootstrap intervals: {samples} samples resampling {}, seed {seed}",
        match resample {
            Resample::Systems => "systems",
            Resample::Topics => "topics",
            Resample::Both => "topics and systems",
        }
    )
}

/// The human-readable report.
pub fn render_text(report: &EvaluationReport) -> String {
    let mut out = String::new();
    let c = &report.counts;
    let _ = writeln!(out, "metric: {}", report.metric);
    let _ = writeln!(out, "human:  {}", report.human);
    let _ = writeln!(
        out,
        "rows: {} matched ({} metric, {} human; {} metric-only, {} human-only); {}, {}",
        c.matched,
        c.metric_rows,
        c.human_rows,
        c.metric_only,
        c.human_only,
        aesop_core::counted(report.topics, "topic", "topics"),
        aesop_core::counted(report.systems, "system", "systems")
    );
    if c.metric_missing > 0 {
        let _ = writeln!(
            out,
            "      {} metric rows have no value (empty, null or NaN) and are not evaluated",
            c.metric_missing
        );
    }
    let _ = writeln!(
        out,
        "{}",
        bootstrap_line(report.bootstrap_samples, report.resample, report.seed)
    );
    let _ = writeln!(out);
    let by_name = |name: &str| report.estimates.iter().find(|e| e.name == name);
    let s = &report.statistics;
    let _ = writeln!(
        out,
        "{:<9} {:>5}  {:<24} {:<24} {:<24}",
        "level", "n", "Pearson r", "Spearman rho", "Kendall tau-b"
    );
    for (level, n) in [
        ("summary", s.summary_topics),
        ("system", s.systems),
        ("global", s.rows),
    ] {
        let cell = |coef: &str| {
            by_name(&format!("{level}.{coef}"))
                .map(with_interval)
                .unwrap_or_default()
        };
        let _ = writeln!(
            out,
            "{:<9} {:>5}  {:<24} {:<24} {:<24}",
            level,
            n,
            cell("pearson"),
            cell("spearman"),
            cell("kendall")
        );
    }
    render_summary_coverage(&mut out, &report.summary_coverage);
    let _ = writeln!(out);
    for (label, name, p) in [
        (
            "system-level pairwise accuracy",
            "system.pairwise_accuracy",
            &s.system_pairwise,
        ),
        (
            "input-level pairwise accuracy ",
            "input.pairwise_accuracy",
            &s.input_pairwise,
        ),
    ] {
        let _ = writeln!(
            out,
            "{label}: {}  ({} of {} pairs; {} human ties left out, {} metric ties counted wrong)",
            by_name(name).map(with_interval).unwrap_or_default(),
            p.correct,
            p.pairs,
            p.human_ties,
            p.metric_ties
        );
    }
    let tied = &s.input_tie_calibrated;
    let _ = writeln!(
        out,
        "input-level accuracy with ties: {}  ({} pairs, {} tied by the humans, so a constant \
         metric gets {}; tie-calibrated: metric values within {} count as tied)",
        by_name("input.tie_calibrated_accuracy")
            .map(with_interval)
            .unwrap_or_default(),
        tied.pairs,
        tied.human_ties,
        fmt3(tied.human_ties as f64 / tied.pairs as f64).trim(),
        crate::epsilon_or_dash(tied.epsilon)
    );
    render_length_matched(
        &mut out,
        s,
        &report.length_alone,
        by_name("input.length_matched_accuracy"),
    );
    render_misordered(&mut out, &report.misordered_system_pairs);
    let _ = writeln!(out);
    render_discriminative(&mut out, "metric", &report.discriminative_power);
    if let Some(cmp) = &report.comparison {
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "comparison: A = {}, B = {} ({} shared rows)",
            report.metric, cmp.metric, cmp.shared_rows
        );
        let _ = writeln!(
            out,
            "{:<30} {:>7} {:>7} {:>8} {:>14} {:>14}",
            "statistic", "A", "B", "A - B", "P(A > B) boot", "perm. p"
        );
        for row in &cmp.statistics {
            let _ = writeln!(
                out,
                "{:<30} {:>7} {:>7} {:>8} {:>14} {:>14}",
                row.name,
                fmt3(row.a).trim(),
                fmt3(row.b).trim(),
                fmt3(row.difference).trim(),
                fmt3(row.bootstrap_a_wins).trim(),
                fmt3(row.permutation_p).trim()
            );
        }
        let [a, b] = &cmp.summary_coverage;
        if a.ranked_by_metric() != b.ranked_by_metric() {
            let _ = writeln!(
                out,
                "summary level: A ranks the summaries of {} topics, B of {} (of the {} the \
                 annotators rank): each summary-level mean is over its own topics",
                a.ranked_by_metric(),
                b.ranked_by_metric(),
                a.ranked_by_humans
            );
        }
        let _ = writeln!(out);
        render_discriminative(&mut out, "A, shared rows", &cmp.discriminative_power_a);
        let _ = writeln!(out);
        render_discriminative(&mut out, "B, shared rows", &cmp.discriminative_power);
    }
    out
}

/// The pairwise accuracy over pairs of matched length, beside what length alone gets: a metric
/// that wins only by rewarding length (DialSummEval, SummEval-OP) falls to chance there.
fn render_length_matched(
    out: &mut String,
    s: &LevelStats,
    alone: &LengthAlone,
    estimate: Option<&Estimate>,
) {
    let matched = &s.input_length_matched;
    let percent = 100.0 * s.length_tolerance;
    if !alone.lengths_known {
        let _ = writeln!(
            out,
            "input-level accuracy at matched length: —  (the summaries' lengths are unknown: the \
             human scores came from a table without their texts)"
        );
        return;
    }
    if matched.pairs == 0 {
        let _ = writeln!(
            out,
            "input-level accuracy at matched length: —  (no pair the humans order has word counts \
             within {percent:.0}% of each other)"
        );
        return;
    }
    let _ = writeln!(
        out,
        "input-level accuracy at matched length: {}  ({} of the {} pairs the humans order have word \
         counts within {percent:.0}% of each other; {} metric ties counted wrong; summary length \
         alone orders {} of all those pairs and {} of these)",
        estimate.map(with_interval).unwrap_or_default(),
        matched.pairs,
        alone.all.pairs,
        matched.metric_ties,
        fmt3(alone.all.accuracy).trim(),
        fmt3(alone.matched.accuracy).trim(),
    );
}

/// Says which topics the summary level leaves out because the metric ties all their summaries
/// (nothing when there are none: the `n` column then says it all).
fn render_summary_coverage(out: &mut String, coverage: &SummaryCoverage) {
    if coverage.metric_constant == 0 {
        return;
    }
    let _ = writeln!(
        out,
        "summary level: the metric gives every summary the same value in {} of the {} topics the \
         annotators rank; those have no coefficient, and the means are over the other {}",
        coverage.metric_constant,
        coverage.ranked_by_humans,
        coverage.ranked_by_metric()
    );
}

/// How many misordered system pairs are listed in the text report (all are in `--json`).
const MISORDERED_SHOWN: usize = 10;

fn render_misordered(out: &mut String, pairs: &[MisorderedPair]) {
    if pairs.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "system pairs ordered wrongly ({}), largest human gap first:",
        pairs.len()
    );
    let _ = writeln!(
        out,
        "  {:<30} {:>10} {:>10}",
        "higher > lower (by the humans)", "human gap", "metric gap"
    );
    for p in pairs.iter().take(MISORDERED_SHOWN) {
        let _ = writeln!(
            out,
            "  {:<30} {:>+10.3} {:>+10.3}",
            format!("{} > {}", p.higher, p.lower),
            p.human_gap,
            p.metric_gap
        );
    }
    if pairs.len() > MISORDERED_SHOWN {
        let _ = writeln!(
            out,
            "  and {} more (all in the --json report)",
            pairs.len() - MISORDERED_SHOWN
        );
    }
}

fn render_discriminative(out: &mut String, who: &str, d: &DiscriminativePower) {
    let _ = writeln!(
        out,
        "discriminative power ({who}; paired Wilcoxon over topics, alpha {}): {} system pairs",
        d.alpha, d.pairs
    );
    let _ = writeln!(
        out,
        "  agree: {} (both significant, same direction {}; neither significant {})",
        d.agreements, d.both_significant_same_direction, d.neither_significant
    );
    let _ = writeln!(
        out,
        "  disagree: {} (metric only {}; human only {}; opposite directions {})",
        d.disagreements, d.metric_only, d.human_only, d.both_significant_opposite_direction
    );
}

/// Scatter plot of system means (x: metric, y: human), one labelled dot per system.
pub fn scatter_svg(report: &EvaluationReport) -> String {
    let (width, height) = (640.0, 480.0);
    let (left, right, top, bottom) = (70.0, 30.0, 50.0, 60.0);
    let points = &report.system_means;
    let range = |values: Vec<f64>| {
        let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // A constant axis still needs a span; pad 5% on each side.
        let span = if hi > lo { hi - lo } else { lo.abs().max(1.0) };
        (lo - 0.05 * span, hi + 0.05 * span)
    };
    let (x0, x1) = range(points.iter().map(|p| p.1).collect());
    let (y0, y1) = range(points.iter().map(|p| p.2).collect());
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (width - left - right);
    let py = |y: f64| height - bottom - (y - y0) / (y1 - y0) * (height - top - bottom);
    let mut svg = Svg::new(width, height);
    let tau = report.statistics.system.kendall;
    // The label holds the whole path; its file name (and column) is enough on a plot.
    let metric = report
        .metric
        .rsplit(['/', '\\'])
        .next()
        .unwrap_or(&report.metric);
    svg.title(
        width,
        &format!(
            "System means: {metric} vs human {} (system-level Kendall tau-b {})",
            report.target,
            fmt3(tau).trim()
        ),
    );
    // Axes with five ticks each.
    let (ax0, ax1, ay0, ay1) = (left, width - right, height - bottom, top);
    svg.push(format_args!(
        r#"<path d="M{ax0},{ay1} L{ax0},{ay0} L{ax1},{ay0}" fill="none" stroke="black"/>"#
    ));
    for i in 0..=4 {
        let f = i as f64 / 4.0;
        let xv = x0 + f * (x1 - x0);
        let yv = y0 + f * (y1 - y0);
        let (tx, ty) = (px(xv), py(yv));
        svg.push(format_args!(
            r#"<line x1="{tx:.1}" y1="{ay0}" x2="{tx:.1}" y2="{:.1}" stroke="black"/><text x="{tx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            ay0 + 5.0,
            ay0 + 18.0,
            tick_label(xv, x1 - x0)
        ));
        svg.push(format_args!(
            r#"<line x1="{:.1}" y1="{ty:.1}" x2="{ax0}" y2="{ty:.1}" stroke="black"/><text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            ax0 - 5.0,
            ax0 - 8.0,
            ty + 4.0,
            tick_label(yv, y1 - y0)
        ));
    }
    svg.push(format_args!(
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle" font-size="12">{} (mean over topics)</text>"#,
        (ax0 + ax1) / 2.0,
        height - 15.0,
        xml_escape(metric)
    ));
    svg.push(format_args!(
        r#"<text x="18" y="{:.1}" text-anchor="middle" font-size="12" transform="rotate(-90 18 {:.1})">human {} (mean over topics)</text>"#,
        (ay0 + ay1) / 2.0,
        (ay0 + ay1) / 2.0,
        xml_escape(&report.target)
    ));
    for (system, x, y) in points {
        let (cx, cy) = (px(*x), py(*y));
        svg.push(format_args!(
            r#"<circle cx="{cx:.1}" cy="{cy:.1}" r="4" fill="steelblue"><title>{}: {x:.4}, {y:.4}</title></circle><text x="{:.1}" y="{:.1}" font-size="9" fill="dimgray">{}</text>"#,
            xml_escape(system),
            cx + 6.0,
            cy - 4.0,
            xml_escape(system)
        ));
    }
    svg.finish()
}

/// A tick label with enough decimals for the axis span.
fn tick_label(value: f64, span: f64) -> String {
    let decimals = if span <= 0.0 {
        2
    } else {
        (2.0 - span.log10().floor()).clamp(0.0, 6.0) as usize
    };
    format!("{value:.decimals$}")
}
