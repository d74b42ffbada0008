//! Per-token log-probs of the int8 path against the f32 path on the lines of a text file (up
//! to 40 lines, 300 tokens each): mean |difference| and mean difference in nats. Needs the
//! model (`aesop models fetch smollm2`) and a CPU with AVX-512 VNNI or AVX2.
//!
//! cargo run --release -p aesop-neural --example int8_vs_f32 -- FILE

use aesop_neural::llama::{Llama, Precision};
use anyhow::Context;

fn main() -> anyhow::Result<()> {
    let file = std::env::args().nth(1).context("usage: int8_vs_f32 FILE")?;
    let text = std::fs::read_to_string(&file).with_context(|| format!("cannot read {file}"))?;
    let path = aesop_neural::model::model_path(&aesop_neural::model::SMOLLM2);
    let f32_lm = Llama::load(&path, Precision::F32)?;
    let int8_lm = Llama::load(&path, Precision::Int8)?;
    let (mut abs, mut signed, mut n) = (0f64, 0f64, 0usize);
    for line in text.lines().take(40) {
        let ids = f32_lm.tokenizer.encode(line);
        let ids = &ids[..ids.len().min(300)];
        let a = f32_lm.score_text(ids)?;
        let b = int8_lm.score_text(ids)?;
        for (x, y) in a.iter().zip(&b) {
            abs += f64::from((x - y).abs());
            signed += f64::from(y - x);
            n += 1;
        }
    }
    let n_f = n.max(1) as f64;
    println!(
        "{n} tokens: mean |int8 - f32| {:.4} nats, mean int8 - f32 {:.4}",
        abs / n_f,
        signed / n_f
    );
    Ok(())
}
