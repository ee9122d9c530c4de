import { deepStrictEqual, equal, ok } from "node:assert/strict";
import { CaptureBuffer, checkByteLimit } from "../core/_capture.ts";
import { test } from "./_harness.ts";

const enc = new TextEncoder();

test("CaptureBuffer keeps everything when it fits", () => {
  const c = new CaptureBuffer(8, 8);
  c.push(enc.encode("hello "));
  c.push(enc.encode("world"));
  deepStrictEqual(c.finish(), {
    text: "hello world",
    head: "hello world",
    tail: "",
    totalBytes: 11,
    omittedBytes: 0,
    truncated: false,
  });
});

test("CaptureBuffer keeps head and tail and counts what it drops", () => {
  const c = new CaptureBuffer(4, 4);
  for (const part of ["0123", "4567", "89ab", "cdef"]) c.push(enc.encode(part));
  const r = c.finish();
  equal(r.head, "0123");
  equal(r.tail, "cdef");
  equal(r.totalBytes, 16);
  equal(r.omittedBytes, 8);
  ok(r.truncated);
  equal(r.text, "0123\n[... 8 bytes omitted ...]\ncdef");
});

test("CaptureBuffer wraps its ring across many small and large chunks", () => {
  const c = new CaptureBuffer(3, 5);
  const all = "abcdefghijklmnopqrstuvwxyz".repeat(7);
  let i = 0;
  for (const size of [1, 2, 7, 3, 11, 1, 30, 4]) {
    c.push(enc.encode(all.slice(i, i + size)));
    i += size;
  }
  c.push(enc.encode(all.slice(i)));
  const r = c.finish();
  equal(r.head, all.slice(0, 3));
  equal(r.tail, all.slice(-5));
  equal(r.totalBytes, all.length);
  equal(r.omittedBytes, all.length - 8);
});

test("CaptureBuffer decodes invalid UTF-8 as U+FFFD without throwing", () => {
  const c = new CaptureBuffer(64, 64);
  c.push(new Uint8Array([0x61, 0xff, 0xfe, 0x62, 0xc3]));
  equal(c.finish().text, "a\ufffd\ufffdb\ufffd");
});

test("CaptureBuffer never splits a multi-byte character at a cut", () => {
  // "é" is 2 bytes, "€" is 3, "😀" is 4: cut inside each of them.
  for (const ch of ["é", "€", "😀"]) {
    const bytes = enc.encode(`ab${ch}${"x".repeat(50)}${ch}yz`);
    for (let head = 2; head <= 6; head++) {
      for (let tail = 2; tail <= 7; tail++) {
        const c = new CaptureBuffer(head, tail);
        c.push(bytes);
        const r = c.finish();
        ok(
          !r.text.includes("\ufffd"),
          `${ch} head=${head} tail=${tail}: ${r.text}`,
        );
        equal(
          enc.encode(r.head).length + enc.encode(r.tail).length +
            r.omittedBytes,
          bytes.length,
        );
      }
    }
  }
});

test("CaptureBuffer with zero tail keeps only the head", () => {
  const c = new CaptureBuffer(2, 0);
  c.push(enc.encode("abcdef"));
  const r = c.finish();
  equal(r.head, "ab");
  equal(r.tail, "");
  equal(r.omittedBytes, 4);
});

test("checkByteLimit() rejects what is not a byte count", () => {
  for (const bad of [-1, 1.5, NaN, "10", 2 ** 31]) {
    let error: unknown;
    try {
      checkByteLimit("headBytes", bad);
    } catch (e) {
      error = e;
    }
    ok(error instanceof RangeError, String(bad));
    ok(String((error as Error).message).startsWith("Expected headBytes"));
  }
  equal(checkByteLimit("tailBytes", 0), 0);
});
