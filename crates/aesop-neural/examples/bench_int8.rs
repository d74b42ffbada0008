//! The int8 (AVX-512 VNNI or AVX2) matrix product against candle's f32 product on the model's shapes
//! (a batch of 1,024 summary tokens through the four block projections; 64 rows through the LM
//! head). Prints milliseconds and the ratio. docs/NEURAL.md "Speed" quotes it.
//!
//! cargo run --release -p aesop-neural --example bench_int8

use aesop_neural::int8::Int8Matrix;
use candle_core::{Device, Tensor};
use std::time::Instant;

fn main() -> anyhow::Result<()> {
    println!("int8 kernel: {}", Int8Matrix::kernel_name());
    let shapes = [
        (1024, 576, 960, "query/key/value"),
        (1024, 576, 576, "attention output"),
        (1024, 576, 3072, "gate/up"),
        (1024, 1536, 576, "down"),
        (64, 576, 49152, "LM head"),
    ];
    for (m, k, n, name) in shapes {
        // Deterministic values in [-0.5, 0.5). The block projections are Q4_1 in the GGUF: per
        // column and block of 32 inputs, 16 levels with both ends used (stored at 4 bits); the
        // LM head (the token embedding) is Q8_0.
        let w: Vec<f32> = (0..k * n)
            .map(|i| {
                let v = ((i * 7919) % 1000) as f32 / 1000.0 - 0.5;
                if name == "LM head" {
                    v
                } else {
                    let kk = i / n;
                    match kk % 32 {
                        0 => -0.5,
                        1 => 0.5,
                        _ => ((v + 0.5) * 15.0).round() / 15.0 - 0.5,
                    }
                }
            })
            .collect();
        let x: Vec<f32> = (0..m * k)
            .map(|i| ((i * 104_729) % 997) as f32 / 997.0 - 0.5)
            .collect();
        let q = Int8Matrix::from_f32(&w, k, n);
        let bits = if q.is_four_bit() { 4 } else { 8 };
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
            "{name:>16} {m}x{k}x{n} ({bits}-bit): f32 {:.1} ms ({:.0} GFLOP/s), int8 {:.1} ms ({:.0} GOP/s), {:.2}x",
            f32_s * 1e3,
            gops / f32_s,
            int8_s * 1e3,
            gops / int8_s,
            f32_s / int8_s
        );
    }
    Ok(())
}
