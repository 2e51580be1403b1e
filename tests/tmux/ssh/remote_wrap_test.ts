/**
 * The remote wrapper (src/tmux/ssh/remote_wrap.ts), run without ssh under every POSIX sh installed
 * here, with a stand-in for tmux: status, output and input pass through, nothing is read before
 * the mark, and the end of our input ends the stand-in in every mode. Plus the mark line's parsing.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { eventually } from "../../support/fixture.ts";
import { running } from "../../support/processes.ts";
import { remoteWord } from "../../../src/tmux/ssh/quote.ts";
import {
  CONFIRM_SCRIPT,
  findMarkLine,
  innerScript,
  MarkScanner,
  type RemoteMode,
  wrapperScript,
} from "../../../src/tmux/ssh/remote_wrap.ts";

const MARK = "tmux-mcp-0123456789abcdef0123456789abcdef ";
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** POSIX shells the remote `sh` may be; sh is everywhere the suite runs. */
const SHELLS: string[] = [];
for (const shell of ["sh", "dash", "bash", "busybox"]) {
  const args = shell === "busybox" ? ["sh", "-c", "exit 0"] : ["-c", "exit 0"];
  try {
    const out = await new Deno.Command(shell, { args, stdin: "null", stderr: "null" }).output();
    if (out.success) SHELLS.push(shell);
  } catch {
    // not installed
  }
}

/**
 * Start the wrapper in `mode` around `fake` (a `sh -c` script standing for tmux) under `shell`,
 * read up to the mark line, and hand back the pieces.
 */
async function start(shell: string, mode: RemoteMode, fake: string) {
  const program = shell === "busybox" ? ["sh"] : [];
  const child = new Deno.Command(shell, {
    args: [...program, "-c", wrapperScript(MARK), "sh", mode, innerScript(MARK), "sh", "-c", fake],
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const reader = child.stdout.getReader();
  const scanner = new MarkScanner(MARK);
  let rest: Uint8Array = new Uint8Array();
  let pid = 0;
  while (pid === 0) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`${shell} ${mode}: no mark line`);
    const seen = scanner.push(value);
    if (seen && seen !== "noise") ({ pid, rest } = seen);
  }
  const writer = child.stdin.getWriter();
  const output = (async () => {
    let text = decoder.decode(rest);
    while (true) {
      const { done, value } = await reader.read();
      if (done) return text;
      text += decoder.decode(value);
    }
  })();
  return { child, pid, writer, output };
}

for (const shell of SHELLS) {
  Deno.test(`wrapper (${shell}): mode n passes status and output; end of input kills`, async () => {
    const done = await start(shell, "n", "echo out; exit 3");
    assertEquals(done.pid, done.child.pid, "tmux is the wrapper itself");
    assertEquals(await done.output, "out\n");
    assertEquals((await done.child.status).code, 3);
    await done.writer.close().catch(() => {});

    const hung = await start(shell, "n", "exec sleep 60");
    assert(await running(hung.pid));
    await hung.writer.close();
    await hung.output;
    assertEquals((await hung.child.status).success, false);
    assertEquals(await running(hung.pid), false);
  });

  Deno.test(`wrapper (${shell}): mode d gives exactly the bytes after the pid`, async () => {
    for (const text of ["", "first\nsecond", "trailing\n\n", "ünï cødé ✓\t'\"$x\\"]) {
      const bytes = encoder.encode(text);
      const run = await start(shell, `d${bytes.length}`, "cat; exit 4");
      // Our stdin stays open: tmux sees the end of its input after the bytes all the same.
      await run.writer.write(encoder.encode(`${run.pid}\n`));
      await run.writer.write(bytes);
      assertEquals(await run.output, text);
      assertEquals((await run.child.status).code, 4);
      await run.writer.close().catch(() => {});
    }
    const hung = await start(shell, "d3", "cat >/dev/null; exec sleep 60");
    await hung.writer.write(encoder.encode(`${hung.pid}\nabc`));
    assert(await eventually(() => running(hung.pid)));
    await hung.writer.close();
    await hung.output;
    assertEquals((await hung.child.status).code, 137);
    assertEquals(await running(hung.pid), false);
  });

  Deno.test(`wrapper (${shell}): mode s streams and ends with our input`, async () => {
    const run = await start(shell, "s", "exec cat");
    await run.writer.write(encoder.encode(`${run.pid}\none\ntwo\n`));
    await run.writer.close();
    // The stand-in may have echoed some of it before it was killed; it never outlives our input.
    assert("one\ntwo\n".startsWith(await run.output));
    assertEquals((await run.child.status).success, false);
    assertEquals(await running(run.pid), false);

    // Ended on its own (the server ended the client): the wrapper exits with it, input still open.
    const ended = await start(shell, "s", "read -r line; echo got $line");
    await ended.writer.write(encoder.encode(`${ended.pid}\nhello\n`));
    assertEquals(await ended.output, "got hello\n");
    assertEquals((await ended.child.status).code, 0);
    await ended.writer.close().catch(() => {});
  });

  Deno.test(`wrapper (${shell}): given up before the pid was answered, tmux never starts`, async () => {
    const flag = await Deno.makeTempFile();
    await Deno.remove(flag);
    for (const mode of ["s", "d3"] as const) {
      const run = await start(shell, mode, `touch ${flag}`);
      await run.writer.close();
      await run.output;
      assertEquals((await run.child.status).success, false);
      assertEquals(await Deno.stat(flag).then(() => true, () => false), false, mode);
    }
  });
}

Deno.test("wrapper: its scripts cross ssh literally (no decoding)", () => {
  for (const script of [wrapperScript(MARK), innerScript(MARK), CONFIRM_SCRIPT]) {
    assert(remoteWord(script).startsWith("'l"), script);
  }
});

Deno.test("mark line: anywhere on a line, with digits and a newline, across chunks", () => {
  const mark = encoder.encode(MARK);
  const cases: Array<[string, number | undefined, string]> = [
    [`${MARK}42\nrest`, 42, "rest"],
    [`noise\n${MARK}7\n`, 7, ""],
    // A title escape printed without a newline by a start-up file.
    [`\x1b]0;box\x07${MARK}123\nout\n`, 123, "out\n"],
    [`${MARK}\n`, undefined, ""],
    [`${MARK}12`, undefined, ""],
    [`${MARK}12x\n`, undefined, ""],
    [`tmux-mcp-other 5\n${MARK}9\n`, 9, ""],
  ];
  for (const [text, pid, rest] of cases) {
    const bytes = encoder.encode(text);
    const found = findMarkLine(bytes, mark);
    assertEquals(found?.pid, pid, JSON.stringify(text));
    if (found) assertEquals(decoder.decode(bytes.subarray(found.rest)), rest);
  }
  const scanner = new MarkScanner(MARK);
  const whole = encoder.encode(`login noise${MARK}31\ntmux`);
  let seen;
  for (let at = 0; at < whole.length; at += 5) seen ??= scanner.push(whole.subarray(at, at + 5));
  assert(seen && seen !== "noise");
  assertEquals(seen.pid, 31);
  assertEquals(new MarkScanner(MARK).push(new Uint8Array(70_000)), "noise");
});
