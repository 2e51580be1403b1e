/**
 * run_shell_command's frames (docs/design.md §7.9) found in output bytes, on their own, and a
 * line editor seen reading before the start frame.
 */
import { assert, assertEquals } from "../../tests/support/assert.ts";
import { FramedRun, frameNonce, FrameScanner } from "./run_frame.ts";

Deno.test("FrameScanner: frames split at any byte are found once; other nonces and malformed ones are not frames", () => {
  const nonce = frameNonce();
  const other = frameNonce();
  const stream = `out\x1b]7735;tmux-mcp;${other};exit;0\x07` +
    `\x1b]7735;tmux-mcp;${nonce};start\x07hello\r\n\x1b]7735;tmux-mcp;${nonce};exit;12345\x07` +
    `\x1b]7735;tmux-mcp;${nonce};exit;42\x07$ `;
  const bytes = new TextEncoder().encode(stream);
  const startEnd = stream.indexOf("start\x07") + 6;
  const exitEnd = stream.lastIndexOf(";42\x07") + 4;
  for (let cut = 0; cut <= bytes.length; cut++) {
    for (const size of [1, 3, bytes.length]) {
      const scanner = new FrameScanner(nonce);
      const found: Array<[number, unknown]> = [];
      const chunks = [bytes.subarray(0, cut), ...split(bytes.subarray(cut), size)];
      let base = 0;
      for (const chunk of chunks) {
        for (const event of scanner.scan(chunk)) found.push([base + event.offset, event.frame]);
        base += chunk.length;
      }
      assertEquals(found, [[startEnd, "start"], [exitEnd, { status: 42 }]], `cut ${cut}/${size}`);
    }
  }
});

function split(bytes: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length; i += size) out.push(bytes.subarray(i, i + size));
  return out;
}

Deno.test("FramedRun: a line editor seen reading before the start frame is noted, split across chunks too; after it, not", () => {
  const make = () =>
    new FramedRun({
      paneId: "%1",
      generation: "g1",
      shell: "bash",
      buffer: "tmux-mcp-0",
      execs: new Set(),
    });
  const bytes = (text: string) => new TextEncoder().encode(text);
  for (const cut of [1, 4, 7]) {
    const run = make();
    const prompt = "bash: tmux: command not found\r\n\x1b[?2004h$ ";
    const at = prompt.indexOf("\x1b") + cut;
    run.scan(bytes(prompt.slice(0, at)));
    assertEquals(run.editorAt, undefined, `cut ${cut}: not yet`);
    run.scan(bytes(prompt.slice(at)));
    assert(run.editorAt !== undefined, `cut ${cut}: seen`);
  }
  // Leaving bracketed paste (the editor accepted our line) is no prompt.
  const accepted = make();
  accepted.scan(bytes(" eval line\r\n\x1b[?2004l\r"));
  assertEquals(accepted.editorAt, undefined);
});
