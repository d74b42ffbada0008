//! The forward pass in candle's tensor operations alone, so that it runs on any candle device:
//! the path of an NVIDIA GPU ([`super::Precision::Cuda`], the `cuda` cargo feature).
//!
//! Why a second pass: the CPU path in [`super`] does RoPE, attention's softmax and the gated
//! activation on plain slices, which only a CPU can read. This one does the same arithmetic as
//! tensor operations, and differs in one choice made for GPUs: all the continuations of a batch
//! attend in one product under a block-diagonal causal mask, where the CPU path runs one
//! product per continuation (many small kernels cost a GPU more than one larger one; the masked
//! entries are wasted work a GPU has to spare).
//!
//! Both architectures: Gemma 3's differences ([`super::Arch::Gemma3`]: embeddings scaled by the
//! square root of the width, per-head norms and NeoX rotation of queries and keys, norms after
//! attention and the feed-forward network, GELU gating, sliding-window layers with their own
//! RoPE base) are tensor operations here too, the window one more additive mask. CI has no GPU,
//! so the tests run this path on the CPU ([`Llama::load_portable`]), where it must agree with
//! llama.cpp and with the CPU path.

use anyhow::{bail, Result};
use candle_core::{DType, Device, Tensor, D};

use super::{rms_norm, tapped_outputs, Embedding, KvLayers, Llama, Prefix};

/// Logits through the LM head at a time on this path, as rows × vocabulary: at most 1,024 rows
/// (SmolLM2: 1,024 × 49,152, 201 MB on the device; Gemma 3's 262,144-token vocabulary: 256
/// rows, 268 MB).
const HEAD_LOGITS: usize = 1 << 26;
const HEAD_ROWS: usize = 1024;

/// The RoPE tables on the model's device, (positions, head_dim / 2) each; `local` holds Gemma 3's
/// sliding-window layers' tables (None for llama).
pub(super) struct RopeTensors {
    cos: Tensor,
    sin: Tensor,
    local: Option<(Tensor, Tensor)>,
}

impl RopeTensors {
    /// From the host's tables (cos, sin) and the sliding-window layers' (empty for llama).
    pub(super) fn new(
        global: (&[f32], &[f32]),
        local: (&[f32], &[f32]),
        half: usize,
        dev: &Device,
    ) -> Result<Self> {
        let table = |v: &[f32]| Tensor::from_slice(v, (v.len() / half.max(1), half), dev);
        Ok(RopeTensors {
            cos: table(global.0)?,
            sin: table(global.1)?,
            local: if local.0.is_empty() {
                None
            } else {
                Some((table(local.0)?, table(local.1)?))
            },
        })
    }
}

/// Token positions of continuations of lengths `lens` laid end to end after a prefix of `past`
/// positions: each starts at `past`.
fn segment_positions(lens: &[usize], past: usize) -> Vec<u32> {
    lens.iter()
        .flat_map(|&l| (past..past + l).map(|p| p as u32))
        .collect()
}

/// Additive attention mask (tokens, past + tokens) for continuations of lengths `lens` laid end
/// to end after a prefix of `past` positions: 0 where a query may look (the whole prefix, and
/// its own continuation up to itself), minus infinity elsewhere. Built on the device from each
/// token's segment: a pass of 4,096 tokens has a 64 MB mask, not worth filling on the host and
/// copying over each time.
fn segment_mask(lens: &[usize], past: usize, dev: &Device) -> Result<Tensor> {
    let n: usize = lens.iter().sum();
    let segment: Vec<u32> = lens
        .iter()
        .enumerate()
        .flat_map(|(s, &len)| std::iter::repeat_n(s as u32, len))
        .collect();
    let segment = Tensor::from_vec(segment, n, dev)?;
    let index = Tensor::arange(0u32, n as u32, dev)?;
    // Query r (a row) sees token c (a column) of its own segment with c ≤ r.
    let same = segment
        .reshape((n, 1))?
        .broadcast_eq(&segment.reshape((1, n))?)?;
    let causal = index
        .reshape((1, n))?
        .broadcast_le(&index.reshape((n, 1))?)?;
    let open = Tensor::zeros((n, n), DType::F32, dev)?;
    let hidden = Tensor::full(f32::NEG_INFINITY, (n, n), dev)?;
    let own = (same * causal)?.where_cond(&open, &hidden)?;
    if past == 0 {
        return Ok(own);
    }
    Ok(Tensor::cat(
        &[&Tensor::zeros((n, past), DType::F32, dev)?, &own],
        1,
    )?)
}

/// Gemma 3's sliding window as an additive mask shaped as [`segment_mask`]'s: minus infinity
/// where the key's position is `window` or more behind the query's, 0 elsewhere (later
/// positions too: [`segment_mask`] hides those). Added to [`segment_mask`]'s, it leaves a
/// sliding-window layer's query the keys that the CPU path's `hide_before` leaves it.
fn window_mask(lens: &[usize], past: usize, window: usize, dev: &Device) -> Result<Tensor> {
    let queries: Vec<f32> = segment_positions(lens, past)
        .into_iter()
        .map(|p| p as f32)
        .collect();
    let keys: Vec<f32> = (0..past)
        .map(|p| p as f32)
        .chain(queries.iter().copied())
        .collect();
    let (n, total) = (queries.len(), keys.len());
    let keys = Tensor::from_vec(keys, (1, total), dev)?;
    let behind = Tensor::from_vec(queries, (n, 1), dev)?.broadcast_sub(&keys)?;
    let open = Tensor::zeros((n, total), DType::F32, dev)?;
    let hidden = Tensor::full(f32::NEG_INFINITY, (n, total), dev)?;
    Ok(behind.lt(window as f64)?.where_cond(&open, &hidden)?)
}

/// `heads` heads of width `hd` from `x` (tokens, heads · hd) as (heads, tokens, hd), adjacent
/// pairs rotated by RoPE with `cos` and `sin` of each token's position, (tokens, 1, hd / 2, 1).
fn rotated_heads(
    x: &Tensor,
    heads: usize,
    hd: usize,
    cos: &Tensor,
    sin: &Tensor,
) -> Result<Tensor> {
    let n = x.dim(0)?;
    let x = x.reshape((n, heads, hd / 2, 2))?;
    let (x0, x1) = (x.narrow(3, 0, 1)?, x.narrow(3, 1, 1)?);
    let r0 = (x0.broadcast_mul(cos)? - x1.broadcast_mul(sin)?)?;
    let r1 = (x0.broadcast_mul(sin)? + x1.broadcast_mul(cos)?)?;
    Ok(Tensor::cat(&[r0, r1], 3)?
        .reshape((n, heads, hd))?
        .transpose(0, 1)?
        .contiguous()?)
}

/// Gemma 3's [`rotated_heads`]: each head RMS-normed with `norm` (hd weights), then rotated
/// NeoX-style (element i pairs with element i + hd / 2) with `cos` and `sin` (tokens, 1, hd / 2).
fn normed_neox_heads(
    x: &Tensor,
    heads: usize,
    hd: usize,
    (norm, eps): (&Tensor, f64),
    cos: &Tensor,
    sin: &Tensor,
) -> Result<Tensor> {
    let n = x.dim(0)?;
    let x = rms_norm(&x.reshape((n, heads, hd))?, norm, eps)?;
    let half = hd / 2;
    let (x0, x1) = (x.narrow(2, 0, half)?, x.narrow(2, half, half)?);
    let r0 = (x0.broadcast_mul(cos)? - x1.broadcast_mul(sin)?)?;
    let r1 = (x0.broadcast_mul(sin)? + x1.broadcast_mul(cos)?)?;
    Ok(Tensor::cat(&[r0, r1], 2)?.transpose(0, 1)?.contiguous()?)
}

/// Softmax over the last dimension; every row must have a finite entry (the mask leaves each
/// query its own position).
fn softmax_last_dim(x: &Tensor) -> Result<Tensor> {
    let max = x.max_keepdim(D::Minus1)?;
    let e = x.broadcast_sub(&max)?.exp()?;
    let sum = e.sum_keepdim(D::Minus1)?;
    Ok(e.broadcast_div(&sum)?)
}

/// log Σ e^x over each row of `x` (rows, cols), as (rows, 1).
fn log_sum_exp_rows(x: &Tensor) -> Result<Tensor> {
    let max = x.max_keepdim(D::Minus1)?;
    let sum = x.broadcast_sub(&max)?.exp()?.sum_keepdim(D::Minus1)?;
    Ok((sum.log()? + max)?)
}

impl Llama {
    /// [`Llama::forward_segments`] on this path (the same arguments and results).
    pub(super) fn forward_portable(
        &self,
        tokens: &[u32],
        lens: &[usize],
        prefix: Option<&Prefix>,
        keep: bool,
        taps: &[usize],
        taps_only: bool,
    ) -> Result<(Tensor, Option<KvLayers>, Vec<Tensor>)> {
        let c = &self.config;
        let Some(rope) = &self.portable else {
            bail!("the model was not loaded for the portable forward pass");
        };
        let Embedding::F32(table) = &self.embedding else {
            bail!("the portable forward pass needs an f32 embedding table");
        };
        let dev = table.device();
        let past = prefix.map_or(0, |p| p.len);
        let n = tokens.len();
        let (hd, nh, nkv) = (c.head_dim(), c.n_head, c.n_kv_head);
        let group = nh / nkv;
        let positions = Tensor::new(segment_positions(lens, past).as_slice(), dev)?;
        let half = hd / 2;
        // Llama pairs adjacent elements of a head, (n, 1, half, 1); Gemma's NeoX rotation pairs
        // the halves, (n, 1, half).
        let gemma = c.arch == super::Arch::Gemma3;
        let shape: &[usize] = if gemma {
            &[n, 1, half]
        } else {
            &[n, 1, half, 1]
        };
        let at_positions = |cos: &Tensor, sin: &Tensor| -> Result<(Tensor, Tensor)> {
            Ok((
                cos.index_select(&positions, 0)?.reshape(shape)?,
                sin.index_select(&positions, 0)?.reshape(shape)?,
            ))
        };
        let global = at_positions(&rope.cos, &rope.sin)?;
        let local = match &rope.local {
            Some((cos, sin)) => Some(at_positions(cos, sin)?),
            None => None,
        };
        let mask = segment_mask(lens, past, dev)?;
        let sliding_mask = match (&local, c.sliding_window) {
            (Some(_), w) if w > 0 => Some((&mask + window_mask(lens, past, w, dev)?)?),
            _ => None,
        };
        let scale = 1.0 / f64::from(hd as f32).sqrt();
        let mut x = table.index_select(&Tensor::new(tokens, dev)?, 0)?;
        if gemma {
            // Scaled by the square root of the width, as on the CPU path.
            x = (x * f64::from((c.n_embd as f32).sqrt()))?;
        }
        let (mut ks, mut vs) = (Vec::new(), Vec::new());
        let mut tapped = vec![None; taps.len()];
        let blocks = self.blocks_to_run(taps, taps_only, keep);
        for (i, b) in self.blocks.iter().enumerate().take(blocks) {
            let sliding = c.is_sliding(i);
            let ((cos, sin), mask) = match (&local, &sliding_mask) {
                (Some(rope), Some(window)) if sliding => (rope, window),
                _ => (&global, &mask),
            };
            let h = rms_norm(&x, &b.attn_norm, c.rms_eps)?;
            let qkv = b.wqkv.apply(&h)?;
            let (q, k) = (
                qkv.narrow(1, 0, nh * hd)?,
                qkv.narrow(1, nh * hd, nkv * hd)?,
            );
            let (q, k) = match &b.gemma {
                None => (
                    rotated_heads(&q, nh, hd, cos, sin)?,
                    rotated_heads(&k, nkv, hd, cos, sin)?,
                ),
                Some(g) => (
                    normed_neox_heads(&q, nh, hd, (&g.head_norms.0, c.rms_eps), cos, sin)?,
                    normed_neox_heads(&k, nkv, hd, (&g.head_norms.1, c.rms_eps), cos, sin)?,
                ),
            };
            let v = qkv
                .narrow(1, (nh + nkv) * hd, nkv * hd)?
                .reshape((n, nkv, hd))?
                .transpose(0, 1)?
                .contiguous()?;
            let (k_all, v_all) = match prefix {
                Some(p) => (
                    Tensor::cat(&[&p.k[i], &k], 1)?,
                    Tensor::cat(&[&p.v[i], &v], 1)?,
                ),
                None => (k, v),
            };
            // Heads group*g .. group*g+group share key-value head g: (nkv, group·n, hd).
            let total = past + n;
            let scores = q.reshape((nkv, group * n, hd))?.matmul(&k_all.t()?)?;
            let scores = (scores * scale)?
                .reshape((nkv, group, n, total))?
                .broadcast_add(mask)?;
            let att = softmax_last_dim(&scores)?.reshape((nkv, group * n, total))?;
            let out = att
                .matmul(&v_all)?
                .reshape((nh, n, hd))?
                .transpose(0, 1)?
                .reshape((n, nh * hd))?;
            let attn = b.wo.apply(&out)?;
            x = match &b.gemma {
                None => (x + attn)?,
                Some(g) => (x + rms_norm(&attn, &g.post_attn, c.rms_eps)?)?,
            };
            let h = rms_norm(&x, &b.ffn_norm, c.rms_eps)?;
            let gu = b.w_gate_up.apply(&h)?;
            let (gate, up) = (gu.narrow(1, 0, c.n_ff)?, gu.narrow(1, c.n_ff, c.n_ff)?);
            x = match &b.gemma {
                None => (x + b.w_down.apply(&(gate.silu()? * up)?)?)?,
                // candle's `gelu` is the tanh approximation, the CPU path's `geglu`.
                Some(g) => {
                    let down = b.w_down.apply(&(gate.gelu()? * up)?)?;
                    (x + rms_norm(&down, &g.post_ffn, c.rms_eps)?)?
                }
            };
            if keep {
                ks.push(k_all);
                vs.push(v_all);
            }
            for (slot, _) in tapped.iter_mut().zip(taps).filter(|(_, &t)| t == i) {
                *slot = Some(x.clone());
            }
        }
        let tapped = tapped_outputs(tapped, taps)?;
        let x = rms_norm(&x, &self.output_norm, c.rms_eps)?;
        Ok((x, keep.then_some((ks, vs)), tapped))
    }

    /// [`Llama::next_logprobs`] on this path.
    pub(super) fn next_logprobs_portable(&self, h: &Tensor) -> Result<Vec<f32>> {
        let logits = self.head.apply(h)?;
        let lse = log_sum_exp_rows(&logits)?;
        Ok(logits
            .broadcast_sub(&lse)?
            .flatten_all()?
            .to_vec1::<f32>()?)
    }

    /// [`Llama::target_logprobs`] on this path: the head's logits stay on the device, only each
    /// row's target log-probability comes back.
    pub(super) fn target_logprobs_portable(&self, h: &Tensor, targets: &[u32]) -> Result<Vec<f32>> {
        let vocab = self.head.outputs()?;
        if let Some(&t) = targets.iter().find(|&&t| t as usize >= vocab) {
            bail!("token id {t} outside the vocabulary");
        }
        let rows = h.dim(0)?;
        let step = (HEAD_LOGITS / vocab.max(1)).clamp(1, HEAD_ROWS);
        let mut out = Vec::with_capacity(rows);
        for start in (0..rows).step_by(step) {
            let n = step.min(rows - start);
            let logits = self.head.apply(&h.narrow(0, start, n)?)?;
            let ids = Tensor::new(&targets[start..start + n], h.device())?.unsqueeze(1)?;
            let picked = (logits.gather(&ids, 1)? - log_sum_exp_rows(&logits)?)?;
            out.extend(picked.flatten_all()?.to_vec1::<f32>()?);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mask_sees_the_prefix_and_its_own_continuation_up_to_itself() -> Result<()> {
        let m = segment_mask(&[2, 1], 1, &Device::Cpu)?.to_vec2::<f32>()?;
        let open = |r: &Vec<f32>| r.iter().map(|v| *v == 0.0).collect::<Vec<_>>();
        assert_eq!(open(&m[0]), [true, true, false, false]);
        assert_eq!(open(&m[1]), [true, true, true, false]);
        assert_eq!(open(&m[2]), [true, false, false, true]);
        assert!(m
            .iter()
            .flatten()
            .all(|v| *v == 0.0 || *v == f32::NEG_INFINITY));
        // No prefix: three segments, each sees only itself, causally.
        let m = segment_mask(&[1, 3, 2], 0, &Device::Cpu)?.to_vec2::<f32>()?;
        let expected = [
            [true, false, false, false, false, false],
            [false, true, false, false, false, false],
            [false, true, true, false, false, false],
            [false, true, true, true, false, false],
            [false, false, false, false, true, false],
            [false, false, false, false, true, true],
        ];
        for (row, want) in m.iter().zip(expected) {
            assert_eq!(open(row), want);
        }
        Ok(())
    }

    /// A window of 2 after a prefix of 2: alone it hides only keys two or more positions behind
    /// the query (later ones are the segment mask's to hide); added to the segment mask, each
    /// query sees itself and the position before it, in the prefix or its own segment.
    #[test]
    fn window_mask_hides_keys_a_window_or_more_behind() -> Result<()> {
        let open = |m: &Tensor| -> Result<Vec<Vec<bool>>> {
            Ok(m.to_vec2::<f32>()?
                .iter()
                .map(|r| r.iter().map(|v| *v == 0.0).collect())
                .collect())
        };
        // Segments [3, 1] after 2 prefix positions: queries at positions 2, 3, 4 and 2; the
        // columns are positions 0, 1, then 2, 3, 4 and 2 again.
        let w = window_mask(&[3, 1], 2, 2, &Device::Cpu)?;
        assert_eq!(
            open(&w)?,
            [
                [false, true, true, true, true, true],
                [false, false, true, true, true, true],
                [false, false, false, true, true, false],
                [false, true, true, true, true, true],
            ]
        );
        let both = (segment_mask(&[3, 1], 2, &Device::Cpu)? + w)?;
        assert_eq!(
            open(&both)?,
            [
                [false, true, true, false, false, false],
                [false, false, true, true, false, false],
                [false, false, false, true, true, false],
                [false, true, false, false, false, true],
            ]
        );
        Ok(())
    }

    #[test]
    fn softmax_and_log_sum_exp_are_stable() -> Result<()> {
        let x = Tensor::new(&[[1000f32, 1000.0, f32::NEG_INFINITY]], &Device::Cpu)?;
        assert_eq!(softmax_last_dim(&x)?.to_vec2::<f32>()?, [[0.5, 0.5, 0.0]]);
        let lse = log_sum_exp_rows(&x)?.to_vec2::<f32>()?[0][0];
        assert!((lse - (1000.0 + 2f32.ln())).abs() < 1e-3, "{lse}");
        Ok(())
    }
}
