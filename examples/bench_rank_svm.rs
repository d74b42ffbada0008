//! Times ranking-SVM fits on about 100k within-topic pairs of 30 synthetic features (the issue's
//! scale: ~830 topics x 16 summaries) at the tolerance `fit` uses and at a tight one, and prints
//! each fit's epochs, primal objective and cosine to the true weights. Run by scripts/bench/bench-learn.
use aesop::learn::learners::{
    rank_svm_dual_cd, within_group_pairs, Pair, RANK_SVM_MAX_EPOCHS, RANK_SVM_TOLERANCE,
};
use aesop::learn::Rng;
use std::time::Instant;

/// ½‖w‖² + C Σ max(0, 1 − w·(x_better − x_worse)).
fn primal_objective(w: &[f64], rows: &[Vec<f64>], pairs: &[Pair], c: f64) -> f64 {
    let score = |i: usize| -> f64 { rows[i].iter().zip(w).map(|(x, v)| x * v).sum() };
    let scores: Vec<f64> = (0..rows.len()).map(score).collect();
    let hinge: f64 = pairs
        .iter()
        .map(|p| (1.0 - (scores[p.better] - scores[p.worse])).max(0.0))
        .sum();
    0.5 * w.iter().map(|v| v * v).sum::<f64>() + c * hinge
}

fn main() {
    let (topics, per_topic, width) = (834usize, 16usize, 30usize);
    let mut rng = Rng::new(7);
    let truth: Vec<f64> = (0..width).map(|_| rng.next_f64() - 0.5).collect();
    let mut rows = Vec::new();
    let (mut targets, mut groups) = (Vec::new(), Vec::new());
    for t in 0..topics {
        for _ in 0..per_topic {
            let x: Vec<f64> = (0..width).map(|_| rng.next_f64() * 2.0 - 1.0).collect();
            let y: f64 = x.iter().zip(&truth).map(|(a, b)| a * b).sum::<f64>()
                + 0.3 * (rng.next_f64() - 0.5);
            rows.push(x);
            targets.push(y);
            groups.push(t);
        }
    }
    let pairs = within_group_pairs(&targets, &groups);
    let c = 1.0;
    for tol in [RANK_SVM_TOLERANCE, 1e-3] {
        let start = Instant::now();
        let fit = rank_svm_dual_cd(&rows, &pairs, c, tol, RANK_SVM_MAX_EPOCHS, 1);
        let secs = start.elapsed().as_secs_f64();
        let w = &fit.weights;
        let agree: f64 = w.iter().zip(&truth).map(|(a, b)| a * b).sum::<f64>()
            / (w.iter().map(|a| a * a).sum::<f64>().sqrt()
                * truth.iter().map(|b| b * b).sum::<f64>().sqrt());
        println!(
            "ranking SVM (C = {c}, tol = {tol}): {} pairs x {width} features fitted in {secs:.2} s, \
             {} epochs{}, primal objective {:.4}, cosine to the true weights {agree:.4}",
            pairs.len(),
            fit.epochs,
            if fit.converged { "" } else { " (epoch cap)" },
            primal_objective(w, &rows, &pairs, c),
        );
    }
}
