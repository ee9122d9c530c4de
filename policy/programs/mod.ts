/**
 * The read-only set: every program the preset knows, by the names it runs as.
 *
 * @module
 */

import type { Program } from "../program.ts";
import { awk } from "./awk.ts";
import { base64 } from "./base64.ts";
import { basename } from "./basename.ts";
import { cat } from "./cat.ts";
import { cksum } from "./cksum.ts";
import { cmp } from "./cmp.ts";
import { column } from "./column.ts";
import { comm } from "./comm.ts";
import { cut } from "./cut.ts";
import { date } from "./date.ts";
import { df } from "./df.ts";
import { diff } from "./diff.ts";
import { dirname } from "./dirname.ts";
import { du } from "./du.ts";
import { echo } from "./echo.ts";
import { expand } from "./expand.ts";
import { file } from "./file.ts";
import { find } from "./find.ts";
import { fmt } from "./fmt.ts";
import { fold } from "./fold.ts";
import { free } from "./free.ts";
import { git } from "./git.ts";
import { grep } from "./grep.ts";
import { head } from "./head.ts";
import { hexdump } from "./hexdump.ts";
import { hostname } from "./hostname.ts";
import { id } from "./id.ts";
import { join } from "./join.ts";
import { jq } from "./jq.ts";
import { ls } from "./ls.ts";
import { md5sum } from "./md5sum.ts";
import { nl } from "./nl.ts";
import { nproc } from "./nproc.ts";
import { od } from "./od.ts";
import { paste } from "./paste.ts";
import { printenv } from "./printenv.ts";
import { printf } from "./printf.ts";
import { ps } from "./ps.ts";
import { mapfile, read } from "./read.ts";
import { readlink } from "./readlink.ts";
import { realpath } from "./realpath.ts";
import { rev } from "./rev.ts";
import { rg } from "./rg.ts";
import { sed } from "./sed.ts";
import { seq } from "./seq.ts";
import { set } from "./set.ts";
import { cd, hash, pwd, reporters, truth, type } from "./shell.ts";
import { sleep } from "./sleep.ts";
import { sort } from "./sort.ts";
import { stat } from "./stat.ts";
import { strings } from "./strings.ts";
import { tac } from "./tac.ts";
import { tail } from "./tail.ts";
import { tar } from "./tar.ts";
import { tee } from "./tee.ts";
import { test } from "./test.ts";
import { tr } from "./tr.ts";
import { tree } from "./tree.ts";
import { ulimit } from "./ulimit.ts";
import { umask } from "./umask.ts";
import { uname } from "./uname.ts";
import { unexpand } from "./unexpand.ts";
import { uniq } from "./uniq.ts";
import { uptime } from "./uptime.ts";
import { version } from "./version.ts";
import { wc } from "./wc.ts";
import { which } from "./which.ts";
import { whoami } from "./whoami.ts";
import { xxd } from "./xxd.ts";

const ALL: Program[] = [
  awk,
  base64,
  basename,
  cat,
  cd,
  cksum,
  cmp,
  column,
  comm,
  cut,
  date,
  df,
  diff,
  dirname,
  du,
  echo,
  expand,
  file,
  find,
  fmt,
  fold,
  free,
  git,
  grep,
  hash,
  head,
  hexdump,
  hostname,
  id,
  join,
  jq,
  ls,
  mapfile,
  md5sum,
  nl,
  nproc,
  od,
  paste,
  printenv,
  printf,
  ps,
  pwd,
  read,
  readlink,
  realpath,
  reporters,
  rev,
  rg,
  sed,
  seq,
  set,
  sleep,
  sort,
  stat,
  strings,
  tac,
  tail,
  tar,
  tee,
  test,
  tr,
  tree,
  truth,
  type,
  ulimit,
  umask,
  uname,
  unexpand,
  uniq,
  uptime,
  version,
  wc,
  which,
  whoami,
  xxd,
];

/** Every program of the read-only set, by name. */
export const READ_ONLY: ReadonlyMap<string, Program> = new Map(
  ALL.flatMap((p) => p.names.map((n) => [n, p] as const)),
);
