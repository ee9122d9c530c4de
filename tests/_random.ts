/**
 * Seeded randomness for generated test cases: a failure names a seed that
 * repeats it.
 *
 * @module
 */

/** A xorshift generator of numbers in [0, 1) from `seed`. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x / 2 ** 32;
  };
}

/** Letters and digits. */
export const ALNUM =
  "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
