/**
 * Capped capture of one output stream: the first `headBytes` and the last
 * `tailBytes` bytes, every byte counted, decoded once at the end.
 *
 * Internal module: the public face is the {@linkcode Capture} record, re-exported
 * from `mod.ts`.
 *
 * @module
 */

/** The captured output of one stream, decoded as UTF-8. */
export interface Capture {
  /**
   * The whole output when nothing was dropped; otherwise {@linkcode head}, one
   * marker line naming the omitted byte count, then {@linkcode tail}.
   */
  readonly text: string;
  /** The kept beginning of the output (the whole output when nothing was dropped). */
  readonly head: string;
  /** The kept end of the output (empty when nothing was dropped). */
  readonly tail: string;
  /** Every byte the stream carried, kept or not. */
  readonly totalBytes: number;
  /** Bytes dropped between {@linkcode head} and {@linkcode tail}. */
  readonly omittedBytes: number;
  /** True when {@linkcode omittedBytes} is more than zero. */
  readonly truncated: boolean;
}

/** Default bytes kept from the start of each stream. */
export const DEFAULT_HEAD_BYTES = 256 * 1024;
/** Default bytes kept from the end of each stream. */
export const DEFAULT_TAIL_BYTES = 768 * 1024;

const decoder = new TextDecoder("utf-8", { fatal: false });
const EMPTY = new Uint8Array(0);

/** The marker line put between head and tail when bytes were dropped. */
export function omissionMarker(omittedBytes: number): string {
  return `[... ${omittedBytes} bytes omitted ...]\n`;
}

/** Checks a head/tail size option and returns it. */
export function checkByteLimit(name: string, value: unknown): number {
  if (
    typeof value !== "number" || !Number.isInteger(value) || value < 0 ||
    value > 2 ** 30
  ) {
    throw new RangeError(
      `Expected ${name} to be a whole number of bytes from 0 to 2^30, got ${
        String(value)
      }`,
    );
  }
  return value;
}

/**
 * Keeps the first `headBytes` and the last `tailBytes` bytes written to it.
 * Memory stays O(headBytes + tailBytes) whatever is pushed; buffers are
 * allocated only as far as output arrives.
 */
export class CaptureBuffer {
  readonly #headMax: number;
  readonly #tailMax: number;
  #head: Uint8Array = EMPTY;
  #headLen = 0;
  #tail: Uint8Array | null = null;
  #tailEnd = 0; // next write index in the ring
  #tailLen = 0;
  #total = 0;

  constructor(headBytes: number, tailBytes: number) {
    this.#headMax = headBytes;
    this.#tailMax = tailBytes;
  }

  /** Bytes pushed so far. */
  get totalBytes(): number {
    return this.#total;
  }

  /** Appends a chunk; the chunk is copied, never kept. */
  push(chunk: Uint8Array): void {
    const len = chunk.length;
    if (len === 0) return;
    this.#total += len;
    let offset = 0;
    if (this.#headLen < this.#headMax) {
      const n = Math.min(this.#headMax - this.#headLen, len);
      this.#growHead(this.#headLen + n);
      this.#head.set(
        n === len ? chunk : chunk.subarray(0, n),
        this.#headLen,
      );
      this.#headLen += n;
      if (n === len) return;
      offset = n;
    }
    const max = this.#tailMax;
    if (max === 0) return;
    const tail = this.#tail ??= new Uint8Array(max);
    let rest = offset === 0 ? chunk : chunk.subarray(offset);
    if (rest.length >= max) {
      tail.set(rest.subarray(rest.length - max));
      this.#tailEnd = 0;
      this.#tailLen = max;
      return;
    }
    const first = Math.min(rest.length, max - this.#tailEnd);
    tail.set(
      first === rest.length ? rest : rest.subarray(0, first),
      this.#tailEnd,
    );
    if (first < rest.length) {
      rest = rest.subarray(first);
      tail.set(rest, 0);
      this.#tailEnd = rest.length;
    } else {
      this.#tailEnd = (this.#tailEnd + first) % max;
    }
    this.#tailLen = Math.min(max, this.#tailLen + chunk.length - offset);
  }

  #growHead(need: number): void {
    if (need <= this.#head.length) return;
    let size = Math.max(256, this.#head.length * 2);
    while (size < need) size *= 2;
    const next = new Uint8Array(Math.min(size, this.#headMax));
    next.set(this.#head.subarray(0, this.#headLen));
    this.#head = next;
  }

  #tailBytes(): Uint8Array {
    const tail = this.#tail;
    if (tail === null || this.#tailLen === 0) return EMPTY;
    if (this.#tailLen < this.#tailMax) {
      return tail.subarray(0, this.#tailLen);
    }
    const out = new Uint8Array(this.#tailLen);
    out.set(tail.subarray(this.#tailEnd));
    out.set(tail.subarray(0, this.#tailEnd), this.#tailMax - this.#tailEnd);
    return out;
  }

  /** Decodes what was kept. Never throws: invalid UTF-8 becomes U+FFFD. */
  finish(): Capture {
    const head = this.#head.subarray(0, this.#headLen);
    const tail = this.#tailBytes();
    const omitted = this.#total - head.length - tail.length;
    if (omitted === 0) {
      let text: string;
      if (tail.length === 0) text = decoder.decode(head);
      else {
        const all = new Uint8Array(head.length + tail.length);
        all.set(head);
        all.set(tail, head.length);
        text = decoder.decode(all);
      }
      return {
        text,
        head: text,
        tail: "",
        totalBytes: this.#total,
        omittedBytes: 0,
        truncated: false,
      };
    }
    const headKept = head.subarray(0, completeCharsEnd(head));
    const tailKept = tail.subarray(continuationPrefix(tail));
    const omittedBytes = this.#total - headKept.length - tailKept.length;
    const headText = decoder.decode(headKept);
    const tailText = decoder.decode(tailKept);
    const joint = headText === "" || headText.endsWith("\n") ? "" : "\n";
    return {
      text: headText + joint + omissionMarker(omittedBytes) + tailText,
      head: headText,
      tail: tailText,
      totalBytes: this.#total,
      omittedBytes,
      truncated: true,
    };
  }
}

/** Length of `bytes` without a trailing, incomplete UTF-8 sequence. */
function completeCharsEnd(bytes: Uint8Array): number {
  const len = bytes.length;
  for (let i = len - 1; i >= 0 && i >= len - 4; i--) {
    const b = bytes[i];
    if ((b & 0xc0) === 0x80) continue; // continuation byte: look further back
    const need = b >= 0xf0 ? 4 : b >= 0xe0 ? 3 : b >= 0xc0 ? 2 : 1;
    return i + need > len ? i : len;
  }
  return len;
}

/** Number of leading continuation bytes (at most 3) that belong to a cut character. */
function continuationPrefix(bytes: Uint8Array): number {
  let i = 0;
  while (i < 3 && i < bytes.length && (bytes[i] & 0xc0) === 0x80) i++;
  return i;
}

/**
 * The chunk handler that feeds `buffer` and, when given, hands a copy of each
 * chunk to `onOutput` (chunks are views of a reused buffer).
 */
export function captureSink<S extends string>(
  buffer: CaptureBuffer,
  stream: S,
  onOutput?: (chunk: Uint8Array, stream: S) => void,
): (chunk: Uint8Array) => void {
  if (!onOutput) return (chunk) => buffer.push(chunk);
  return (chunk) => {
    buffer.push(chunk);
    onOutput(chunk.slice(), stream);
  };
}
