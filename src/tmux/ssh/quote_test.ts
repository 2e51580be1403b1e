/**
 * The remote command line (src/tmux/ssh/quote.ts): hostile arguments survive the remote login
 * shell's parsing unchanged. Each shell that ssh may hand the string to runs it locally, exactly as
 * sshd does (`SHELL -c STRING`), and the argv it finally executes is printed NUL-separated.
 */
import { assert, assertEquals, assertThrows } from "../../../tests/support/assert.ts";
import { ToolError } from "../../errors.ts";
import { DECODER, MAX_REMOTE_COMMAND_BYTES, remoteCommand, remoteWord } from "./quote.ts";

/** Shells a remote user may have; sh and bash are everywhere the suite runs, the rest optional. */
const SHELLS = ["sh", "bash", "dash", "zsh", "fish", "tcsh"] as const;
const REQUIRED = new Set(["sh", "bash"]);

async function installed(shell: string): Promise<boolean> {
  try {
    const out = await new Deno.Command(shell, { args: ["-c", "exit 0"], stdin: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

const available = new Map<string, boolean>();
for (const shell of SHELLS) available.set(shell, await installed(shell));

/** Run `argv` through `shell -c remoteCommand(...)` and return the argv that was executed. */
async function roundTrip(shell: string, args: readonly string[]): Promise<string[]> {
  const command = remoteCommand(["printf", "%s\\0", ...args]);
  // A plain environment: no start-up files of ours, a C locale (the harshest for non-ASCII).
  const out = await new Deno.Command(shell, {
    args: ["-c", command],
    stdin: "null",
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin", LC_ALL: "C", HOME: "/nonexistent" },
  }).output();
  assertEquals(out.success, true, `${shell}: ${new TextDecoder().decode(out.stderr)}`);
  const fields = new TextDecoder().decode(out.stdout).split("\0");
  assertEquals(fields.pop(), "", `${shell}: output ends with NUL`);
  return fields;
}

const HOSTILE: Array<[string, string]> = [
  ["format", "#{pane_id} #{session_name}"],
  ["comment", "a # b"],
  ["single quotes", "it's 'quoted'"],
  ["quote escape", "'\\''"],
  ["double quotes", '"$HOME"'],
  ["command substitution", "$(touch /tmp/pwned) ${x:-y}"],
  ["backticks", "`id`"],
  ["separators", "a;b && c || d | e & f"],
  ["history", "!! !-1 !$ a!b"],
  ["backslashes", "\\ \\\\ \\' \\n \\0 \\c end\\"],
  ["spaces and tabs", "  two  spaces\tand\ttabs  "],
  ["globs", "* ? [a-z] {a,b} **"],
  ["tilde", "~ ~root ~/x a=~"],
  ["percent", "%0 %% %self %1"],
  ["newlines", "line1\nline2\n\n"],
  ["carriage return and escape", "a\r\x1b[31mred\x07"],
  ["unicode", "日本語 é 🙂 \u200b \u00a0 \u2028"],
  ["leading dash", "-F"],
  ["equals", "=ls"],
  ["empty", ""],
  ["trailing semicolon", "x;"],
  ["hostile session name", "a#b 'c' $(x);y"],
];

for (const shell of SHELLS) {
  const ok = available.get(shell) ?? false;
  Deno.test({
    name: `hostile arguments survive ${shell} -c` +
      (ok ? "" : ` (skipped: ${shell} is not installed)`),
    ignore: !ok && !REQUIRED.has(shell),
    fn: async () => {
      for (const [what, value] of HOSTILE) {
        assertEquals(await roundTrip(shell, [value]), [value], `${shell}: ${what}`);
      }
      const all = HOSTILE.map(([, value]) => value);
      assertEquals(await roundTrip(shell, all), all, `${shell}: all at once`);
      assertEquals(await roundTrip(shell, randomStrings(150, 7)), randomStrings(150, 7));
    },
  });
}

/** Deterministic random strings over an alphabet of everything shells treat specially. */
function randomStrings(count: number, seed: number): string[] {
  const alphabet = [..."#'\"\\$`;&|<>(){}[]*?~!%^=,. \t\n\r-aZ0日é🙂\x01\x7f"];
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2 ** 31);
  return Array.from({ length: count }, () => {
    const length = next() % 12;
    return Array.from({ length }, () => alphabet[next() % alphabet.length]).join("");
  });
}

Deno.test("the remote command is single-quoted words of a set every shell reads literally", () => {
  for (const bad of ["'", "!", "\n", "\\\\", "\\'"]) {
    assert(!DECODER.includes(bad), `the decoder holds ${JSON.stringify(bad)}`);
  }
  const command = remoteCommand(["tmux", ...HOSTILE.map(([, value]) => value)]);
  const rest = command.slice(`exec sh -c '${DECODER}' sh `.length);
  const words = rest.match(/'[^']*'/g) ?? [];
  assertEquals(words.join(" "), rest, "words are separated by single spaces only");
  assertEquals(words.length, HOSTILE.length + 1);
  for (const word of words) {
    // Quotes only around the word; a backslash only as our `\0ooo` escape; printable ASCII.
    assert(/^'[lo][\x20-\x26\x28-\x7e]*'$/.test(word), word);
    assert(!word.includes("!"), word);
    assert(!/\\(?!0[0-7]{3})/.test(word), word);
  }
  assertEquals(remoteWord("-F"), "'l-F'");
  assertEquals(remoteWord("#{pane_id}"), "'l#{pane_id}'");
  assertEquals(remoteWord("it's"), "'oit\\0047s'");
  assertEquals(remoteWord("é"), "'o\\0303\\0251'");
});

Deno.test("NUL and over-long commands are refused with a typed error", () => {
  assertThrows(() => remoteCommand(["tmux", "a\0b"]), ToolError, "NUL");
  const long = "!".repeat(MAX_REMOTE_COMMAND_BYTES / 5);
  const error = assertThrows(() => remoteCommand(["tmux", long]), ToolError, "too long");
  assertEquals(error.code, "invalid_arguments");
  assert(remoteCommand(["tmux", "x".repeat(MAX_REMOTE_COMMAND_BYTES - 200)]).length > 0);
});
