//! The CPU path's numeric kernels on plain f32 slices: RMS norm, a vectorizable e^x, the
//! causal softmax over attention scores, RoPE and the heads' split, and the gated activations
//! (SwiGLU for llama, GELU-gated for Gemma 3). They are the arithmetic that [`super::portable`]
//! does as tensor operations for a GPU; the tests here pin them to candle's and libm's results
//! and to their own bits under vectorization.

use anyhow::{anyhow, bail, Result};
use candle_core::{Device, Tensor, D};

pub(super) fn rms_norm(x: &Tensor, w: &Tensor, eps: f64) -> Result<Tensor> {
    let ms = x.sqr()?.mean_keepdim(D::Minus1)?;
    let inv = (ms + eps)?.sqrt()?.recip()?;
    Ok(x.broadcast_mul(&inv)?.broadcast_mul(w)?)
}

/// e^x for x <= 0 (larger x is not needed here), relative error below 2e-7: range reduction
/// to r in [-ln2/2, ln2/2] and a degree-6 polynomial. Written so that the loops using it
/// vectorize; libm's `expf` on every attention score and vocabulary entry was a visible share
/// of the profile.
#[inline(always)]
fn exp_nonpositive(x: f32) -> f32 {
    const LOG2E: f32 = std::f32::consts::LOG2_E;
    const LN2_HI: f32 = 0.693_145_75;
    const LN2_LO: f32 = 1.428_606_8e-6;
    // 1.5 * 2^23: adding and subtracting it rounds to the nearest integer.
    const ROUND: f32 = 12_582_912.0;
    let x = x.max(-87.0);
    let shifted = x * LOG2E + ROUND;
    let n = shifted - ROUND;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    let p = 1.0
        + r * (1.0
            + r * (0.5
                + r * (1.0 / 6.0 + r * (1.0 / 24.0 + r * (1.0 / 120.0 + r * (1.0 / 720.0))))));
    // 2^n by building the exponent bits; n is in [-126, 0]. `shifted` (in [2^23, 2^24), where
    // floats are the integers) holds n in its low mantissa bits: read there with integer
    // arithmetic, which vectorizes, where `n as i32` (a saturating cast) did not.
    let n_int = shifted.to_bits() as i32 - ROUND.to_bits() as i32;
    p * f32::from_bits(((n_int + 127) as u32) << 23)
}

/// Sum of e^(x - max) over `xs`, in 16 lanes so that it vectorizes.
#[inline(always)]
fn sum_exp_shifted(xs: &[f32], max: f32) -> f32 {
    let mut lanes = [0f32; 16];
    let mut chunks = xs.chunks_exact(16);
    for c in &mut chunks {
        for (l, &v) in lanes.iter_mut().zip(c) {
            *l += exp_nonpositive(v - max);
        }
    }
    let tail: f32 = chunks
        .remainder()
        .iter()
        .map(|&v| exp_nonpositive(v - max))
        .sum();
    lanes.iter().sum::<f32>() + tail
}

/// log sum_i e^(x_i), stable; compiled for AVX2 where the CPU has it (the same 16 lanes on
/// wider vectors, so the same value).
pub(super) fn log_sum_exp(xs: &[f32]) -> f32 {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { log_sum_exp_avx2(xs) };
    }
    log_sum_exp_portable(xs)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn log_sum_exp_avx2(xs: &[f32]) -> f32 {
    log_sum_exp_portable(xs)
}

#[inline(always)]
fn log_sum_exp_portable(xs: &[f32]) -> f32 {
    let max = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    if !max.is_finite() {
        return max;
    }
    max + sum_exp_shifted(xs, max).ln()
}

/// Softmax of each row of `scores` (rows of `cols`) times `scale`, in place, where row `r`
/// may see only its first `visible(r)` columns (the causal mask): the rest become 0. One pass
/// instead of candle's mask-add, max, subtract, exp, sum and divide, each a new tensor.
///
/// The exponentials are computed in a loop of their own so that they vectorize (with AVX2
/// where the CPU has it: the same operations on wider vectors, so the same bits); the sum
/// stays one running sum in column order, as before, so the result does not depend on the
/// CPU. Computed together with the sum, the exponentials ran one at a time: a seventh of
/// the whole run.
pub(super) fn masked_softmax_rows(
    scores: &mut [f32],
    cols: usize,
    scale: f32,
    visible: impl Fn(usize) -> usize,
) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { masked_softmax_rows_avx2(scores, cols, scale, visible) };
        return;
    }
    masked_softmax_rows_portable(scores, cols, scale, visible);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn masked_softmax_rows_avx2(
    scores: &mut [f32],
    cols: usize,
    scale: f32,
    visible: impl Fn(usize) -> usize,
) {
    masked_softmax_rows_portable(scores, cols, scale, visible);
}

/// Rows whose running sums [`masked_softmax_rows`] adds side by side: each sum is still one
/// chain in column order, but eight chains keep the adder busy where one waited on itself.
const SOFTMAX_ROWS: usize = 8;

#[inline(always)]
fn masked_softmax_rows_portable(
    scores: &mut [f32],
    cols: usize,
    scale: f32,
    visible: impl Fn(usize) -> usize,
) {
    if cols == 0 {
        return;
    }
    let mut first_row = 0;
    let mut groups = scores.chunks_exact_mut(cols * SOFTMAX_ROWS);
    for group in &mut groups {
        let mut seen = [0usize; SOFTMAX_ROWS];
        for (i, row) in group.chunks_exact_mut(cols).enumerate() {
            seen[i] = visible(first_row + i).min(cols);
            exponentiate_row(row, seen[i], scale);
        }
        // Column by column over the columns every row sees, then each row's own tail.
        let common = seen.iter().copied().min().unwrap_or(0);
        let mut sums = [0f32; SOFTMAX_ROWS];
        for j in 0..common {
            for (i, sum) in sums.iter_mut().enumerate() {
                *sum += group[i * cols + j];
            }
        }
        for (i, row) in group.chunks_exact_mut(cols).enumerate() {
            for &v in &row[common..seen[i]] {
                sums[i] += v;
            }
            normalize_row(&mut row[..seen[i]], sums[i]);
        }
        first_row += SOFTMAX_ROWS;
    }
    for (i, row) in groups.into_remainder().chunks_exact_mut(cols).enumerate() {
        let seen = visible(first_row + i).min(cols);
        exponentiate_row(row, seen, scale);
        let mut sum = 0f32;
        for &v in &row[..seen] {
            sum += v;
        }
        normalize_row(&mut row[..seen], sum);
    }
}

/// e^((v - max) · scale) over the first `seen` values of `row` (max over those), 0 beyond.
#[inline(always)]
fn exponentiate_row(row: &mut [f32], seen: usize, scale: f32) {
    let (seen, hidden) = row.split_at_mut(seen);
    hidden.fill(0.0);
    let max = seen.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    for v in seen.iter_mut() {
        *v = exp_nonpositive((*v - max) * scale);
    }
}

#[inline(always)]
fn normalize_row(row: &mut [f32], sum: f32) {
    let inv = 1.0 / sum;
    for v in row.iter_mut() {
        *v *= inv;
    }
}

/// Heads `first_head..first_head + heads` of the fused projection `qkv` (tokens, width), as
/// (heads, tokens, head_dim) values, with adjacent pairs rotated by RoPE at `positions` when
/// `rope` gives the tables (cos and sin, (positions, head_dim / 2) row-major). One pass over
/// plain slices: the same products and sums as candle's narrow, transpose, multiply, subtract
/// and cat (so the same bits), without their intermediate tensors, which were a twentieth of
/// the run.
pub(super) fn split_heads(
    qkv: &[f32],
    width: usize,
    head_dim: usize,
    (first_head, heads): (usize, usize),
    positions: &[usize],
    rope: Option<(&[f32], &[f32])>,
) -> Vec<f32> {
    let half = head_dim / 2;
    let tokens = positions.len();
    let mut out = vec![0f32; heads * tokens * head_dim];
    for (t, (x, &pos)) in qkv.chunks_exact(width).zip(positions).enumerate() {
        for h in 0..heads {
            let src = &x[(first_head + h) * head_dim..(first_head + h + 1) * head_dim];
            let dst = &mut out[(h * tokens + t) * head_dim..(h * tokens + t + 1) * head_dim];
            let Some((cos, sin)) = rope else {
                dst.copy_from_slice(src);
                continue;
            };
            let (cos, sin) = (
                &cos[pos * half..(pos + 1) * half],
                &sin[pos * half..(pos + 1) * half],
            );
            for (((d, s), &c), &si) in dst
                .chunks_exact_mut(2)
                .zip(src.chunks_exact(2))
                .zip(cos)
                .zip(sin)
            {
                d[0] = s[0] * c - s[1] * si;
                d[1] = s[0] * si + s[1] * c;
            }
        }
    }
    out
}

/// NeoX-style RoPE tables for `positions` positions: (positions, head_dim / 2) row-major cos
/// and sin of position · base^(-2i / head_dim).
pub(super) fn rope_tables(positions: usize, head_dim: usize, base: f32) -> (Vec<f32>, Vec<f32>) {
    let half = head_dim / 2;
    let inv: Vec<f32> = (0..half)
        .map(|i| 1.0 / base.powf(2.0 * i as f32 / head_dim as f32))
        .collect();
    let mut cos = Vec::with_capacity(positions * half);
    let mut sin = Vec::with_capacity(positions * half);
    for p in 0..positions {
        for f in &inv {
            let a = p as f32 * f;
            cos.push(a.cos());
            sin.push(a.sin());
        }
    }
    (cos, sin)
}

/// Gemma 3's [`split_heads`]: each head RMS-normed with `norm` (head_dim weights), then, when
/// `rope` gives tables, rotated NeoX-style: element i pairs with element i + head_dim / 2.
/// A function of its own rather than a mode of [`split_heads`], so that the llama path, whose
/// features must keep their bits (docs/NEURAL.md), is not touched by Gemma's.
pub(super) fn split_heads_gemma(
    qkv: &[f32],
    width: usize,
    head_dim: usize,
    (first_head, heads): (usize, usize),
    positions: &[usize],
    norm: Option<(&[f32], f32)>,
    rope: Option<(&[f32], &[f32])>,
) -> Vec<f32> {
    let half = head_dim / 2;
    let tokens = positions.len();
    let mut out = vec![0f32; heads * tokens * head_dim];
    let mut normed = vec![0f32; head_dim];
    for (t, (x, &pos)) in qkv.chunks_exact(width).zip(positions).enumerate() {
        for h in 0..heads {
            let src = &x[(first_head + h) * head_dim..(first_head + h + 1) * head_dim];
            let dst = &mut out[(h * tokens + t) * head_dim..(h * tokens + t + 1) * head_dim];
            let src = match norm {
                Some((w, eps)) => {
                    let ms = src.iter().map(|v| v * v).sum::<f32>() / head_dim as f32;
                    let inv = 1.0 / (ms + eps).sqrt();
                    for ((n, &v), &wi) in normed.iter_mut().zip(src).zip(w) {
                        *n = v * inv * wi;
                    }
                    &normed[..]
                }
                None => src,
            };
            let Some((cos, sin)) = rope else {
                dst.copy_from_slice(src);
                continue;
            };
            let (cos, sin) = (
                &cos[pos * half..(pos + 1) * half],
                &sin[pos * half..(pos + 1) * half],
            );
            let (lo, hi) = dst.split_at_mut(half);
            for i in 0..half {
                let (a, b) = (src[i], src[i + half]);
                lo[i] = a * cos[i] - b * sin[i];
                hi[i] = a * sin[i] + b * cos[i];
            }
        }
    }
    out
}

/// GELU(gate) · up for each row of the fused gate/up product `gu` (rows, 2 n_ff), with GELU's
/// tanh approximation (Gemma's `gelu_pytorch_tanh`, llama.cpp's `ggml_gelu`).
pub(super) fn geglu(gu: &[f32], n_ff: usize, rows: usize) -> Result<Tensor> {
    const SQRT_2_OVER_PI: f32 = 0.797_884_6;
    const COEF: f32 = 0.044_715;
    let mut out = Vec::with_capacity(rows * n_ff);
    for row in gu.chunks_exact(2 * n_ff) {
        let (gate, up) = row.split_at(n_ff);
        out.extend(gate.iter().zip(up).map(|(&g, &u)| {
            0.5 * g * (1.0 + (SQRT_2_OVER_PI * g * (1.0 + COEF * g * g)).tanh()) * u
        }));
    }
    Ok(Tensor::from_vec(out, (rows, n_ff), &Device::Cpu)?)
}

/// Hide, in each row of `scores` (rows of `cols`), the columns before `first_visible(r)`: the
/// keys a sliding-window layer's query no longer sees. They are set to minus infinity, which
/// [`masked_softmax_rows`] turns into weights of at most e^-87 (1.6e-38) against the row
/// maximum's 1: nothing.
pub(super) fn hide_before(scores: &mut [f32], cols: usize, first_visible: impl Fn(usize) -> usize) {
    for (r, row) in scores.chunks_exact_mut(cols).enumerate() {
        let lo = first_visible(r).min(cols);
        row[..lo].fill(f32::NEG_INFINITY);
    }
}

/// SiLU(gate) · up for each row of the fused gate/up product `gu` (rows, 2 n_ff), as a tensor
/// (rows, n_ff): candle's `silu` (x / (1 + e^-x)) and product in one pass, the same
/// operations, so the same bits.
pub(super) fn swiglu(gu: &[f32], n_ff: usize, rows: usize) -> Result<Tensor> {
    let mut out = Vec::with_capacity(rows * n_ff);
    for row in gu.chunks_exact(2 * n_ff) {
        let (gate, up) = row.split_at(n_ff);
        out.extend(
            gate.iter()
                .zip(up)
                .map(|(&g, &u)| (g / (1.0 + (-g).exp())) * u),
        );
    }
    Ok(Tensor::from_vec(out, (rows, n_ff), &Device::Cpu)?)
}

/// The elements of a contiguous f32 CPU tensor, without copying.
pub(super) fn with_f32<T>(t: &Tensor, f: impl FnOnce(&[f32]) -> Result<T>) -> Result<T> {
    let (storage, layout) = t.storage_and_layout();
    let candle_core::Storage::Cpu(cpu) = &*storage else {
        bail!("tensor is not on the CPU");
    };
    let (start, end) = layout
        .contiguous_offsets()
        .ok_or_else(|| anyhow!("tensor is not contiguous"))?;
    f(&cpu.as_slice::<f32>()?[start..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Gemma's NeoX RoPE: position 0 leaves a head as it is, each (i, i + half) pair keeps its
    /// length, and a query-key product depends on the positions' difference only; with a
    /// unit-weight norm each head comes out with a mean square of 1.
    #[test]
    fn gemma_heads_are_normed_and_rotated_neox_style() {
        let (hd, heads) = (8, 2);
        let width = heads * hd;
        let (cos, sin) = rope_tables(64, hd, 10_000.0);
        let rope = Some((cos.as_slice(), sin.as_slice()));
        let x: Vec<f32> = (0..width).map(|i| ((i as f32) * 0.7).sin() + 0.1).collect();
        let at = |pos: usize, norm: Option<(&[f32], f32)>, rope| {
            split_heads_gemma(&x, width, hd, (0, heads), &[pos], norm, rope)
        };
        assert_eq!(
            at(0, None, rope),
            at(0, None, None),
            "position 0 is the identity"
        );
        let (plain, turned) = (at(0, None, None), at(13, None, rope));
        for h in 0..heads {
            for i in 0..hd / 2 {
                let len =
                    |v: &[f32]| (v[h * hd + i].powi(2) + v[h * hd + i + hd / 2].powi(2)).sqrt();
                assert!((len(&plain) - len(&turned)).abs() < 1e-5);
            }
        }
        let dot = |p: usize, q: usize| -> f32 {
            let (a, b) = (at(p, None, rope), at(q, None, rope));
            a[..hd].iter().zip(&b[hd..]).map(|(u, v)| u * v).sum()
        };
        assert!(
            (dot(5, 2) - dot(20, 17)).abs() < 1e-4,
            "{} vs {}",
            dot(5, 2),
            dot(20, 17)
        );
        assert!(
            (dot(5, 2) - dot(5, 3)).abs() > 1e-3,
            "rotation depends on the distance"
        );
        let ones = vec![1f32; hd];
        let normed = at(0, Some((&ones, 1e-6)), None);
        for h in normed.chunks_exact(hd) {
            let ms = h.iter().map(|v| v * v).sum::<f32>() / hd as f32;
            assert!((ms - 1.0).abs() < 1e-4, "mean square {ms}");
        }
    }

    /// GELU's tanh approximation against its formula in f64, and its limits.
    #[test]
    fn geglu_is_gelu_of_the_gate_times_up() -> Result<()> {
        let gates = [-6.0f32, -1.5, -0.1, 0.0, 0.3, 1.0, 2.5, 8.0];
        let mut gu = Vec::new();
        for &g in &gates {
            gu.extend([g, 2.0]);
        }
        // Rows of (gate, up) with n_ff 1.
        let out = geglu(&gu, 1, gates.len())?
            .flatten_all()?
            .to_vec1::<f32>()?;
        for (&g, &o) in gates.iter().zip(&out) {
            let g = f64::from(g);
            let want = 0.5
                * g
                * (1.0 + ((2.0 / std::f64::consts::PI).sqrt() * (g + 0.044715 * g.powi(3))).tanh())
                * 2.0;
            assert!(
                (f64::from(o) - want).abs() < 1e-5,
                "gate {g}: {o} vs {want}"
            );
        }
        assert_eq!(out[3], 0.0);
        assert!((out[7] - 16.0).abs() < 1e-4 && out[0].abs() < 1e-6);
        Ok(())
    }

    /// A sliding-window row keeps weight only on its last `window` positions (itself included).
    #[test]
    fn sliding_window_hides_old_positions() {
        let (cols, window) = (10, 3);
        let mut scores: Vec<f32> = (0..cols * cols).map(|i| (i as f32 * 0.37).cos()).collect();
        hide_before(&mut scores, cols, |r| (r + 1).saturating_sub(window));
        masked_softmax_rows(&mut scores, cols, 1.0, |r| r + 1);
        for (r, row) in scores.chunks_exact(cols).enumerate() {
            let lo = (r + 1).saturating_sub(window);
            assert!(row[..lo].iter().all(|&w| w < 1e-37), "row {r}: {row:?}");
            assert!(row[lo..=r].iter().all(|&w| w > 0.0));
            assert!(row[r + 1..].iter().all(|&w| w == 0.0));
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn fast_exp_matches_libm() {
        let mut worst = 0f32;
        for i in 0..=173_000 {
            let x = -(i as f32) * 0.0005;
            let rel = (exp_nonpositive(x) - x.exp()).abs() / x.exp();
            worst = worst.max(rel);
        }
        assert!(worst < 5e-7, "worst relative error {worst}");
        assert_eq!(exp_nonpositive(0.0), 1.0);
        // Below -87 the result stays at e^-87 (about 1.6e-38): nothing next to the row maximum's 1.
        assert!(exp_nonpositive(-1000.0) < 2e-38);
        assert!(exp_nonpositive(-1000.0) >= 0.0);
    }

    #[test]
    fn log_sum_exp_is_stable_and_exact() {
        let xs: Vec<f32> = (0..1000)
            .map(|i| (i as f32 * 0.37).sin() * 30.0 + 500.0)
            .collect();
        let max = xs.iter().copied().fold(f32::NEG_INFINITY, f32::max);
        let naive = max as f64
            + xs.iter()
                .map(|&x| (f64::from(x) - f64::from(max)).exp())
                .sum::<f64>()
                .ln();
        assert!((f64::from(log_sum_exp(&xs)) - naive).abs() < 1e-4);
        assert_eq!(log_sum_exp(&[f32::NEG_INFINITY; 3]), f32::NEG_INFINITY);
    }

    /// Deterministic values in [-scale/2, scale/2).
    fn values(n: usize, seed: u64, scale: f32) -> Vec<f32> {
        let mut state = seed;
        (0..n)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                ((state >> 40) as f32 / (1u64 << 24) as f32 - 0.5) * scale
            })
            .collect()
    }

    /// The softmax as it was before rows were summed side by side: one row at a time, the
    /// exponentials and the running sum in one loop.
    fn softmax_one_row_at_a_time(
        scores: &mut [f32],
        cols: usize,
        scale: f32,
        visible: impl Fn(usize) -> usize,
    ) {
        for (r, row) in scores.chunks_exact_mut(cols).enumerate() {
            let n = visible(r).min(cols);
            let (seen, hidden) = row.split_at_mut(n);
            hidden.fill(0.0);
            let max = seen.iter().copied().fold(f32::NEG_INFINITY, f32::max);
            let mut sum = 0f32;
            for v in seen.iter_mut() {
                *v = exp_nonpositive((*v - max) * scale);
                sum += *v;
            }
            for v in seen.iter_mut() {
                *v *= 1.0 / sum;
            }
        }
    }

    #[test]
    fn softmax_in_groups_of_rows_gives_the_same_bits() {
        // 21 rows: two groups of eight and a remainder of five; causal-like and ragged masks.
        for (cols, visible) in [
            (
                40,
                Box::new(|r: usize| 10 + (r * 3) % 31) as Box<dyn Fn(usize) -> usize>,
            ),
            (40, Box::new(|r: usize| r + 1)),
            (7, Box::new(|_| 100)),
        ] {
            let original = values(21 * cols, cols as u64, 20.0);
            let mut ours = original.clone();
            let mut before = original.clone();
            masked_softmax_rows(&mut ours, cols, 0.125, &visible);
            softmax_one_row_at_a_time(&mut before, cols, 0.125, &visible);
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&ours), bits(&before));
            let mut portable = original.clone();
            masked_softmax_rows_portable(&mut portable, cols, 0.125, &visible);
            assert_eq!(bits(&ours), bits(&portable));
            for (r, row) in ours.chunks_exact(cols).enumerate() {
                let n = visible(r).min(cols);
                assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
                assert!(row[n..].iter().all(|&v| v == 0.0));
            }
        }
    }

    #[test]
    fn fast_exp_bits_do_not_depend_on_vectorization() {
        // The exponent read from the mantissa bits equals the rounded value's integer.
        for i in 0..=200_000 {
            let x = -(i as f32) * 0.000_87;
            let shifted = x.max(-87.0) * std::f32::consts::LOG2_E + 12_582_912.0;
            let n = shifted - 12_582_912.0;
            assert_eq!(
                shifted.to_bits() as i32 - 12_582_912f32.to_bits() as i32,
                n as i32,
                "x = {x}"
            );
        }
    }

    #[test]
    fn split_heads_and_rope_match_candle() -> Result<()> {
        // 5 tokens of a fused projection: 3 query heads, 1 key and 1 value head of width 8.
        let (tokens, hd, heads, kv) = (5, 8, 3, 1);
        let width = (heads + 2 * kv) * hd;
        let qkv = values(tokens * width, 7, 4.0);
        let positions = [0usize, 1, 2, 9, 10];
        let half = hd / 2;
        let (mut cos, mut sin) = (Vec::new(), Vec::new());
        for p in 0..16 {
            for i in 0..half {
                let a = p as f32 / 10_000f32.powf(2.0 * i as f32 / hd as f32);
                cos.push(a.cos());
                sin.push(a.sin());
            }
        }
        // candle's way, as the model did it before `split_heads`.
        let dev = Device::Cpu;
        let t = Tensor::from_vec(qkv.clone(), (tokens, width), &dev)?;
        let cos_t = Tensor::from_vec(cos.clone(), (16, half), &dev)?;
        let sin_t = Tensor::from_vec(sin.clone(), (16, half), &dev)?;
        let pos: Vec<u32> = positions.iter().map(|&p| p as u32).collect();
        let pos = Tensor::new(pos.as_slice(), &dev)?;
        let candle = |first: usize, n: usize, rotate: bool| -> Result<Vec<f32>> {
            let x = t
                .narrow(1, first * hd, n * hd)?
                .reshape((tokens, n, hd))?
                .transpose(0, 1)?
                .contiguous()?;
            if !rotate {
                return Ok(x.flatten_all()?.to_vec1()?);
            }
            let c = cos_t.index_select(&pos, 0)?.reshape((1, tokens, half, 1))?;
            let s = sin_t.index_select(&pos, 0)?.reshape((1, tokens, half, 1))?;
            let x = x.reshape((n, tokens, half, 2))?;
            let (x0, x1) = (x.narrow(3, 0, 1)?, x.narrow(3, 1, 1)?);
            let r0 = (x0.broadcast_mul(&c)? - x1.broadcast_mul(&s)?)?;
            let r1 = (x0.broadcast_mul(&s)? + x1.broadcast_mul(&c)?)?;
            Ok(Tensor::cat(&[r0, r1], 3)?.flatten_all()?.to_vec1()?)
        };
        let rope = Some((cos.as_slice(), sin.as_slice()));
        let bits = |v: Vec<f32>| v.into_iter().map(f32::to_bits).collect::<Vec<_>>();
        for (first, n, rotate) in [(0, heads, true), (heads, kv, true), (heads + kv, kv, false)] {
            let ours = split_heads(
                &qkv,
                width,
                hd,
                (first, n),
                &positions,
                rope.filter(|_| rotate),
            );
            assert_eq!(bits(ours), bits(candle(first, n, rotate)?));
        }
        Ok(())
    }

    #[test]
    fn swiglu_matches_candle() -> Result<()> {
        let (rows, n_ff) = (3, 10);
        let gu = values(rows * 2 * n_ff, 11, 16.0);
        let t = Tensor::from_vec(gu.clone(), (rows, 2 * n_ff), &Device::Cpu)?;
        let candle = (t.narrow(1, 0, n_ff)?.silu()? * t.narrow(1, n_ff, n_ff)?)?;
        let bits = |t: Tensor| -> Result<Vec<u32>> {
            Ok(t.flatten_all()?
                .to_vec1::<f32>()?
                .into_iter()
                .map(f32::to_bits)
                .collect())
        };
        assert_eq!(bits(swiglu(&gu, n_ff, rows)?)?, bits(candle)?);
        Ok(())
    }

    #[test]
    fn masked_softmax_hides_future_columns() {
        let mut s = vec![1.0, 2.0, 3.0, 1.0, 2.0, 3.0];
        masked_softmax_rows(&mut s, 3, 1.0, |r| r + 2);
        let e = [1f32.exp(), 2f32.exp(), 3f32.exp()];
        assert!((s[0] - e[0] / (e[0] + e[1])).abs() < 1e-6);
        assert_eq!(s[2], 0.0);
        assert!((s[3..].iter().sum::<f32>() - 1.0).abs() < 1e-6);
        assert!((s[5] - e[2] / (e[0] + e[1] + e[2])).abs() < 1e-6);
    }
}
