/**
 * Mean pooling of a model's token vectors over the real (unpadded) tokens, then L2 normalisation: what
 * transformers.js does for `pooling: 'mean', normalize: true`, but reading the attention mask once per
 * token instead of once per token and dimension (its mask is a BigInt64Array, and converting each entry
 * costs more than the sums), and walking the hidden states in memory order.
 *
 * `hidden` is [batch, tokens, dimensions] row-major; `mask` is [batch, tokens], nonzero for real tokens.
 */
export function meanPool(
  hidden: ArrayLike<number>,
  mask: ArrayLike<number | bigint>,
  [batch, tokens, dimensions]: readonly [number, number, number],
): Float32Array[] {
  const out: Float32Array[] = [];
  for (let b = 0; b < batch; b++) {
    const sum = new Float64Array(dimensions);
    let count = 0;
    for (let t = 0; t < tokens; t++) {
      if (Number(mask[b * tokens + t]) === 0) continue;
      count++;
      const at = (b * tokens + t) * dimensions;
      for (let d = 0; d < dimensions; d++) sum[d] = sum[d]! + hidden[at + d]!;
    }
    let norm = 0;
    for (let d = 0; d < dimensions; d++) norm += sum[d]! * sum[d]!;
    // Dividing by the token count does not change the direction: only the norm matters.
    const scale = count > 0 && norm > 0 ? 1 / Math.sqrt(norm) : 0;
    const v = new Float32Array(dimensions);
    for (let d = 0; d < dimensions; d++) v[d] = sum[d]! * scale;
    out.push(v);
  }
  return out;
}
