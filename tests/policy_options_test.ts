import { deepEqual, equal, throws } from "node:assert/strict";
import { type Arg, lit, OptionError, parseOptions } from "../policy/options.ts";
import { test } from "./_harness.ts";

const SORT = {
  short: "bcCdfghik:mMno:rRsS:t:T:uVz",
  long: [
    "check=?",
    "compress-program=",
    "key=",
    "numeric-sort",
    "output=",
    "unique",
    "version-sort",
    "version",
    "help",
  ],
};

function names(args: string[], table = SORT): [string, string | undefined][] {
  return parseOptions(args.map(lit), table).options.map((
    o,
  ) => [o.name, o.value?.value ?? undefined]);
}

test("parseOptions() reads long options, =value and separate values", () => {
  deepEqual(names(["--output=x", "--key", "2", "--unique"]), [["output", "x"], [
    "key",
    "2",
  ], ["unique", undefined]]);
  // A required value takes the next word even when it starts with "-".
  deepEqual(names(["--output", "-x"]), [["output", "-x"]]);
  // An optional value only joined with "=".
  deepEqual(
    parseOptions(["--check", "f"].map(lit), SORT).operands.map((a) => a.value),
    ["f"],
  );
  deepEqual(names(["--check=quiet"]), [["check", "quiet"]]);
});

test("parseOptions() accepts every unique abbreviation and refuses ambiguous ones", () => {
  for (let n = 2; n <= "compress-program".length; n++) {
    const abbrev = "compress-program".slice(0, n);
    deepEqual(
      names([`--${abbrev}=pwn`]),
      [["compress-program", "pwn"]],
      abbrev,
    );
  }
  for (let n = 1; n <= "output".length; n++) {
    deepEqual(names([`--${"output".slice(0, n)}`, "f"]), [["output", "f"]]);
  }
  // --ver matches version-sort and version; --vers too.
  throws(() => names(["--ver"]), /ambiguous/);
  // An exact match wins over longer names.
  deepEqual(names(["--version"]), [["version", undefined]]);
  throws(() => names(["--frob"]), OptionError);
  throws(() => names(["--unique=x"]), /does not take a value/);
});

test("parseOptions() reads bundled short options with a value joined at the end", () => {
  deepEqual(names(["-uo", "out"]), [["u", undefined], ["o", "out"]]);
  deepEqual(names(["-uoout"]), [["u", undefined], ["o", "out"]]);
  deepEqual(names(["-nrk2"]), [["n", undefined], ["r", undefined], ["k", "2"]]);
  // Every letter of a bundle, in every position, is read.
  for (const bundle of ["-ou", "-nuo", "-rno", "-unro"]) {
    const found = names([bundle, "x"]).map(([n]) => n);
    equal(found.includes("o"), true, bundle);
  }
  throws(() => names(["-uq"]), /invalid option "-q"/);
  throws(() => names(["-o"]), /requires a value/);
});

test("parseOptions() permutes options after operands, stops at --", () => {
  const p = parseOptions(["f", "-o", "x", "g"].map(lit), SORT);
  deepEqual(p.options.map((o) => o.name), ["o"]);
  deepEqual(p.operands.map((a) => a.value), ["f", "g"]);
  const q = parseOptions(["--", "-o", "x"].map(lit), SORT);
  deepEqual(q.options, []);
  deepEqual(q.operands.map((a) => a.value), ["-o", "x"]);
  const r = parseOptions(["f", "-o", "x"].map(lit), {
    ...SORT,
    noPermute: true,
  });
  deepEqual(r.options, []);
  deepEqual(parseOptions(["-"].map(lit), SORT).operands.map((a) => a.value), [
    "-",
  ]);
});

test("parseOptions() marks words of unknown value that could be options", () => {
  const unknown = (dash: boolean, many: boolean): Arg => ({
    value: null,
    text: "$x",
    dash,
    many,
    prefix: dash ? "" : "./",
  });
  equal(parseOptions([unknown(true, false)], SORT).unknown, true);
  equal(parseOptions([unknown(false, true)], SORT).unknown, true);
  equal(parseOptions([unknown(false, false)], SORT).unknown, false);
  // As an option's value, or after --, an unknown word is a value.
  equal(parseOptions([lit("-k"), unknown(true, false)], SORT).unknown, false);
  equal(parseOptions([lit("--"), unknown(true, true)], SORT).unknown, false);
  // Several words, none beginning with "-" (a glob after a directory, a
  // clean output): operands, unless a -- follows (it could become a value).
  const tame: Arg = { ...unknown(false, true), tame: true };
  equal(parseOptions([tame], SORT).unknown, false);
  equal(parseOptions([tame, lit("--"), lit("-o")], SORT).unknown, true);
});

test("parseOptions() reads obsolete -NUM counts only where the table says", () => {
  const head = {
    short: "c:n:qvz",
    long: ["lines=", "bytes="],
    numeric: /^-\d+$/,
  };
  deepEqual(
    parseOptions(["-5", "f"].map(lit), head).options.map((o) => o.value?.value),
    ["5"],
  );
  throws(() => parseOptions(["f", "-5"].map(lit), head), OptionError);
});
