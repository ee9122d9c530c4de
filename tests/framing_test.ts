import { deepStrictEqual, equal, throws } from "node:assert/strict";
import { search, SentinelScanner } from "../core/_framing.ts";
import { test } from "./_harness.ts";

const enc = new TextEncoder();
const dec = new TextDecoder();
const NEEDLE = enc.encode("1a2b3c4d\x1eSECRETSECRETSECR");

function run(chunks: Uint8Array[], needle = NEEDLE) {
  const scanner = new SentinelScanner();
  let out = "";
  const trailers: string[] = [];
  scanner.begin(
    needle,
    (b) => out += dec.decode(b),
    (t) => trailers.push(dec.decode(t)),
  );
  for (const c of chunks) scanner.push(c);
  return { scanner, out, trailers };
}

/** Every way of cutting `bytes` into two or three chunks. */
function* splits(bytes: Uint8Array): Generator<Uint8Array[]> {
  for (let i = 0; i <= bytes.length; i++) {
    yield [bytes.slice(0, i), bytes.slice(i)];
    for (let j = i; j <= bytes.length; j += 7) {
      yield [bytes.slice(0, i), bytes.slice(i, j), bytes.slice(j)];
    }
  }
}

test("SentinelScanner finds the sentinel wherever the chunks are cut", () => {
  const stream = enc.encode("output 1a2b3c4d almost\x1eSECRET but not\n");
  const whole = new Uint8Array([
    ...stream,
    ...NEEDLE,
    ...enc.encode("0 /tmp/dir\0"),
  ]);
  for (const chunks of splits(whole)) {
    const { out, trailers } = run(chunks);
    equal(out, dec.decode(stream));
    deepStrictEqual(trailers, ["0 /tmp/dir"]);
  }
});

test("SentinelScanner keeps what follows the sentinel for the next command", () => {
  const scanner = new SentinelScanner();
  let first = "";
  scanner.begin(NEEDLE, (b) => first += dec.decode(b), () => {});
  scanner.push(
    new Uint8Array([
      ...enc.encode("a"),
      ...NEEDLE,
      ...enc.encode("0 /\0background\n"),
    ]),
  );
  scanner.push(enc.encode("more background\n"));
  equal(first, "a");
  let second = "";
  const trailers: string[] = [];
  const next = enc.encode("ffffffff\x1eSECRETSECRETSECR");
  scanner.begin(
    next,
    (b) => second += dec.decode(b),
    (t) => trailers.push(dec.decode(t)),
  );
  scanner.push(
    new Uint8Array([...enc.encode("b"), ...next, ...enc.encode("1 /x\0")]),
  );
  equal(second, "background\nmore background\nb");
  deepStrictEqual(trailers, ["1 /x"]);
});

test("SentinelScanner passes bytes that only look like the needle", () => {
  const decoy = enc.encode(
    "1a2b3c4d\x1eSECRETSECRETSECX and 1a2b3c4d\x1eSECRET\n",
  );
  const { out, trailers } = run([decoy]);
  equal(out, dec.decode(decoy));
  deepStrictEqual(trailers, []);
});

test("SentinelScanner.end() hands held bytes back", () => {
  const scanner = new SentinelScanner();
  let out = "";
  scanner.begin(NEEDLE, (b) => out += dec.decode(b), () => {});
  scanner.push(enc.encode("x 1a2b"));
  // "1a2b" may start the needle: it is held until the next chunk or the end.
  equal(out, "x ");
  scanner.end();
  equal(out, "x 1a2b");
});

test("search() is a plain substring search", () => {
  const needle = enc.encode("abcab");
  const shift = new Uint8Array(256).fill(needle.length);
  for (let j = 0; j < needle.length - 1; j++) {
    shift[needle[j]] = needle.length - 1 - j;
  }
  equal(search(enc.encode("xxabcabyy"), needle, shift), 2);
  equal(search(enc.encode("abcaabcab"), needle, shift), 4);
  equal(search(enc.encode("abca"), needle, shift), -1);
  throws(
    () => new SentinelScanner().begin(new Uint8Array(1), () => {}, () => {}),
    /needle of 2 to 255 bytes/,
  );
});
