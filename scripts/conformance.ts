/**
 * The official MCP conformance suite against tmux-mcp's Streamable HTTP server
 * (`deno task conformance`; docs/design.md §2.4).
 *
 * The server is the production handler (src/http/server.ts) on a loopback port, with its Host and
 * Origin guard, limits and sessions as configured by default, on a tmux socket where no server
 * runs (no scenario calls a tmux tool of ours). One thing is test-only: the suite's client cannot
 * send an Authorization header, so this script stands in for a client that knows the token and
 * adds `Authorization: Bearer <token>` to every request before the handler sees it. Production
 * code has no switch that turns authentication off.
 *
 * Each scenario's result is compared with tests/fixtures/conformance_baseline.json: a scenario
 * that applies to a tools-only server and passed there must pass now, else the script exits 1.
 * `--update` rewrites the results of the baseline (keeping which scenarios apply and why).
 *
 * Usage: deno task conformance [--update] [--keep]   (--keep leaves the suite's output directory)
 */
import { SURFACE } from "../src/catalog.ts";
import { parseConfig } from "../src/config.ts";
import { TmuxHost } from "../src/host.ts";
import { generateToken } from "../src/http/access.ts";
import { createHttpHandler, type HttpHandler } from "../src/http/server.ts";
import { VERSION } from "../src/base/version.ts";

/** The suite, pinned: a new version may add or change scenarios, so it is a deliberate update. */
export const SUITE = "@modelcontextprotocol/conformance@0.1.16";

/** Where the baseline lives. */
const BASELINE = new URL("../tests/fixtures/conformance_baseline.json", import.meta.url);

/** The recorded outcome of one scenario. */
export interface ScenarioEntry {
  /** Whether it tests something a tools-only server without test fixtures can have. */
  applies: boolean;
  /** Why it does not apply (the suite expects its own test tools, prompts or capabilities). */
  why?: string;
  /** Its result at the last `--update`. */
  result: "pass" | "fail";
  /** Checks by status at the last `--update`. */
  checks?: Record<string, number>;
}

/** The committed baseline. */
export interface Baseline {
  suite: string;
  scenarios: Record<string, ScenarioEntry>;
}

/** One scenario as this run saw it. */
export interface Outcome {
  result: "pass" | "fail";
  checks: Record<string, number>;
  failures: string[];
}

/** A scenario passes when no check failed or warned (the suite's own baseline rule). */
export function outcomeOf(checks: Array<{ status: string; name?: string; errorMessage?: string }>) {
  const counts: Record<string, number> = {};
  for (const check of checks) counts[check.status] = (counts[check.status] ?? 0) + 1;
  const bad = checks.filter((c) => c.status === "FAILURE" || c.status === "WARNING");
  return {
    result: bad.length === 0 ? "pass" : "fail",
    checks: counts,
    failures: bad.map((c) => `${c.status} ${c.name ?? ""}: ${c.errorMessage ?? ""}`.trim()),
  } satisfies Outcome;
}

/** Scenarios that passed in the baseline and apply, but did not pass now (or did not run). */
export function regressions(baseline: Baseline, now: Map<string, Outcome>): string[] {
  return Object.entries(baseline.scenarios)
    .filter(([, entry]) => entry.applies && entry.result === "pass")
    .filter(([name]) => now.get(name)?.result !== "pass")
    .map(([name]) => name);
}

/** Start the production handler on 127.0.0.1 with the token added to every request. */
function startServer(): { url: string; handler: HttpHandler; close(): Promise<void> } {
  // The suite's client closes without DELETE, so each scenario leaves a session until it
  // expires: the cap is raised above the suite's count (a setting, not a weakened check).
  const outcome = parseConfig(
    [
      "--http",
      "127.0.0.1:8765",
      "--http-max-sessions",
      "128",
      "-L",
      `tmux-mcp-conformance-${Deno.pid}`,
    ],
    () => undefined,
    SURFACE,
  );
  if (outcome.kind !== "run") throw new Error("expected a run configuration");
  const config = outcome.config;
  const host = new TmuxHost({ config, env: () => undefined });
  const token = generateToken();
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req, info) => {
    // Test-only: the suite's client has no way to send a token (see the header).
    const headers = new Headers(req.headers);
    headers.set("authorization", `Bearer ${token}`);
    const body = req.method === "GET" || req.method === "HEAD" ? null : req.body;
    return handler.handle(new Request(req.url, { method: req.method, headers, body }), info);
  });
  const port = server.addr.port;
  const handler = createHttpHandler({
    host,
    config,
    version: VERSION,
    token,
    bound: "127.0.0.1",
    port,
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    handler,
    async close() {
      const stopped = server.shutdown();
      await handler.close();
      await host.close();
      await stopped;
    },
  };
}

/** Run the whole suite against `url`; each scenario's checks, by scenario name. */
async function runSuite(url: string, outDir: string): Promise<Map<string, Outcome>> {
  // Outside this repository (no deno.json, no lock file): the suite's dependencies stay out of
  // the project's lock file and node_modules.
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--quiet",
      "--no-config",
      "--no-lock",
      `npm:${SUITE}`,
      "server",
      // Pending scenarios too: the baseline says of each whether it applies.
      "--suite",
      "all",
      "--url",
      url,
      "-o",
      outDir,
    ],
    cwd: outDir,
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  });
  const output = await child.output();
  const stdout = new TextDecoder().decode(output.stdout);
  await Deno.writeTextFile(`${outDir}/suite.log`, stdout + new TextDecoder().decode(output.stderr));
  // Every scenario run is in the summary (`✓ name: …` or `✗ name: …`), also those that threw
  // before writing their checks; checks.json adds the warnings, which count as failures too.
  const results = new Map<string, Outcome>();
  for (const [, mark, name] of stdout.matchAll(/^([✓✗]) (\S+): \d+ passed, \d+ failed$/gm)) {
    results.set(name, {
      result: mark === "✓" ? "pass" : "fail",
      checks: {},
      failures: mark === "✓" ? [] : ["see suite.log (run with --keep)"],
    });
  }
  for await (const entry of Deno.readDir(outDir)) {
    // The suite writes server-<scenario>-<ISO timestamp with - for : and .>/checks.json.
    const name = /^server-(.+)-\d{4}-\d\d-\d\dT[\d-]+Z$/.exec(entry.name)?.[1];
    if (!entry.isDirectory || !name) continue;
    const checks = JSON.parse(await Deno.readTextFile(`${outDir}/${entry.name}/checks.json`));
    const outcome = outcomeOf(checks);
    if (results.get(name)?.result === "fail") outcome.result = "fail";
    results.set(name, outcome);
  }
  if (results.size === 0) {
    throw new Error(`the suite produced no results (exit ${output.code}); see ${outDir}/suite.log`);
  }
  return results;
}

async function main(args: string[]): Promise<number> {
  const update = args.includes("--update");
  const keep = args.includes("--keep");
  const baseline: Baseline = JSON.parse(await Deno.readTextFile(BASELINE));
  if (baseline.suite !== SUITE) {
    console.error(
      `baseline is for ${baseline.suite}, this script runs ${SUITE}: run with --update`,
    );
    if (!update) return 1;
  }
  const outDir = await Deno.makeTempDir({ prefix: "tmux-mcp-conformance-" });
  const server = startServer();
  let now: Map<string, Outcome>;
  const started = performance.now();
  try {
    console.error(`${SUITE} against ${server.url} (token added by this script; see its header)`);
    now = await runSuite(server.url, outDir);
  } finally {
    await server.close();
    if (!keep) await Deno.remove(outDir, { recursive: true }).catch(() => {});
  }
  const seconds = ((performance.now() - started) / 1000).toFixed(1);

  const names = [...new Set([...Object.keys(baseline.scenarios), ...now.keys()])].sort();
  const lines: string[] = [];
  for (const name of names) {
    const entry = baseline.scenarios[name];
    const outcome = now.get(name);
    const applies = entry ? (entry.applies ? "applies" : "n/a") : "NEW (review: applies?)";
    const was = entry?.result ?? "-";
    lines.push(
      `${(outcome?.result ?? "not run").padEnd(8)} ${name.padEnd(32)} ${
        applies.padEnd(8)
      } was ${was}`,
    );
    if (outcome?.result === "fail" && entry?.applies) {
      for (const failure of outcome.failures.slice(0, 3)) {
        lines.push(`           ${failure.slice(0, 160)}`);
      }
    }
  }
  console.log(lines.join("\n"));
  const passed = names.filter((n) =>
    baseline.scenarios[n]?.applies && now.get(n)?.result === "pass"
  );
  const applicable = names.filter((n) => baseline.scenarios[n]?.applies);
  console.log(`\n${passed.length}/${applicable.length} applicable scenarios pass (${seconds} s)`);
  if (keep) console.log(`suite output kept in ${outDir}`);

  if (update) {
    const scenarios: Record<string, ScenarioEntry> = {};
    for (const name of names) {
      const outcome = now.get(name);
      if (!outcome) continue; // gone from the suite
      const entry = baseline.scenarios[name];
      scenarios[name] = {
        applies: entry?.applies ?? false,
        ...(entry?.why
          ? { why: entry.why }
          : entry
          ? {}
          : { why: "new in the suite: not reviewed yet" }),
        result: outcome.result,
        checks: outcome.checks,
      };
    }
    await Deno.writeTextFile(BASELINE, JSON.stringify({ suite: SUITE, scenarios }, null, 2) + "\n");
    console.log(`baseline updated: ${BASELINE.pathname}`);
    return 0;
  }
  const lost = regressions(baseline, now);
  if (lost.length > 0) {
    console.error(`newly failing (passed in the baseline): ${lost.join(", ")}`);
    return 1;
  }
  const gained = applicable.filter((n) =>
    baseline.scenarios[n].result === "fail" && now.get(n)?.result === "pass"
  );
  if (gained.length > 0) console.log(`now passing (run --update to record): ${gained.join(", ")}`);
  return 0;
}

if (import.meta.main) Deno.exit(await main(Deno.args));
