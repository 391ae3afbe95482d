import { mean_pooling, Tensor } from '@huggingface/transformers';
import { describe, expect, it } from 'vitest';
import { meanPool } from '../../core/embed/mean-pool.js';

describe('mean pooling', () => {
  it('gives the vectors transformers.js gives for mean pooling + L2 norm, padding left out', () => {
    const [batch, tokens, dims] = [3, 5, 8];
    let seed = 7;
    const next = () => ((seed = (seed * 16807) % 2147483647) / 2147483647) * 2 - 1;
    const hidden = Float32Array.from({ length: batch * tokens * dims }, next);
    // Rows of 5, 2 and 1 real tokens; the rest is padding whose vectors must not count.
    const real = [5, 2, 1];
    const mask = BigInt64Array.from({ length: batch * tokens }, (_, i) => (i % tokens < real[Math.floor(i / tokens)]! ? 1n : 0n));

    const theirs = mean_pooling(new Tensor('float32', hidden, [batch, tokens, dims]), new Tensor('int64', mask, [batch, tokens])).normalize(
      2,
      -1,
    );
    const ours = meanPool(hidden, mask, [batch, tokens, dims]);

    expect(ours).toHaveLength(batch);
    ours.forEach((v, b) => {
      expect(v).toHaveLength(dims);
      v.forEach((x, d) => expect(x).toBeCloseTo((theirs.data as Float32Array)[b * dims + d]!, 6));
    });
    // The one-token row is that token's vector, normalised.
    const first = hidden.slice(2 * tokens * dims, 2 * tokens * dims + dims);
    const n = Math.hypot(...first);
    ours[2]!.forEach((x, d) => expect(x).toBeCloseTo(first[d]! / n, 6));
  });
});
