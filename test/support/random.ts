/** A seeded linear congruential generator in [0, 1): the same seed, the same sequence (deterministic corpora). */
export function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}
