/**
 * What run_shell_command has a pane's shell read (src/tmux/execute/run_script.ts), run by the real
 * shells (not interactive, `-c`): each shell prints the start frame, exactly the hostile command's
 * output, and the end frame with its status; a word quoted for a shell reads back unchanged. sh and
 * bash are everywhere the suite runs; dash, zsh and fish are skipped with a message when missing.
 */
import { assert, assertEquals } from "../../../tests/support/assert.ts";
import { fishWord, runScript, shellWord, typedLine } from "./run_script.ts";
import { frameFormats, frameNonce } from "../../live/run_frame.ts";

const SHELLS = ["sh", "bash", "dash", "zsh", "fish"] as const;

async function installed(shell: string): Promise<boolean> {
  try {
    const out = await new Deno.Command(shell, { args: ["-c", "exit 0"], stdin: "null" }).output();
    return out.success;
  } catch {
    return false;
  }
}

const available: string[] = [];
for (const shell of SHELLS) {
  if (await installed(shell)) available.push(shell);
  else console.log(`${shell} is not installed: its runs are skipped`);
}

/** Run `text` as `shell -c` in a plain environment; its stdout. */
async function run(shell: string, text: string): Promise<string> {
  const args = shell === "fish" ? ["--no-config", "-c", text] : ["-c", text];
  const out = await new Deno.Command(shell, {
    args,
    stdin: "null",
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin", HOME: "/nonexistent", LC_ALL: "C.UTF-8" },
  }).output();
  return new TextDecoder().decode(out.stdout);
}

/** Strings that break naive quoting in one shell or another. */
const HOSTILE = [
  "it's 'quoted'",
  "'\\''",
  "\\ \\\\ \\' \\n \\0 end\\",
  '"$HOME" $(echo no) `echo no` (echo no) {a,b} * ~',
  "a;b && c || d | e & f # not a comment",
  "line1\nline2\n\n",
  "日本語 é 🙂",
];

Deno.test("shellWord and fishWord: each shell reads the word back unchanged", async () => {
  for (const shell of available) {
    const quote = shell === "fish" ? fishWord : shellWord;
    for (const value of HOSTILE) {
      assertEquals(await run(shell, `printf %s ${quote(value)}`), value, `${shell}: ${value}`);
    }
  }
});

Deno.test("typedLine: one line, led by a space; fish's reads the script whole and quotes its words", () => {
  const posix = typedLine("bash", "/tmp/a'b/sock", "tmux-mcp-0123");
  assertEquals(posix, ` eval "$(tmux -S '/tmp/a'\\''b/sock' save-buffer -b tmux-mcp-0123 -)"`);
  const fish = typedLine("fish", "/tmp/a'b\\c/sock", "tmux-mcp-0123");
  assertEquals(
    fish,
    ` 'eval' ('tmux' -S '/tmp/a\\'b\\\\c/sock' save-buffer -b tmux-mcp-0123 - | 'string' collect)`,
  );
  for (const line of [posix, fish]) assert(!line.includes("\n"), line);
});

Deno.test("runScript: the start frame, exactly the command's output, the end frame with its status", async () => {
  const nonce = frameNonce();
  const frame = (format: string, status?: number) =>
    format.replace("%d", String(status)).replaceAll("\\033", "\x1b").replaceAll("\\007", "\x07")
      .replaceAll("\\r", "\r");
  const { start, exit } = frameFormats(nonce);
  // [command, its output, its status], per shell family: the command is the shell's own syntax.
  const cases: Record<"posix" | "fish", Array<[string, string, number]>> = {
    posix: [
      ["echo hi; false", "hi\n", 1],
      ["printf '%s' \"it's\" '\\'; (exit 7)", "it's\\", 7],
      ["x=1\nif [ $x = 1 ]; then echo one\nfi", "one\n", 0],
      ["cat <<'EOF'\n$HOME `x`\nEOF", "$HOME `x`\n", 0],
      ["cat; echo cat:$?", "cat:0\n", 0],
    ],
    fish: [
      ["echo hi; false", "hi\n", 1],
      ["printf '%s' \"it's\" '\\\\' '\\''; sh -c 'exit 7'", "it's\\'", 7],
      ["set x 1\nif test $x = 1\n  echo one\nend", "one\n", 0],
      ['echo (echo nested) "$HOME"', "nested /nonexistent\n", 0],
      // A syntax error is the command's (status 123); the end frame still follows.
      ["echo 'unclosed", "", 123],
      ["begin\necho never", "", 123],
      ["cat; echo cat:$status", "cat:0\n", 0],
    ],
  };
  for (const shell of available) {
    for (const [command, output, status] of cases[shell === "fish" ? "fish" : "posix"]) {
      const script = runScript(shell, "/nonexistent/socket", "tmux-mcp-0", nonce, command);
      const want = frame(start) + output + frame(exit, status);
      assertEquals(await run(shell, script), want, `${shell}: ${command}`);
    }
  }
});
