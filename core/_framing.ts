/**
 * Finding the end-of-command sentinel in a shell's output stream.
 *
 * Each command gets a needle of a per-call random id, a separator byte and a
 * per-shell secret. The shell prints the needle, then a trailer ended by a NUL
 * byte, when the command is done. The scanner splits the stream into the
 * command's own bytes (handed on untouched), the trailer, and what follows
 * (output of background jobs, kept for the next command).
 *
 * Internal module.
 *
 * @module
 */

/** Longest trailer accepted after a needle (status and cwd). */
const MAX_TRAILER_BYTES = 64 * 1024;
/** Background output kept between two commands. */
const PENDING_BYTES = 64 * 1024;

/** Receives the bytes of the current command. */
export type Sink = (bytes: Uint8Array) => void;

/**
 * Scans one stream for the current needle with a Boyer-Moore-Horspool search,
 * so most bytes of bulk output are skipped rather than compared.
 */
export class SentinelScanner {
  #needle: Uint8Array | null = null;
  readonly #shift = new Uint8Array(256);
  #sink: Sink | null = null;
  #onTrailer: ((trailer: Uint8Array) => void) | null = null;
  #hold: Uint8Array | null = null;
  #trailer: Uint8Array[] | null = null;
  #trailerBytes = 0;
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  #after: Sink | null = null;

  /**
   * Starts looking for `needle`. Output that arrived since the last command
   * goes to `sink` first; `onTrailer` gets the bytes between needle and NUL.
   */
  begin(
    needle: Uint8Array,
    sink: Sink,
    onTrailer: (trailer: Uint8Array) => void,
  ): void {
    if (needle.length < 2 || needle.length > 255) {
      throw new RangeError(
        `Expected a needle of 2 to 255 bytes, got ${needle.length}`,
      );
    }
    this.#needle = needle;
    const m = needle.length;
    this.#shift.fill(m);
    for (let j = 0; j < m - 1; j++) this.#shift[needle[j]] = m - 1 - j;
    this.#after = null;
    this.#sink = sink;
    this.#onTrailer = onTrailer;
    this.#hold = null;
    this.#trailer = null;
    this.#trailerBytes = 0;
    const pending = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    for (const bytes of pending) this.push(bytes);
  }

  /** Stops the current command: held bytes go to its sink. */
  end(): void {
    if (this.#hold && this.#sink) this.#sink(this.#hold);
    this.#hold = null;
    this.#needle = null;
    this.#sink = null;
    this.#onTrailer = null;
    this.#trailer = null;
  }

  /** Feeds a chunk (a view that may be reused after the call). */
  push(chunk: Uint8Array): void {
    if (chunk.length === 0) return;
    const needle = this.#needle;
    if (needle === null) {
      this.#keepPending(chunk);
      return;
    }
    if (this.#trailer !== null) {
      this.#takeTrailer(chunk, 0);
      return;
    }
    let buf = chunk;
    if (this.#hold !== null) {
      buf = new Uint8Array(this.#hold.length + chunk.length);
      buf.set(this.#hold);
      buf.set(chunk, this.#hold.length);
      this.#hold = null;
    }
    const at = search(buf, needle, this.#shift);
    if (at >= 0) {
      if (at > 0) this.#sink!(buf.subarray(0, at));
      this.#trailer = [];
      this.#takeTrailer(buf, at + needle.length);
      return;
    }
    const keep = partialSuffix(buf, needle);
    if (keep < buf.length) this.#sink!(buf.subarray(0, buf.length - keep));
    if (keep > 0) this.#hold = buf.slice(buf.length - keep);
  }

  /**
   * Between commands: hands what arrived since the frame, and what arrives
   * from now on, to `sink` instead of keeping it for the next command (the
   * command's output that came through a relay after its frame), until
   * {@linkcode SentinelScanner.stopPassing}.
   */
  passOn(sink: Sink): void {
    const pending = this.#pending;
    this.#pending = [];
    this.#pendingBytes = 0;
    for (const bytes of pending) sink(bytes);
    this.#after = sink;
  }

  /** Ends {@linkcode SentinelScanner.passOn}: later output waits for the next command. */
  stopPassing(): void {
    this.#after = null;
  }

  /** Output that arrives from elsewhere (merged streams): passed on unscanned. */
  pushRaw(chunk: Uint8Array): void {
    if (this.#sink !== null && this.#trailer === null) this.#sink(chunk);
    else this.#keepPending(chunk);
  }

  #takeTrailer(buf: Uint8Array, from: number): void {
    const nul = buf.indexOf(0, from);
    const end = nul === -1 ? buf.length : nul;
    if (end > from) {
      this.#trailer!.push(buf.slice(from, end));
      this.#trailerBytes += end - from;
    }
    if (nul === -1 && this.#trailerBytes <= MAX_TRAILER_BYTES) return;
    const parts = this.#trailer!;
    const trailer = new Uint8Array(this.#trailerBytes);
    let offset = 0;
    for (const part of parts) {
      trailer.set(part, offset);
      offset += part.length;
    }
    const onTrailer = this.#onTrailer!;
    this.#needle = null;
    this.#sink = null;
    this.#onTrailer = null;
    this.#trailer = null;
    if (nul !== -1 && nul + 1 < buf.length) {
      this.#keepPending(buf.subarray(nul + 1));
    }
    onTrailer(trailer);
  }

  #keepPending(chunk: Uint8Array): void {
    if (this.#after !== null) {
      this.#after(chunk);
      return;
    }
    this.#pending.push(chunk.slice());
    this.#pendingBytes += chunk.length;
    while (
      this.#pendingBytes > PENDING_BYTES && this.#pending.length > 1
    ) {
      this.#pendingBytes -= this.#pending.shift()!.length;
    }
  }
}

/** Horspool search: index of `needle` in `hay`, or -1. */
export function search(
  hay: Uint8Array,
  needle: Uint8Array,
  shift: Uint8Array,
): number {
  const m = needle.length;
  const last = m - 1;
  const tail = needle[last];
  const end = hay.length - m;
  let i = 0;
  while (i <= end) {
    const c = hay[i + last];
    if (c === tail) {
      let j = last - 1;
      while (j >= 0 && hay[i + j] === needle[j]) j--;
      if (j < 0) return i;
    }
    i += shift[c];
  }
  return -1;
}

/** Length of the longest proper suffix of `buf` that begins `needle`. */
function partialSuffix(buf: Uint8Array, needle: Uint8Array): number {
  const len = buf.length;
  const first = needle[0];
  for (let k = Math.min(needle.length - 1, len); k > 0; k--) {
    const start = len - k;
    if (buf[start] !== first) continue;
    let j = 1;
    while (j < k && buf[start + j] === needle[j]) j++;
    if (j === k) return k;
  }
  return 0;
}
