//! Matrix products with 8-bit integers on AVX-512 VNNI or AVX2, for the model's linear layers.
//!
//! Why: in f32 the products were two thirds of the run time, and SummEval needed about 13
//! minutes against issue 15's budget of 8. One `vpdpbusd` (AVX-512 VNNI) multiplies and adds 64
//! byte pairs, where an f32 FMA handles 16; on AVX2, `vpmaddwd` handles 16 integer pairs where
//! an FMA handles 8. The two kernels give bit-identical products. The weights are already 4-bit in the GGUF, so storing
//! them at 8 bits loses next to nothing. Activations are quantized per row in blocks of
//! [`BLOCK`] values with their own scale, as llama.cpp does (its Q8 blocks have 32), so one
//! large value only coarsens its own block.
//!
//! The arithmetic, for output row m and column n:
//! - weights: `w[k][n] ≈ m[b][n] + d[b][n] · u[k][n]`, with u in 0..=255 and one offset and
//!   step per column and block b of [`BLOCK`] inputs: the GGUF's Q4_1 blocks (32 inputs,
//!   16 levels from their minimum) are kept exactly, and its Q8_0 blocks to within half a
//!   level. (One symmetric scale per column lost 0.08 nats per token; per block, 0.04.)
//! - activations: `x[m][k] ≈ t[m][b] · p[m][k]`, with p in −127..=127 and one scale per
//!   block b of [`BLOCK`] values of k;
//! - `y[m][n] = Σ_b d[b][n] · t[m][b] · Σ_{k in b} u[k][n] · p[m][k] + m[b][n] · t[m][b] ·
//!   Σ_{k in b} p[m][k]`.
//!
//! `vpdpbusd` takes one unsigned and one signed operand: the weights are the unsigned one.
//!
//! [`Int8Matrix::supported`] says whether this CPU has either kernel's instructions. Where it
//! does not, the model keeps f32 weights and candle's products ([`super::llama`]). [`reference_product`]
//! is the same arithmetic in plain Rust, for the tests.

use rayon::prelude::*;

/// Activation values per quantization block (and the padding unit of the inner dimension).
pub const BLOCK: usize = 32;
/// Columns in one 512-bit vector of 32-bit sums.
const LANES: usize = 16;
/// Rows of the output computed together by the kernel.
const ROWS: usize = 4;
/// Vectors of columns computed together by the kernel (64 columns).
const VECS: usize = 4;
/// Output rows per parallel task.
const TASK_ROWS: usize = 32;

/// A weight matrix (k rows of inputs, n columns of outputs) quantized to 8 bits per column,
/// packed for the kernel: for each group of 16 columns, for each 4 consecutive inputs, 16 × 4
/// bytes (one vector).
pub struct Int8Matrix {
    k: usize,
    n: usize,
    /// k rounded up to a multiple of [`BLOCK`]; the padding is zero weight.
    k_pad: usize,
    /// n rounded up to a multiple of 16.
    n_pad: usize,
    packed: Vec<u8>,
    /// Whether `packed` holds `u / 17` (see [`Int8Matrix::from_f32`]).
    four_bit: bool,
    /// Per column and block of inputs (see [`Int8Matrix::scale_index`]): the step d and the
    /// offset m of `w = m + d · u`.
    scale: Vec<f32>,
    min: Vec<f32>,
}

/// Activations quantized per row and block.
struct Int8Rows {
    k_pad: usize,
    values: Vec<i8>,
    /// Per row and block: the scale t.
    scale: Vec<f32>,
    /// Per row and block: t · Σ p, which the weights' offsets multiply.
    scaled_sum: Vec<f32>,
}

fn round_up(x: usize, to: usize) -> usize {
    x.div_ceil(to) * to
}

impl Int8Matrix {
    /// Whether this CPU can run one of the kernels (AVX-512 VNNI, or AVX2 with FMA).
    pub fn supported() -> bool {
        Kernel::best().is_some()
    }

    /// The kernel [`Int8Matrix::product`] runs on this CPU: "avx512-vnni", "avx2", or
    /// "reference" (plain Rust, slow) where neither is available.
    pub fn kernel_name() -> &'static str {
        Kernel::best().map_or("reference", Kernel::name)
    }

    /// Quantize `w`, row-major (k, n) as the model multiplies `x · w`.
    pub fn from_f32(w: &[f32], k: usize, n: usize) -> Int8Matrix {
        assert_eq!(w.len(), k * n, "weight matrix of the wrong size");
        let mut by_column = vec![0f32; k * n];
        for (kk, row) in w.chunks_exact(n.max(1)).enumerate() {
            for (nn, &v) in row.iter().enumerate() {
                by_column[nn * k + kk] = v;
            }
        }
        Self::from_f32_by_column(&by_column, k, n)
    }

    /// Quantize the matrix (k, n) whose columns are the rows of `w_t` (n, k), row-major: the
    /// layout a GGUF stores a linear layer in (one row per output). Reading it as it lies
    /// spares the model's load a transposed copy and a strided read of every weight.
    pub fn from_f32_by_column(w_t: &[f32], k: usize, n: usize) -> Int8Matrix {
        assert_eq!(w_t.len(), k * n, "weight matrix of the wrong size");
        let whole = |first: usize, count: usize| {
            Ok::<_, std::convert::Infallible>(std::borrow::Cow::Borrowed(
                &w_t[first * k..(first + count) * k],
            ))
        };
        match Self::from_column_groups(k, n, whole) {
            Ok(m) => m,
            Err(never) => match never {},
        }
    }

    /// [`Int8Matrix::from_f32_by_column`] with the columns supplied a group at a time:
    /// `columns(first, count)` gives columns `first..first + count` (count × k values, one
    /// column after another), so the whole f32 matrix never has to exist. Gemma 3's output
    /// head, 262,144 × 640, would take 671 MB as f32. Each column is quantized on its own, so
    /// the result is the same as from the whole matrix.
    pub fn from_column_groups<'a, E: Send>(
        k: usize,
        n: usize,
        columns: impl Fn(usize, usize) -> Result<std::borrow::Cow<'a, [f32]>, E> + Sync,
    ) -> Result<Int8Matrix, E> {
        let (k_pad, n_pad) = (round_up(k, BLOCK), round_up(n, LANES));
        let blocks = k_pad / BLOCK;
        // Zero for the padding columns and blocks. Groups of 16 columns are independent (and
        // contiguous in all three arrays): quantized in parallel.
        let mut scale = vec![0f32; blocks * n_pad];
        let mut min = vec![0f32; blocks * n_pad];
        let mut packed = vec![0u8; k_pad * n_pad];
        packed
            .par_chunks_mut(k_pad * LANES)
            .zip(scale.par_chunks_mut(blocks * LANES))
            .zip(min.par_chunks_mut(blocks * LANES))
            .enumerate()
            .try_for_each(|(group, ((packed, scale), min))| {
                let lanes = LANES.min(n.saturating_sub(group * LANES));
                let group_weights = columns(group * LANES, lanes)?;
                for lane in 0..lanes {
                    let weights = &group_weights[lane * k..(lane + 1) * k];
                    for b in 0..blocks {
                        let column = &weights[(b * BLOCK).min(k)..((b + 1) * BLOCK).min(k)];
                        let lo = column.iter().copied().fold(f32::INFINITY, f32::min);
                        let hi = column.iter().copied().fold(f32::NEG_INFINITY, f32::max);
                        let d = (hi - lo) / 255.0;
                        // Indices within the group (see `scale_index` and `index`).
                        scale[b * LANES + lane] = d;
                        min[b * LANES + lane] = lo;
                        for (i, &v) in column.iter().enumerate() {
                            let kk = b * BLOCK + i;
                            packed[(kk / 4) * LANES * 4 + lane * 4 + kk % 4] = if d > 0.0 {
                                round_small((v - lo) / d).clamp(0.0, 255.0) as u8
                            } else {
                                0
                            };
                        }
                    }
                }
                Ok(())
            })?;
        // A GGUF's Q4_1 blocks use both ends of their 16 levels, so u = 17 q with q in 0..=15
        // (as do constant blocks, u = 0). Stored as q, the AVX2 kernel multiplies them with
        // `vpmaddubsw`, whose 16-bit pair sums cannot saturate at q <= 15 (2 · 15 · 127): twice
        // the products per instruction of `vpmaddwd`. Every kernel multiplies its integer
        // sums by 17 again, exactly, so the products do not change.
        let four_bit = packed.par_iter().all(|&u| u % 17 == 0);
        if four_bit {
            packed.par_iter_mut().for_each(|u| *u /= 17);
        }
        Ok(Int8Matrix {
            k,
            n,
            k_pad,
            n_pad,
            packed,
            four_bit,
            scale,
            min,
        })
    }

    /// Scale of block b of column nn: for each group of 16 columns, block by block, 16 scales.
    fn scale_index(blocks: usize, b: usize, nn: usize) -> usize {
        ((nn / LANES) * blocks + b) * LANES + nn % LANES
    }

    /// Byte of weight (kk, nn) in the packed layout.
    fn index(k_pad: usize, kk: usize, nn: usize) -> usize {
        (nn / LANES) * k_pad * LANES + (kk / 4) * LANES * 4 + (nn % LANES) * 4 + kk % 4
    }

    /// The weight as quantized (s · q), for tests.
    pub fn dequantized(&self, kk: usize, nn: usize) -> f32 {
        let u =
            f32::from(self.packed[Self::index(self.k_pad, kk, nn)]) * self.level_factor() as f32;
        let at = Self::scale_index(self.k_pad / BLOCK, kk / BLOCK, nn);
        self.min[at] + self.scale[at] * u
    }

    /// What the stored bytes are multiplied by to give u: 17 for four-bit matrices, else 1.
    fn level_factor(&self) -> i32 {
        if self.four_bit {
            17
        } else {
            1
        }
    }

    /// Whether the weights were stored at 4 bits (every block on 16 levels, as Q4_1's).
    pub fn is_four_bit(&self) -> bool {
        self.four_bit
    }

    pub fn outputs(&self) -> usize {
        self.n
    }

    /// `x · w` for `x` of `m` rows of k values; returns m rows of n values, on the best
    /// kernel this CPU has (the plain-Rust [`reference_product`] where it has none).
    pub fn product(&self, x: &[f32], m: usize) -> Vec<f32> {
        self.product_on(x, m, Kernel::best())
    }

    /// `x · w` on the given kernel, which the caller has checked the CPU supports (`None`:
    /// the plain-Rust reference).
    fn product_on(&self, x: &[f32], m: usize, kernel: Option<Kernel>) -> Vec<f32> {
        assert_eq!(x.len(), m * self.k, "activation matrix of the wrong size");
        let rows = quantize_rows(x, m, self.k, self.k_pad);
        let mut out = vec![0f32; m * self.n];
        if m == 0 || self.n == 0 {
            return out;
        }
        let Some(kernel) = kernel else {
            reference_into(self, &rows, m, &mut out);
            return out;
        };
        // `vpmaddwd` multiplies 16-bit values: the AVX2 kernel reads the activations widened.
        let wide: Vec<i16> = match kernel {
            Kernel::Avx2 if !self.four_bit => rows.values.iter().map(|&v| i16::from(v)).collect(),
            _ => Vec::new(),
        };
        out.par_chunks_mut(TASK_ROWS * self.n)
            .enumerate()
            .for_each(|(task, chunk)| {
                let first = task * TASK_ROWS;
                let count = chunk.len() / self.n;
                // SAFETY: `Kernel::best()` checked the CPU features each kernel is compiled for.
                #[cfg(target_arch = "x86_64")]
                unsafe {
                    match kernel {
                        Kernel::Vnni => vnni::rows_product(self, &rows, first, count, chunk),
                        Kernel::Avx2 => avx2::rows_product(self, &rows, &wide, first, count, chunk),
                    }
                };
                #[cfg(not(target_arch = "x86_64"))]
                let _ = (first, count, &wide);
            });
        out
    }
}

/// The vector kernels. Both compute the same integer sums exactly and combine them with the
/// same float operations in the same order, so their products are bit-identical: features do
/// not depend on which one a CPU has.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kernel {
    /// `vpdpbusd`: 64 byte products per instruction.
    Vnni,
    /// `vpmaddwd` on bytes widened to 16 bits: 16 products per instruction, twice an f32 FMA's
    /// (`vpmaddubsw` would take bytes directly but saturates at 16 bits: 255 · 127 twice does).
    Avx2,
}

impl Kernel {
    /// The fastest kernel this CPU has, detected once.
    fn best() -> Option<Kernel> {
        static BEST: std::sync::OnceLock<Option<Kernel>> = std::sync::OnceLock::new();
        *BEST.get_or_init(|| Self::available().first().copied())
    }

    /// Every kernel this CPU can run, fastest first.
    fn available() -> Vec<Kernel> {
        let mut kernels = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::is_x86_feature_detected as has;
            if has!("avx512f") && has!("avx512bw") && has!("avx512vnni") {
                kernels.push(Kernel::Vnni);
            }
            if has!("avx2") && has!("fma") {
                kernels.push(Kernel::Avx2);
            }
        }
        kernels
    }

    fn name(self) -> &'static str {
        match self {
            Kernel::Vnni => "avx512-vnni",
            Kernel::Avx2 => "avx2",
        }
    }
}

/// Quantize m rows of k values into blocks (rows padded with zeros to `k_pad`), rows in
/// parallel.
fn quantize_rows(x: &[f32], m: usize, k: usize, k_pad: usize) -> Int8Rows {
    let blocks = k_pad / BLOCK;
    let mut values = vec![0i8; m * k_pad];
    let mut scale = vec![0f32; m * blocks];
    let mut scaled_sum = vec![0f32; m * blocks];
    if k == 0 {
        return Int8Rows {
            k_pad,
            values,
            scale,
            scaled_sum,
        };
    }
    #[cfg(target_arch = "x86_64")]
    let avx2 = std::arch::is_x86_feature_detected!("avx2");
    values
        .par_chunks_mut(k_pad)
        .zip(scale.par_chunks_mut(blocks))
        .zip(scaled_sum.par_chunks_mut(blocks))
        .zip(x.par_chunks(k))
        .for_each(|(((values, scale), scaled_sum), row)| {
            #[cfg(target_arch = "x86_64")]
            if avx2 {
                // SAFETY: the CPU has AVX2, detected above.
                unsafe { quantize_row_avx2(row, values, scale, scaled_sum) };
                return;
            }
            quantize_row(row, values, scale, scaled_sum)
        });
    Int8Rows {
        k_pad,
        values,
        scale,
        scaled_sum,
    }
}

/// `x` rounded to the nearest integer (ties to even), for |x| < 2^22: adding and subtracting
/// 1.5 · 2^23 leaves no fraction bits. Unlike `round`, this vectorizes (`round` was a libm
/// call per value, 15% of a run).
#[inline(always)]
fn round_small(x: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    (x + MAGIC) - MAGIC
}

/// [`quantize_row`] compiled for AVX2: the same operations on wider vectors, so the same
/// values.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn quantize_row_avx2(
    row: &[f32],
    values: &mut [i8],
    scale: &mut [f32],
    scaled_sum: &mut [f32],
) {
    quantize_row(row, values, scale, scaled_sum)
}

/// [`round_small`] as an integer, for |x| < 2^22: read from the low mantissa bits of
/// x + 1.5 · 2^23 with integer arithmetic, which vectorizes where a saturating `as i32` did
/// not.
#[inline(always)]
fn round_small_to_int(x: f32) -> i32 {
    const MAGIC: f32 = 12_582_912.0;
    (x + MAGIC).to_bits() as i32 - MAGIC.to_bits() as i32
}

/// One row: per block the scale, the values and their scaled sum (|p| <= 127).
#[inline(always)]
fn quantize_row(row: &[f32], values: &mut [i8], scale: &mut [f32], scaled_sum: &mut [f32]) {
    for (b, (dst, (t_out, sum_out))) in values
        .chunks_exact_mut(BLOCK)
        .zip(scale.iter_mut().zip(scaled_sum.iter_mut()))
        .enumerate()
    {
        let lo = (b * BLOCK).min(row.len());
        let src = &row[lo..(lo + BLOCK).min(row.len())];
        let max = src.iter().fold(0f32, |a, v| a.max(v.abs()));
        if !max.is_finite() || src.iter().fold(false, |nan, v| nan | v.is_nan()) {
            // f32 would give NaN here too: keep it visible.
            *t_out = f32::NAN;
            continue;
        }
        if max == 0.0 {
            continue;
        }
        let t = max / 127.0;
        let inv = 127.0 / max;
        let mut sum = 0i32;
        for (d, &v) in dst.iter_mut().zip(src) {
            let p = round_small_to_int(v * inv);
            *d = p as i8;
            sum += p;
        }
        *t_out = t;
        *sum_out = t * sum as f32;
    }
}

/// The kernel's arithmetic in plain Rust (same quantization, same sums).
fn reference_into(w: &Int8Matrix, rows: &Int8Rows, m: usize, out: &mut [f32]) {
    let blocks = rows.k_pad / BLOCK;
    for r in 0..m {
        for nn in 0..w.n {
            let mut acc = 0f32;
            for b in 0..blocks {
                let mut sum = 0i32;
                for kk in b * BLOCK..(b + 1) * BLOCK {
                    let u = i32::from(w.packed[Int8Matrix::index(w.k_pad, kk, nn)]);
                    sum += u * i32::from(rows.values[r * rows.k_pad + kk]);
                }
                let sum = sum * w.level_factor();
                let at = Int8Matrix::scale_index(blocks, b, nn);
                acc += rows.scale[r * blocks + b] * w.scale[at] * sum as f32
                    + w.min[at] * rows.scaled_sum[r * blocks + b];
            }
            out[r * w.n + nn] = acc;
        }
    }
}

/// [`Int8Matrix::product`] computed without the vector kernel, for tests.
pub fn reference_product(w: &Int8Matrix, x: &[f32], m: usize) -> Vec<f32> {
    let rows = quantize_rows(x, m, w.k, w.k_pad);
    let mut out = vec![0f32; m * w.n];
    reference_into(w, &rows, m, &mut out);
    out
}

#[cfg(target_arch = "x86_64")]
mod vnni {
    use super::{Int8Matrix, Int8Rows, BLOCK, LANES, ROWS, VECS};
    use std::arch::x86_64::*;

    /// Rows `first .. first + count` of the product into `out` (count rows of n values).
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    pub(super) unsafe fn rows_product(
        w: &Int8Matrix,
        rows: &Int8Rows,
        first: usize,
        count: usize,
        out: &mut [f32],
    ) {
        let groups = w.n_pad / LANES;
        let mut g = 0;
        while g < groups {
            let vecs = VECS.min(groups - g);
            let mut r = 0;
            while r < count {
                let take = ROWS.min(count - r);
                match (take, vecs) {
                    (4, 4) => tile::<4, 4>(w, rows, first + r, g, out, r),
                    (4, v) => {
                        for j in 0..v {
                            tile::<4, 1>(w, rows, first + r, g + j, out, r)
                        }
                    }
                    (t, v) => {
                        for i in 0..t {
                            if v == 4 {
                                tile::<1, 4>(w, rows, first + r + i, g, out, r + i)
                            } else {
                                for j in 0..v {
                                    tile::<1, 1>(w, rows, first + r + i, g + j, out, r + i)
                                }
                            }
                        }
                    }
                }
                r += take;
            }
            g += vecs;
        }
    }

    /// R rows (from `row`, written at `out_row` of `out`) × V groups of 16 columns (from
    /// group `group`).
    #[target_feature(enable = "avx512f,avx512bw,avx512vnni")]
    #[inline]
    unsafe fn tile<const R: usize, const V: usize>(
        w: &Int8Matrix,
        rows: &Int8Rows,
        row: usize,
        group: usize,
        out: &mut [f32],
        out_row: usize,
    ) {
        let k_pad = w.k_pad;
        let blocks = k_pad / BLOCK;
        let mut total = [[_mm512_setzero_ps(); V]; R];
        let panel = |v: usize| w.packed.as_ptr().add((group + v) * k_pad * LANES);
        for b in 0..blocks {
            let mut acc = [[_mm512_setzero_si512(); V]; R];
            for quad in b * BLOCK / 4..(b + 1) * BLOCK / 4 {
                let mut wv = [_mm512_setzero_si512(); V];
                for (v, x) in wv.iter_mut().enumerate() {
                    *x = _mm512_loadu_si512(panel(v).add(quad * LANES * 4) as *const _);
                }
                for (i, a) in acc.iter_mut().enumerate() {
                    let xs = rows.values.as_ptr().add((row + i) * k_pad + quad * 4);
                    let bx = _mm512_set1_epi32((xs as *const i32).read_unaligned());
                    for (x, &wvv) in a.iter_mut().zip(&wv) {
                        *x = _mm512_dpbusd_epi32(*x, wvv, bx);
                    }
                }
            }
            let mut ws = [_mm512_setzero_ps(); V];
            let mut wm = [_mm512_setzero_ps(); V];
            for v in 0..V {
                let at = ((group + v) * blocks + b) * LANES;
                ws[v] = _mm512_loadu_ps(w.scale.as_ptr().add(at));
                wm[v] = _mm512_loadu_ps(w.min.as_ptr().add(at));
            }
            for (i, (sums, a)) in total.iter_mut().zip(&acc).enumerate() {
                let t = _mm512_set1_ps(rows.scale[(row + i) * blocks + b]);
                let ts = _mm512_set1_ps(rows.scaled_sum[(row + i) * blocks + b]);
                for (v, (sum, &int_sum)) in sums.iter_mut().zip(a).enumerate() {
                    // Four-bit weights: 17 q = 16 q + q.
                    let int_sum = if w.four_bit {
                        _mm512_add_epi32(_mm512_slli_epi32::<4>(int_sum), int_sum)
                    } else {
                        int_sum
                    };
                    let st = _mm512_mul_ps(ws[v], t);
                    let y = _mm512_fmadd_ps(wm[v], ts, *sum);
                    *sum = _mm512_fmadd_ps(_mm512_cvtepi32_ps(int_sum), st, y);
                }
            }
        }
        let n = w.n;
        for (i, sums) in total.iter().enumerate() {
            let dst = out.as_mut_ptr().add((out_row + i) * n);
            for (v, &y) in sums.iter().enumerate() {
                let col = (group + v) * LANES;
                if col + LANES <= n {
                    _mm512_storeu_ps(dst.add(col), y);
                } else {
                    let mut lane = [0f32; LANES];
                    _mm512_storeu_ps(lane.as_mut_ptr(), y);
                    for (j, &l) in lane.iter().enumerate().take(n - col) {
                        *dst.add(col + j) = l;
                    }
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    //! The packed layout is the VNNI kernel's: per quad of inputs, 16 columns × 4 bytes; a
    //! tile takes 8 of the 16 columns ([`tile`] says how each kind of matrix is multiplied).
    use super::{Int8Matrix, Int8Rows, BLOCK, LANES};
    use std::arch::x86_64::*;

    /// Rows of the output computed together.
    const ROWS: usize = 4;
    /// Columns computed together: half of one 16-column group of the layout.
    const COLUMNS: usize = 8;

    /// Rows `first .. first + count` of the product into `out` (count rows of n values);
    /// `wide` holds `rows.values` as i16.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn rows_product(
        w: &Int8Matrix,
        rows: &Int8Rows,
        wide: &[i16],
        first: usize,
        count: usize,
        out: &mut [f32],
    ) {
        for half in 0..w.n_pad / COLUMNS {
            if half * COLUMNS >= w.n {
                break;
            }
            let mut r = 0;
            while r < count {
                let take = ROWS.min(count - r);
                let (row, at) = (first + r, r);
                match (w.four_bit, take) {
                    (true, 4) => tile::<4, true>(w, rows, wide, row, half, out, at),
                    (true, 3) => tile::<3, true>(w, rows, wide, row, half, out, at),
                    (true, 2) => tile::<2, true>(w, rows, wide, row, half, out, at),
                    (true, _) => tile::<1, true>(w, rows, wide, row, half, out, at),
                    (false, 4) => tile::<4, false>(w, rows, wide, row, half, out, at),
                    (false, 3) => tile::<3, false>(w, rows, wide, row, half, out, at),
                    (false, 2) => tile::<2, false>(w, rows, wide, row, half, out, at),
                    (false, _) => tile::<1, false>(w, rows, wide, row, half, out, at),
                }
                r += take;
            }
        }
    }

    /// R rows (from `row`, written at `out_row` of `out`) × the 8 columns of `half`.
    ///
    /// Four-bit weights (`FOUR_BIT`, bytes 0..=15): `vpmaddubsw` multiplies the 32 bytes of 8
    /// columns × 4 inputs by the row's 4 activations, each 16-bit lane one column's sum over 2
    /// inputs. A block's 8 quads add up in 16 bits without overflow (8 · 2 · 15 · 127 =
    /// 30,480); `vpmaddwd` by 17 then gives each 32-bit lane one column's block sum Σ u · p, in
    /// column order.
    ///
    /// Eight-bit weights: each 16 bytes (4 columns × 4 inputs) widen to 16 i16 lanes, and
    /// `vpmaddwd` against `wide`'s activations gives per 32-bit lane one column's sum over 2 of
    /// the 4 inputs; at the end of a block `vphaddd` adds each column's two halves.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn tile<const R: usize, const FOUR_BIT: bool>(
        w: &Int8Matrix,
        rows: &Int8Rows,
        wide: &[i16],
        row: usize,
        half: usize,
        out: &mut [f32],
        out_row: usize,
    ) {
        let k_pad = w.k_pad;
        let blocks = k_pad / BLOCK;
        let (group, side) = (half / 2, half % 2);
        // This half's 32 bytes of each 64-byte quad.
        let panel = w.packed.as_ptr().add(group * k_pad * LANES + side * 32);
        let seventeen = _mm256_set1_epi16(17);
        let mut total = [_mm256_setzero_ps(); R];
        for b in 0..blocks {
            // Per row: four-bit, 16-bit sums of columns 0-7 in [0]; eight-bit, 32-bit sums of
            // columns 0-3 in [0] and 4-7 in [1].
            let mut acc = [[_mm256_setzero_si256(); 2]; R];
            for quad in b * BLOCK / 4..(b + 1) * BLOCK / 4 {
                let at = panel.add(quad * LANES * 4);
                if FOUR_BIT {
                    let wv = _mm256_loadu_si256(at as *const __m256i);
                    for (i, a) in acc.iter_mut().enumerate() {
                        let xs = rows.values.as_ptr().add((row + i) * k_pad + quad * 4);
                        let bx = _mm256_set1_epi32((xs as *const i32).read_unaligned());
                        a[0] = _mm256_add_epi16(a[0], _mm256_maddubs_epi16(wv, bx));
                    }
                } else {
                    let lo = _mm256_cvtepu8_epi16(_mm_loadu_si128(at as *const __m128i));
                    let hi = _mm256_cvtepu8_epi16(_mm_loadu_si128(at.add(16) as *const __m128i));
                    for (i, a) in acc.iter_mut().enumerate() {
                        let xs = wide.as_ptr().add((row + i) * k_pad + quad * 4);
                        let bx = _mm256_set1_epi64x((xs as *const i64).read_unaligned());
                        a[0] = _mm256_add_epi32(a[0], _mm256_madd_epi16(lo, bx));
                        a[1] = _mm256_add_epi32(a[1], _mm256_madd_epi16(hi, bx));
                    }
                }
            }
            let scales = block_scales(w, group, b, side);
            for (i, (sum, a)) in total.iter_mut().zip(&acc).enumerate() {
                let int_sum = if FOUR_BIT {
                    _mm256_madd_epi16(a[0], seventeen)
                } else {
                    // Columns 0,1,4,5 | 2,3,6,7, then in order.
                    let pairs = _mm256_hadd_epi32(a[0], a[1]);
                    _mm256_permute4x64_epi64::<0b11_01_10_00>(pairs)
                };
                *sum = scaled_block_sum(scales, row_scales(rows, row + i, b), int_sum, *sum);
            }
        }
        for (i, &y) in total.iter().enumerate() {
            store(w, out, out_row + i, half, y);
        }
    }

    /// The weights' steps and offsets of block b for the 8 columns of (group, side).
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn block_scales(
        w: &Int8Matrix,
        group: usize,
        b: usize,
        side: usize,
    ) -> (__m256, __m256) {
        let at = (group * (w.k_pad / BLOCK) + b) * LANES + side * COLUMNS;
        (
            _mm256_loadu_ps(w.scale.as_ptr().add(at)),
            _mm256_loadu_ps(w.min.as_ptr().add(at)),
        )
    }

    /// `sum` plus one block's contribution to 8 columns of a row, from the block's integer
    /// sums Σ u · p, the weights' steps and offsets, and the row's scale t and scaled sum ts:
    /// as the VNNI kernel, operation for operation.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn scaled_block_sum(
        (ws, wm): (__m256, __m256),
        (t, ts): (f32, f32),
        int_sum: __m256i,
        sum: __m256,
    ) -> __m256 {
        let st = _mm256_mul_ps(ws, _mm256_set1_ps(t));
        let y = _mm256_fmadd_ps(wm, _mm256_set1_ps(ts), sum);
        _mm256_fmadd_ps(_mm256_cvtepi32_ps(int_sum), st, y)
    }

    /// Row `row`'s scale and scaled sum of block b.
    #[inline]
    fn row_scales(rows: &Int8Rows, row: usize, b: usize) -> (f32, f32) {
        let at = row * (rows.k_pad / BLOCK) + b;
        (rows.scale[at], rows.scaled_sum[at])
    }

    /// The 8 values of `half` into row `out_row` of `out`, dropping padding columns.
    #[target_feature(enable = "avx2,fma")]
    #[inline]
    unsafe fn store(w: &Int8Matrix, out: &mut [f32], out_row: usize, half: usize, y: __m256) {
        let (n, col) = (w.n, half * COLUMNS);
        let dst = out.as_mut_ptr().add(out_row * n);
        if col + COLUMNS <= n {
            _mm256_storeu_ps(dst.add(col), y);
        } else {
            let mut lane = [0f32; COLUMNS];
            _mm256_storeu_ps(lane.as_mut_ptr(), y);
            for (j, &l) in lane.iter().enumerate().take(n - col) {
                *dst.add(col + j) = l;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> f32 {
        *seed = seed
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        ((*seed >> 40) as f32 / (1u64 << 24) as f32) - 0.5
    }

    /// Weights as a GGUF's Q4_1 blocks store them: `w = m + d · q`, q in 0..=15, per column
    /// and block of 32 inputs, both ends of the range present (as Q4_1's rounding makes them).
    fn q4_1_weights(k: usize, n: usize, seed: &mut u64) -> Vec<f32> {
        let mut w = vec![0f32; k * n];
        for c in 0..n {
            for b in 0..k.div_ceil(BLOCK) {
                let (m, d) = (lcg(seed), 0.01 + lcg(seed).abs() * 0.1);
                for i in 0..BLOCK.min(k - b * BLOCK) {
                    let q = match i {
                        0 => 0.0,
                        1 => 15.0,
                        _ => ((lcg(seed) + 0.5) * 15.99).floor(),
                    };
                    w[(b * BLOCK + i) * n + c] = m + d * q;
                }
            }
        }
        w
    }

    #[test]
    fn quantizing_by_column_groups_equals_the_whole_matrix() {
        // 37 columns: two full groups of 16 and a partial one; 70 inputs: a partial block.
        let (k, n) = (70, 37);
        let w_t: Vec<f32> = (0..k * n)
            .map(|i| ((i as f32) * 0.61).sin() * 0.3)
            .collect();
        let whole = Int8Matrix::from_f32_by_column(&w_t, k, n);
        let calls = std::sync::atomic::AtomicUsize::new(0);
        let grouped = Int8Matrix::from_column_groups(k, n, |first, count| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            Ok::<_, String>(std::borrow::Cow::Owned(
                w_t[first * k..(first + count) * k].to_vec(),
            ))
        })
        .expect("no error");
        assert_eq!(calls.into_inner(), 3, "one call per group of 16 columns");
        assert_eq!(grouped.packed, whole.packed);
        assert_eq!(grouped.scale, whole.scale);
        assert_eq!(grouped.min, whole.min);
        assert_eq!(grouped.four_bit, whole.four_bit);
        // An error from the supplier is the constructor's.
        let failed = Int8Matrix::from_column_groups(k, n, |first, _| {
            if first == 16 {
                Err("no such rows".to_string())
            } else {
                Ok(std::borrow::Cow::Borrowed(&w_t[..16 * k]))
            }
        });
        assert_eq!(failed.err().as_deref(), Some("no such rows"));
    }

    #[test]
    fn kernel_equals_the_reference_arithmetic_for_any_shape() {
        for four_bit in [false, true] {
            kernels_equal_the_reference(four_bit);
        }
    }

    fn kernels_equal_the_reference(four_bit: bool) {
        let mut seed = 7;
        for &(m, k, n) in &[
            (1, 64, 16),
            (5, 130, 70),
            (9, 576, 960),
            (33, 200, 49),
            (4, 64, 64),
            (7, 96, 40),
            (2, 32, 8),
        ] {
            let w: Vec<f32> = if four_bit {
                q4_1_weights(k, n, &mut seed)
            } else {
                (0..k * n).map(|_| lcg(&mut seed)).collect()
            };
            let mut x: Vec<f32> = (0..m * k).map(|_| 3.0 * lcg(&mut seed)).collect();
            x[0] = 40.0; // an outlier coarsens its own block only
            let q = Int8Matrix::from_f32(&w, k, n);
            assert_eq!(q.is_four_bit(), four_bit, "{m}x{k}x{n}");
            let want = reference_product(&q, &x, m);
            let kernels = Kernel::available();
            eprintln!("kernels on this CPU: {kernels:?}");
            let products: Vec<Vec<f32>> = kernels
                .iter()
                .map(|&kn| q.product_on(&x, m, Some(kn)))
                .collect();
            for (kernel, got) in kernels.iter().zip(&products) {
                for (g, r) in got.iter().zip(&want) {
                    assert!(
                        (g - r).abs() <= 1e-4 * r.abs().max(1.0),
                        "{kernel:?} {m}x{k}x{n} (four-bit {four_bit}): {g} vs {r}"
                    );
                }
            }
            // Every kernel the same bits: features must not depend on the CPU.
            for pair in products.windows(2) {
                assert_eq!(pair[0], pair[1], "{m}x{k}x{n}: kernels differ");
            }
            let got = q.product(&x, m);
            // And close to the f32 product, in every row but the outlier's.
            let mut worst = 0f32;
            let mut norm = 0f32;
            for r in 1..m {
                for c in 0..n {
                    let exact: f32 = (0..k).map(|i| x[r * k + i] * w[i * n + c]).sum();
                    worst = worst.max((exact - got[r * n + c]).abs());
                    norm = norm.max(exact.abs());
                }
            }
            assert!(
                worst <= 0.01 * norm.max(1.0),
                "{m}x{k}x{n}: error {worst}, scale {norm}"
            );
        }
    }

    #[test]
    fn rounding_through_the_mantissa_equals_the_cast() {
        for i in -2_600_000..=2_600_000 {
            let x = i as f32 * 0.000_05;
            assert_eq!(round_small_to_int(x), round_small(x) as i32, "x = {x}");
        }
        assert_eq!(round_small_to_int(2.5), 2);
        assert_eq!(round_small_to_int(-2.5), -2);
        assert_eq!(round_small_to_int(-127.0), -127);
    }

    #[cfg(target_arch = "x86_64")]
    #[test]
    fn activation_quantization_is_the_same_with_avx2() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            eprintln!("skipped: this CPU has no AVX2");
            return;
        }
        let mut seed = 5;
        let mut row: Vec<f32> = (0..100).map(|_| lcg(&mut seed) * 9.0).collect();
        row[70] = f32::NAN;
        let blocks = round_up(row.len(), BLOCK) / BLOCK;
        let quantized = |avx2: bool| {
            let mut values = vec![0i8; blocks * BLOCK];
            let (mut scale, mut sum) = (vec![0f32; blocks], vec![0f32; blocks]);
            if avx2 {
                // SAFETY: the CPU has AVX2, checked above.
                unsafe { quantize_row_avx2(&row, &mut values, &mut scale, &mut sum) };
            } else {
                quantize_row(&row, &mut values, &mut scale, &mut sum);
            }
            let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            (values, bits(&scale), bits(&sum))
        };
        let (portable, avx2) = (quantized(false), quantized(true));
        assert_eq!(portable, avx2);
        // The block holding the NaN keeps it visible; the others are quantized.
        assert!(f32::from_bits(avx2.1[2]).is_nan());
        assert!(f32::from_bits(avx2.1[0]) > 0.0);
    }

    #[test]
    fn blocks_of_sixteen_levels_are_kept_exactly() {
        // As a GGUF's Q4_1 blocks store them: w = m + d · q, q in 0..=15, per 32 inputs.
        let (k, n) = (2 * BLOCK, 3);
        let w = q4_1_weights(k, n, &mut 11);
        let q = Int8Matrix::from_f32(&w, k, n);
        assert!(q.is_four_bit(), "16 levels per block are stored at 4 bits");
        for kk in 0..k {
            for c in 0..n {
                let (got, want) = (q.dequantized(kk, c), w[kk * n + c]);
                assert!(
                    (got - want).abs() <= 1e-6 * want.abs().max(1.0),
                    "{got} vs {want}"
                );
            }
        }
        let y = q.product(&vec![0.0; k], 1);
        assert_eq!(y, vec![0.0; n], "zero activations give zero");
    }
}
