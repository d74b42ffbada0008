//! `aesop ablate`'s outputs: the Markdown table (one layout per protocol), the CSV with one
//! row per model (and, under protocol 2, per held-out set) and the SVG chart of summary-level τ.
//! Only rendering lives here; the numbers come from [`super::AblationReport`].

use super::{AblationReport, Stat, Variant, VersusFull};
use aesop_eval::svg::{escape as xml_escape, Svg};
use aesop_eval::{or_dash, or_dash_signed};
use anyhow::{Context, Result};
use std::fmt::Write as _;

fn fmt_tau(t: &Stat) -> String {
    if t.lower.is_finite() && t.upper.is_finite() {
        format!(
            "{} [{}, {}]",
            or_dash(t.value, 3),
            or_dash(t.lower, 3),
            or_dash(t.upper, 3)
        )
    } else {
        or_dash(t.value, 3)
    }
}

fn fmt_versus(v: &Option<VersusFull>) -> [String; 3] {
    match v {
        None => ["".into(), "".into(), "".into()],
        Some(v) => [
            or_dash_signed(v.difference, 3),
            or_dash(v.bootstrap_wins, 3),
            or_dash(v.permutation_p, 3),
        ],
    }
}

/// Whether the learner named `name` has no hyper-parameters to choose (OLS).
fn has_no_hyper_parameters(name: &str) -> bool {
    crate::learners::LearnerKind::ALL
        .iter()
        .any(|k| k.name() == name && !k.has_hyper_parameters())
}

/// The paragraph that records every model's hyper-parameters and, for an anchored ranker, that
/// its anchor is in every model.
fn learner_note(report: &AblationReport) -> String {
    let hyper = match &report.hyper {
        Some(hyper) => match crate::card::hyper_text(hyper) {
            text if text.is_empty() => "none (the learner has none)".into(),
            text => format!("`{text}` for every model"),
        },
        None if has_no_hyper_parameters(&report.learner) => "none (the learner has none)".into(),
        None => "chosen by inner cross-validation on each model's training rows".into(),
    };
    let mut note = format!("Hyper-parameters: {hyper}. Seed {}", report.seed);
    if report.normalize != "none" {
        let _ = write!(
            note,
            "; features normalized within topics (`{}`)",
            report.normalize
        );
    }
    if report.equal_set_weights {
        note.push_str("; every set weighs the same");
    }
    if let Some(recipe) = &report.recipe {
        let _ = write!(note, "; the recipe of `{recipe}`");
    }
    if let Some(changed) = report
        .feature_options_changed
        .as_object()
        .filter(|c| !c.is_empty())
    {
        let list: Vec<String> = changed
            .iter()
            .map(|(k, v)| format!("`{k}` {}", v["value"]))
            .collect();
        let _ = write!(note, "; feature-class options {}", list.join(", "));
    }
    note.push('.');
    if let Some(anchor) = &report.anchor {
        let _ = write!(
            note,
            " The ranking SVM is anchored on `{anchor}`: every model keeps that feature, and \
             \"anchor alone\" is the ranker on it only{}.",
            if report.protocol == 2 {
                ""
            } else {
                " (under protocol 1 sent through the fold models, which break its ties and can \
                 reverse close pairs: `evaluate --feature` gives the feature's own τ)"
            }
        );
    }
    if let Some(tolerance) = report.pair_length_tolerance {
        let _ = write!(
            note,
            " The ranking SVM learns only from pairs of summaries whose word counts are within {} \
             of the longer one's (`--pair-length-tolerance {tolerance}`).",
            crate::learners::tolerance_percent(tolerance)
        );
    }
    note + "\n\n"
}

/// The Markdown table with a short header naming the protocol.
pub fn render_markdown(report: &AblationReport) -> String {
    if report.protocol == 2 {
        return render_markdown_held_out(report);
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Feature-class ablation: {} on {}\n",
        report.learner, report.target
    );
    let _ = writeln!(
        out,
        "Set {} ({} rows, {}, {}{}). Protocol 1: {}×{} folds, seed {}; {}.\n",
        report.set,
        report.rows,
        aesop_core::counted(report.topics, "topic", "topics"),
        aesop_core::counted(report.systems, "system", "systems"),
        if report.reference_free {
            ", reference-free"
        } else {
            ""
        },
        report.topic_folds,
        report.system_folds,
        report.seed,
        if report.bootstrap == 0 {
            "point estimates only (--bootstrap 0: no intervals or paired tests)".to_string()
        } else {
            format!(
                "95% intervals from {} bootstrap samples over topics and systems; against the \
                 full model: Koehn paired bootstrap over topics (share of samples where the \
                 model wins) and paired permutation p (two-sided)",
                report.bootstrap
            )
        }
    );
    out.push_str(&learner_note(report));
    let _ = write!(
        out,
        "Matched-length acc.: input-level pairwise accuracy over the pairs of summaries within \
         {}% of each other in words, what a model orders beyond length (`aesop evaluate`'s \
         `input.length_matched_accuracy`).\n\n",
        report.length_tolerance * 100.0
    );
    let _ = writeln!(
        out,
        "| Model | Features | Summary τ-b [95% CI] | System τ-b [95% CI] | Δ summary | P(win) summary | p summary | Δ system | P(win) system | p system | Matched-length acc. [95% CI] |"
    );
    let _ = writeln!(out, "|---|---:|---|---|---:|---:|---:|---:|---:|---:|---|");
    for m in &report.models {
        let [sd, sw, sp] = fmt_versus(&m.summary_vs_full);
        let [yd, yw, yp] = fmt_versus(&m.system_vs_full);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {sd} | {sw} | {sp} | {yd} | {yw} | {yp} | {} |",
            m.model,
            m.features,
            fmt_tau(&m.summary_tau),
            fmt_tau(&m.system_tau),
            fmt_tau(&m.length_matched_accuracy)
        );
    }
    out
}

/// The protocol-2 table: one column per held-out set, the mean and how the model fares against
/// the full one.
fn render_markdown_held_out(report: &AblationReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Feature-class ablation: {} on {}, leave one set out\n",
        report.learner, report.target
    );
    let _ = writeln!(
        out,
        "Sets {} ({} rows{}). Protocol 2: each set scored by the model trained on the other \
         sets; summary-level Kendall τ-b on each held-out set, in brackets the difference from \
         the full model on the same rows and the paired permutation p (two-sided, {} samples); \
         the mean over the sets, its difference from the full model's, and on how many sets the \
         model is above the full one; last, the mean input-level pairwise accuracy over the pairs \
         of summaries within {}% of each other in words (what a model orders beyond length).\n",
        report.set,
        report.rows,
        if report.reference_free {
            ", reference-free"
        } else {
            ""
        },
        report.bootstrap,
        report.length_tolerance * 100.0
    );
    out.push_str(&learner_note(report));
    let _ = writeln!(
        out,
        "| Model | Features | {} | Mean | Δ mean | Sets above full | Matched-length acc. (mean) |",
        report.held_out_sets.join(" | ")
    );
    let _ = writeln!(
        out,
        "|---|---:|{}---:|---:|---:|---:|",
        "---|".repeat(report.held_out_sets.len())
    );
    let full_mean = report
        .models
        .first()
        .map_or(f64::NAN, |m| m.summary_tau.value);
    for m in &report.models {
        let cells: Vec<String> = m
            .held_out
            .iter()
            .map(|c| match &c.summary_vs_full {
                None => or_dash(c.summary_tau.value, 3),
                Some(v) => {
                    let [difference, _, p] = fmt_versus(&Some(*v));
                    if v.permutation_p.is_finite() {
                        format!("{} ({difference}, p {p})", or_dash(c.summary_tau.value, 3))
                    } else {
                        format!("{} ({difference})", or_dash(c.summary_tau.value, 3))
                    }
                }
            })
            .collect();
        let (delta, above) = if m.variant == Variant::Full {
            (String::new(), String::new())
        } else {
            let above = m
                .held_out
                .iter()
                .filter(|c| c.summary_vs_full.is_some_and(|v| v.difference > 0.0))
                .count();
            (
                or_dash_signed(m.summary_tau.value - full_mean, 3),
                format!("{above} of {}", m.held_out.len()),
            )
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {delta} | {above} | {} |",
            m.model,
            m.features,
            cells.join(" | "),
            or_dash(m.summary_tau.value, 3),
            or_dash(m.length_matched_accuracy.value, 3)
        );
    }
    out
}

/// Column names of the protocol-2 CSV: one row per model and held-out set, then one per model
/// with `set` = `mean` (the means without intervals or tests).
pub const CSV_COLUMNS_HELD_OUT: [&str; 23] = [
    "model",
    "variant",
    "class",
    "features",
    "set",
    "summary_tau",
    "summary_lower",
    "summary_upper",
    "system_tau",
    "system_lower",
    "system_upper",
    "summary_difference",
    "summary_bootstrap_wins",
    "summary_permutation_p",
    "system_pearson",
    "system_pearson_lower",
    "system_pearson_upper",
    "system_pairwise_accuracy",
    "system_pairwise_lower",
    "system_pairwise_upper",
    "length_matched_accuracy",
    "length_matched_lower",
    "length_matched_upper",
];

/// Column names of the CSV.
pub const CSV_COLUMNS: [&str; 25] = [
    "model",
    "variant",
    "class",
    "features",
    "summary_tau",
    "summary_lower",
    "summary_upper",
    "system_tau",
    "system_lower",
    "system_upper",
    "summary_difference",
    "summary_bootstrap_wins",
    "summary_permutation_p",
    "system_difference",
    "system_bootstrap_wins",
    "system_permutation_p",
    "system_pearson",
    "system_pearson_lower",
    "system_pearson_upper",
    "system_pairwise_accuracy",
    "system_pairwise_lower",
    "system_pairwise_upper",
    "length_matched_accuracy",
    "length_matched_lower",
    "length_matched_upper",
];

fn variant_name(variant: Variant) -> &'static str {
    match variant {
        Variant::Full => "full",
        Variant::Only => "only",
        Variant::Without => "without",
        Variant::Anchor => "anchor",
    }
}

/// The table as CSV (`delimiter`: `,`, or a tab for a `.tsv`); undefined values are empty
/// fields.
pub fn render_csv(report: &AblationReport, delimiter: u8) -> Result<String> {
    let number = |v: f64| {
        if v.is_finite() {
            v.to_string()
        } else {
            String::new()
        }
    };
    let versus = |v: &Option<VersusFull>| match v {
        None => [String::new(), String::new(), String::new()],
        Some(v) => [
            number(v.difference),
            number(v.bootstrap_wins),
            number(v.permutation_p),
        ],
    };
    let mut writer = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(Vec::new());
    if report.protocol == 2 {
        writer.write_record(CSV_COLUMNS_HELD_OUT)?;
        for m in &report.models {
            let head = [
                m.model.clone(),
                variant_name(m.variant).to_string(),
                m.class.clone().unwrap_or_default(),
                m.features.to_string(),
            ];
            for c in &m.held_out {
                let mut record = head.to_vec();
                record.push(c.set.clone());
                for t in [&c.summary_tau, &c.system_tau] {
                    record.extend([number(t.value), number(t.lower), number(t.upper)]);
                }
                record.extend(versus(&c.summary_vs_full));
                for t in [
                    &c.system_pearson,
                    &c.system_pairwise_accuracy,
                    &c.length_matched_accuracy,
                ] {
                    record.extend([number(t.value), number(t.lower), number(t.upper)]);
                }
                writer.write_record(&record)?;
            }
            let mut record = head.to_vec();
            record.push("mean".into());
            record.extend([number(m.summary_tau.value), String::new(), String::new()]);
            record.extend([number(m.system_tau.value), String::new(), String::new()]);
            record.extend([String::new(), String::new(), String::new()]);
            record.extend([number(m.system_pearson.value), String::new(), String::new()]);
            for t in [&m.system_pairwise_accuracy, &m.length_matched_accuracy] {
                record.extend([number(t.value), String::new(), String::new()]);
            }
            writer.write_record(&record)?;
        }
        let bytes = writer.into_inner().context("finishing the CSV")?;
        return Ok(String::from_utf8(bytes)?);
    }
    writer.write_record(CSV_COLUMNS)?;
    for m in &report.models {
        let variant = variant_name(m.variant);
        let mut record = vec![
            m.model.clone(),
            variant.to_string(),
            m.class.clone().unwrap_or_default(),
            m.features.to_string(),
        ];
        for t in [&m.summary_tau, &m.system_tau] {
            record.extend([number(t.value), number(t.lower), number(t.upper)]);
        }
        record.extend(versus(&m.summary_vs_full));
        record.extend(versus(&m.system_vs_full));
        for t in [
            &m.system_pearson,
            &m.system_pairwise_accuracy,
            &m.length_matched_accuracy,
        ] {
            record.extend([number(t.value), number(t.lower), number(t.upper)]);
        }
        writer.write_record(&record)?;
    }
    let bytes = writer.into_inner().context("finishing the CSV")?;
    Ok(String::from_utf8(bytes)?)
}

/// A horizontal bar per model: summary-level τ with its interval as a whisker.
pub fn render_chart(report: &AblationReport) -> String {
    let (label_width, plot_width, right, top, bar_step, bottom) =
        (170.0, 420.0, 30.0, 50.0, 26.0, 40.0);
    let width = label_width + plot_width + right;
    let height = top + bar_step * report.models.len() as f64 + bottom;
    // The axis always includes 0 so bar lengths are comparable.
    let (mut lo, mut hi) = (0.0f64, 0.0f64);
    for m in &report.models {
        for v in [
            m.summary_tau.value,
            m.summary_tau.lower,
            m.summary_tau.upper,
        ] {
            if v.is_finite() {
                lo = lo.min(v);
                hi = hi.max(v);
            }
        }
    }
    let step = [0.05, 0.1, 0.2, 0.25, 0.5]
        .into_iter()
        .find(|s| (hi - lo) / s <= 10.0)
        .unwrap_or(0.5);
    lo = (lo / step).floor() * step;
    hi = (hi / step).ceil() * step;
    if hi - lo < step {
        hi = lo + step;
    }
    let px = |v: f64| label_width + (v - lo) / (hi - lo) * plot_width;
    let axis_y = top + bar_step * report.models.len() as f64;

    let mut svg = Svg::new(width, height);
    let what = if report.protocol == 2 {
        "mean over the held-out sets"
    } else if report.bootstrap == 0 {
        "point estimates"
    } else {
        "95% bootstrap intervals"
    };
    svg.title(
        width,
        &format!(
            "Summary-level Kendall tau-b, {} on {} ({what})",
            report.learner, report.target
        ),
    );
    // Grid lines and tick labels.
    let ticks = ((hi - lo) / step).round() as usize;
    for k in 0..=ticks {
        let v = lo + k as f64 * step;
        let x = px(v);
        svg.push(format_args!(
            r##"<line x1="{x:.1}" y1="{top}" x2="{x:.1}" y2="{axis_y}" stroke="#ddd"/>"##
        ));
        svg.push(format_args!(
            r#"<text x="{x:.1}" y="{:.1}" text-anchor="middle">{:.2}</text>"#,
            axis_y + 15.0,
            v
        ));
    }
    let zero = px(0.0);
    for (i, m) in report.models.iter().enumerate() {
        let y = top + bar_step * i as f64;
        let mid = y + bar_step / 2.0;
        svg.push(format_args!(
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end">{}</text>"#,
            label_width - 8.0,
            mid + 4.0,
            xml_escape(&m.model)
        ));
        let t = &m.summary_tau;
        if !t.value.is_finite() {
            continue;
        }
        let colour = match m.variant {
            Variant::Full => "#444",
            Variant::Only => "#4c78a8",
            Variant::Without => "#f58518",
            Variant::Anchor => "#54a24b",
        };
        let (x0, x1) = (zero.min(px(t.value)), zero.max(px(t.value)));
        svg.push(format_args!(
            r#"<rect x="{x0:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{colour}"/>"#,
            y + 4.0,
            (x1 - x0).max(0.5),
            bar_step - 8.0
        ));
        if t.lower.is_finite() && t.upper.is_finite() {
            let (a, b) = (px(t.lower), px(t.upper));
            svg.push(format_args!(
                r#"<path d="M{a:.1},{mid:.1}H{b:.1}M{a:.1},{:.1}V{:.1}M{b:.1},{:.1}V{:.1}" stroke="black" fill="none"/>"#,
                mid - 5.0,
                mid + 5.0,
                mid - 5.0,
                mid + 5.0
            ));
        }
    }
    svg.push(format_args!(
        r#"<line x1="{zero:.1}" y1="{top}" x2="{zero:.1}" y2="{axis_y}" stroke="black"/>"#
    ));
    svg.push(format_args!(
        r#"<line x1="{label_width}" y1="{axis_y}" x2="{:.1}" y2="{axis_y}" stroke="black"/>"#,
        label_width + plot_width
    ));
    svg.finish()
}
