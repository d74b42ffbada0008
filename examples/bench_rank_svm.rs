//! Times one ranking-SVM fit on about 100k within-topic pairs of 30 synthetic features
//! (the scale: ~830 topics x 16 summaries). Run by scripts/bench-learn.
use aesop::learn::learners::{rank_svm_dual_cd, within_group_pairs};
use aesop::learn::Rng;
use std::time::Instant;

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
    let start = Instant::now();
    let (w, _) = rank_svm_dual_cd(&rows, &pairs, 1.0, 1e-3, 1000, 1);
    let secs = start.elapsed().as_secs_f64();
    let agree: f64 = w.iter().zip(&truth).map(|(a, b)| a * b).sum::<f64>()
        / (w.iter().map(|a| a * a).sum::<f64>().sqrt()
            * truth.iter().map(|b| b * b).sum::<f64>().sqrt());
    println!("ranking SVM: {} pairs x {width} features fitted in {secs:.2} s (cosine to the true weights {agree:.3})", pairs.len());
}
