//! The int8 (AVX-512 VNNI) matrix product against candle's f32 product on the model's shapes
//! (a batch of 1,024 summary tokens through the four block projections; 64 rows through the LM
//! head). Prints milliseconds and the ratio. docs/NEURAL.md "Speed" quotes it.
//!
//! cargo run --release -p aesop-neural --example bench_int8

use aesop_neural::int8::Int8Matrix;
use candle_core::{Device, Tensor};
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    if !Int8Matrix::supported() {
        println!("this CPU lacks AVX-512 VNNI: the int8 product runs its plain-Rust reference");
    }
    let shapes = [
        (1024, 576, 960, "query/key/value"),
        (1024, 576, 576, "attention output"),
        (1024, 576, 3072, "gate/up"),
        (1024, 1536, 576, "down"),
        (64, 576, 49152, "LM head"),
    ];
    for (m, k, n, name) in shapes {
        // Deterministic values in [-0.5, 0.5).
        let w: Vec<f32> = (0..k * n)
            .map(|i| ((i * 7919) % 1000) as f32 / 1000.0 - 0.5)
            .collect();
        let x: Vec<f32> = (0..m * k)
            .map(|i| ((i * 104_729) % 997) as f32 / 997.0 - 0.5)
            .collect();
        let q = Int8Matrix::from_f32(&w, k, n);
        let wt = Tensor::from_vec(w, (k, n), &Device::Cpu)?;
        let xt = Tensor::from_vec(x.clone(), (m, k), &Device::Cpu)?;
        let reps = 10;
        let t = Instant::now();
        for _ in 0..reps {
            xt.matmul(&wt)?;
        }
        let f32_s = t.elapsed().as_secs_f64() / f64::from(reps);
        let t = Instant::now();
        for _ in 0..reps {
            q.product(&x, m);
        }
        let int8_s = t.elapsed().as_secs_f64() / f64::from(reps);
        let gops = (m * k * n) as f64 * 2.0 / 1e9;
        println!(
            "{name:>16} {m}x{k}x{n}: f32 {:.1} ms ({:.0} GFLOP/s), int8 {:.1} ms ({:.0} GOP/s), {:.2}x",
            f32_s * 1e3,
            gops / f32_s,
            int8_s * 1e3,
            gops / int8_s,
            f32_s / int8_s
        );
    }
    Ok(())
}
