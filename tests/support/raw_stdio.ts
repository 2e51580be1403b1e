/**
 * main.ts as a raw process: write JSON-RPC lines (or any bytes) to its stdin, read its stdout line
 * by line, and watch it exit. For what an SDK client cannot show: malformed input, oversize lines,
 * and how long the process takes to end.
 */
import { MAIN, startPermissions } from "./client.ts";
import { cleanEnv, LIVENESS_MS } from "./fixture.ts";

const encoder = new TextEncoder();

/** A spawned main.ts with its pipes. */
export class RawMain {
  readonly #child: Deno.ChildProcess;
  readonly #writer: WritableStreamDefaultWriter<Uint8Array>;
  readonly #lines: string[] = [];
  #wake: (() => void) | undefined;
  #stderr = "";
  #stdoutDone = false;
  readonly #stdout: ReadableStreamDefaultReader<Uint8Array>;
  readonly #readers: Promise<void>;
  #nextId = 1;

  private constructor(child: Deno.ChildProcess) {
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    this.#stdout = child.stdout.getReader();
    this.#readers = Promise.all([this.#readStdout(), this.#readStderr()]).then(() => {});
  }

  /** Spawn main.ts with the start permissions and a clean environment. */
  static async spawn(args: string[], env: Record<string, string> = {}): Promise<RawMain> {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", ...await startPermissions(), MAIN, ...args],
      clearEnv: true,
      env: cleanEnv({ NO_COLOR: "1", ...env }),
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    return new RawMain(child);
  }

  /** Everything the process printed on stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /** Write bytes or text to stdin as they are (no newline added). */
  async write(data: string | Uint8Array): Promise<void> {
    await this.#writer.write(typeof data === "string" ? encoder.encode(data) : data);
  }

  /** Write one message (an object is serialized) followed by a newline. */
  async line(message: string | Record<string, unknown>): Promise<void> {
    await this.write(`${typeof message === "string" ? message : JSON.stringify(message)}\n`);
  }

  /** Send a request with a fresh id and wait for the reply carrying that id. */
  async request(
    method: string,
    params?: unknown,
    timeoutMs = LIVENESS_MS,
  ): Promise<Record<string, unknown>> {
    const id = this.#nextId++;
    await this.line({ jsonrpc: "2.0", id, method, ...(params === undefined ? {} : { params }) });
    return await this.reply((m) => m.id === id, timeoutMs);
  }

  /** initialize + notifications/initialized. */
  async handshake(): Promise<void> {
    await this.request("initialize", {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw", version: "1" },
    });
    await this.line({ jsonrpc: "2.0", method: "notifications/initialized" });
  }

  /** The next stdout message matching `match` (earlier non-matching ones are dropped). */
  async reply(
    match: (message: Record<string, unknown>) => boolean,
    timeoutMs = LIVENESS_MS,
  ): Promise<Record<string, unknown>> {
    const end = Date.now() + timeoutMs;
    while (true) {
      while (this.#lines.length > 0) {
        const message = JSON.parse(this.#lines.shift()!);
        if (match(message)) return message;
      }
      if (this.#stdoutDone) throw new Error(`stdout ended; stderr: ${this.#stderr}`);
      const left = end - Date.now();
      if (left <= 0) throw new Error(`no matching reply within ${timeoutMs} ms`);
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        timer = setTimeout(resolve, left);
      });
      clearTimeout(timer);
    }
  }

  /** Close stdin (the client hangs up). */
  async closeStdin(): Promise<void> {
    await this.#writer.close().catch(() => {});
  }

  /** Stop reading stdout and close our end of it (the client went away without hanging up). */
  async closeStdout(): Promise<void> {
    await this.#stdout.cancel();
  }

  /** Send a signal to the process. */
  kill(signal: Deno.Signal): void {
    this.#child.kill(signal);
  }

  /** The exit status once the process ended, or undefined if it is still running after `ms`. */
  async exited(ms: number): Promise<Deno.CommandStatus | undefined> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const status = await Promise.race([
      this.#child.status,
      new Promise<undefined>((r) => timer = setTimeout(() => r(undefined), ms)),
    ]);
    clearTimeout(timer);
    return status;
  }

  /** Make sure the process is gone and its pipes are drained (test teardown). */
  async dispose(): Promise<void> {
    await this.#writer.close().catch(() => {});
    if (await this.exited(0) === undefined) {
      try {
        this.#child.kill("SIGKILL");
      } catch {
        // already gone
      }
    }
    await this.#child.status;
    await this.#readers;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.dispose();
  }

  async #readStdout(): Promise<void> {
    const decoder = new TextDecoder();
    let partial = "";
    while (true) {
      const { done, value: chunk } = await this.#stdout.read();
      if (done) break;
      const parts = (partial + decoder.decode(chunk, { stream: true })).split("\n");
      partial = parts.pop()!;
      this.#lines.push(...parts.filter((l) => l.trim() !== ""));
      this.#wake?.();
    }
    this.#stdoutDone = true;
    this.#wake?.();
  }

  async #readStderr(): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stderr) {
      this.#stderr += decoder.decode(chunk, { stream: true });
    }
  }
}
