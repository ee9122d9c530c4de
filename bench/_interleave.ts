/**
 * Interleaved timing, shared by the bench's steps.
 *
 * @module
 */

/**
 * Times `n` calls of each implementation, interleaved: after a warm-up of
 * each, rounds of a few calls per implementation, in an order that rotates
 * every round, so a noisy neighbour or a drifting clock favours none of them.
 */
export async function timeInterleaved(
  n: number,
  calls: Record<string, () => Promise<unknown>>,
): Promise<Record<string, number[]>> {
  const names = Object.keys(calls);
  const times: Record<string, number[]> = {};
  for (const name of names) {
    times[name] = [];
    for (let i = 0; i < Math.min(200, n / 5); i++) await calls[name]();
  }
  const batch = Math.max(1, Math.min(50, Math.floor(n / 10)));
  for (let round = 0; times[names[0]].length < n; round++) {
    for (let k = 0; k < names.length; k++) {
      const name = names[(round + k) % names.length];
      const call = calls[name];
      const out = times[name];
      for (let i = 0; i < batch && out.length < n; i++) {
        const t = performance.now();
        await call();
        out.push((performance.now() - t) * 1000);
      }
    }
  }
  return times;
}
