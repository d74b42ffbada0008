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
//! Llama only: Gemma 3's sliding windows and per-head norms are not written here, and loading
//! it for this path is an error. CI has no GPU, so the tests run this path on the CPU
//! ([`Llama::load_portable`]), where it must agree with llama.cpp and with the CPU path.

use anyhow::{bail, Result};
use candle_core::{DType, Device, Tensor, D};

use super::{rms_norm, tapped_outputs, Embedding, KvLayers, Llama, Prefix};

/// Rows of hidden states through the LM head at a time on this path (1,024 × 49,152 logits:
/// 201 MB on the device).
const HEAD_ROWS: usize = 1024;

/// The RoPE tables on the model's device, (positions, head_dim / 2) each.
pub(super) struct RopeTensors {
    cos: Tensor,
    sin: Tensor,
}

impl RopeTensors {
    pub(super) fn new(cos: &[f32], sin: &[f32], half: usize, dev: &Device) -> Result<Self> {
        let positions = cos.len() / half.max(1);
        Ok(RopeTensors {
            cos: Tensor::from_slice(cos, (positions, half), dev)?,
            sin: Tensor::from_slice(sin, (positions, half), dev)?,
        })
    }
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
        let positions: Vec<u32> = lens
            .iter()
            .flat_map(|&l| (past..past + l).map(|p| p as u32))
            .collect();
        let positions = Tensor::new(positions.as_slice(), dev)?;
        let half = hd / 2;
        let cos = rope
            .cos
            .index_select(&positions, 0)?
            .reshape((n, 1, half, 1))?;
        let sin = rope
            .sin
            .index_select(&positions, 0)?
            .reshape((n, 1, half, 1))?;
        let mask = segment_mask(lens, past, dev)?;
        let scale = 1.0 / f64::from(hd as f32).sqrt();
        let mut x = table.index_select(&Tensor::new(tokens, dev)?, 0)?;
        let (mut ks, mut vs) = (Vec::new(), Vec::new());
        let mut tapped = vec![None; taps.len()];
        let blocks = self.blocks_to_run(taps, taps_only, keep);
        for (i, b) in self.blocks.iter().enumerate().take(blocks) {
            let h = rms_norm(&x, &b.attn_norm, c.rms_eps)?;
            let qkv = b.wqkv.apply(&h)?;
            let q = rotated_heads(&qkv.narrow(1, 0, nh * hd)?, nh, hd, &cos, &sin)?;
            let k = rotated_heads(&qkv.narrow(1, nh * hd, nkv * hd)?, nkv, hd, &cos, &sin)?;
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
                .broadcast_add(&mask)?;
            let att = softmax_last_dim(&scores)?.reshape((nkv, group * n, total))?;
            let out = att
                .matmul(&v_all)?
                .reshape((nh, n, hd))?
                .transpose(0, 1)?
                .reshape((n, nh * hd))?;
            x = (x + b.wo.apply(&out)?)?;
            let h = rms_norm(&x, &b.ffn_norm, c.rms_eps)?;
            let gu = b.w_gate_up.apply(&h)?;
            let act = (gu.narrow(1, 0, c.n_ff)?.silu()? * gu.narrow(1, c.n_ff, c.n_ff)?)?;
            x = (x + b.w_down.apply(&act)?)?;
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
        let mut out = Vec::with_capacity(rows);
        for start in (0..rows).step_by(HEAD_ROWS) {
            let n = HEAD_ROWS.min(rows - start);
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

    #[test]
    fn softmax_and_log_sum_exp_are_stable() -> Result<()> {
        let x = Tensor::new(&[[1000f32, 1000.0, f32::NEG_INFINITY]], &Device::Cpu)?;
        assert_eq!(softmax_last_dim(&x)?.to_vec2::<f32>()?, [[0.5, 0.5, 0.0]]);
        let lse = log_sum_exp_rows(&x)?.to_vec2::<f32>()?[0][0];
        assert!((lse - (1000.0 + 2f32.ln())).abs() < 1e-3, "{lse}");
        Ok(())
    }
}
