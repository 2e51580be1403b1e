#!/usr/bin/env node
// tmux-mcp's npm launcher (README "Install", docs/design.md §8.7). It runs the bundled server
// (../tmux-mcp.js) under the Deno binary that the `deno` npm package brings (its optional
// dependency @deno/<platform>), with exactly the server's documented permissions: run tmux, read
// the variables of launch.json. Only the options that need more widen them, each by what it needs:
// --ssh (or TMUX_MCP_SSH) runs ssh and reads SSH_AUTH_SOCK, --http ADDR listens on ADDR,
// --record DIR (or TMUX_MCP_RECORD) reads and writes DIR. Every argument goes on to the server
// unchanged; stdin and stdout are the server's own (the MCP stream never passes through Node).
// SIGTERM, SIGINT and SIGHUP are passed on, and the server's exit status (or signal) is ours.
"use strict";

const { spawn } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { parseArgs } = require("node:util");

const PACKAGE = path.join(__dirname, "..");
/** Written by scripts/npm_package.ts: the permissions and the server's option table. */
const LAUNCH = require("../launch.json");

function fail(message) {
  process.stderr.write(`tmux-mcp: ${message}\n`);
  process.exit(1);
}

/** Whether this Linux runs on musl (Alpine): Node's report names the glibc it runs on, if any. */
function isMusl() {
  try {
    return !process.report.getReport().header.glibcVersionRuntime;
  } catch {
    return false;
  }
}

/** The Deno binary of @deno/<platform>, found from the `deno` package this one depends on. */
function denoBinary() {
  const platform = os.platform();
  const arch = os.arch();
  if (platform !== "linux" && platform !== "darwin") {
    fail(
      `tmux does not run on ${platform}; run tmux-mcp on Linux or macOS (or inside WSL)`,
    );
  }
  if (arch !== "x64" && arch !== "arm64") {
    fail(`Deno has no build for ${arch} (x64 and arm64 only)`);
  }
  if (platform === "linux" && isMusl()) {
    fail(
      "Alpine and other musl systems are not supported: Deno's npm package ships glibc builds only",
    );
  }
  const target = platform === "linux" ? `linux-${arch}-glibc` : `${platform}-${arch}`;
  let dir;
  try {
    const deno = path.dirname(require.resolve("deno/package.json"));
    dir = path.dirname(
      require.resolve(`@deno/${target}/package.json`, { paths: [deno] }),
    );
  } catch {
    fail(
      `Deno for ${target} is not installed (npm package @deno/${target}, an optional dependency ` +
        "of deno): install again without --omit=optional or --no-optional",
    );
  }
  const binary = path.join(dir, "deno");
  if (!fs.existsSync(binary)) {
    fail(`${binary} is missing: install @tmux-mcp/tmux-mcp again`);
  }
  return binary;
}

/** `--http HOST:PORT` or `--http PORT` as the server reads it; undefined when it is not one. */
function netAddress(value) {
  const match = /^(?:(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):)?(\d{1,5})$/.exec(
    value,
  );
  const port = match ? Number(match[2]) : NaN;
  if (!match || !(port >= 1 && port <= 65535)) return undefined;
  return `${(match[1] || "127.0.0.1").toLowerCase()}:${port}`;
}

/** The permission flags for these arguments and environment; throws for a DIR it cannot grant. */
function permissions(args, env) {
  // The server's own option table, so that a value is never taken for an option; --record is
  // declared here as well, in case this build's table lacks it.
  const options = { record: { type: "string" }, ...LAUNCH.options };
  let values = {};
  try {
    values = parseArgs({ args, options, strict: false, allowPositionals: true })
      .values;
  } catch {
    // The server refuses the arguments with its own message; nothing is widened meanwhile.
  }
  const text = (
    v,
  ) => (typeof v === "string" && v.trim() !== "" ? v : undefined);
  const hosts = [].concat(values.ssh ?? []).filter((v) => text(v));
  const ssh = hosts.length > 0 || text(env.TMUX_MCP_SSH) !== undefined;
  const http = text(values.http) && netAddress(values.http);
  const record = text(values.record) ?? text(env.TMUX_MCP_RECORD);
  if (record !== undefined && record.includes(",")) {
    throw new Error(
      "--record DIR must not hold a comma (Deno's permission lists use commas)",
    );
  }
  return [
    `--allow-run=${[...LAUNCH.run, ...(ssh ? LAUNCH.ssh.run : [])].join(",")}`,
    `--allow-env=${[...LAUNCH.env, ...(ssh ? LAUNCH.ssh.env : [])].join(",")}`,
    ...(http ? [`--allow-net=${http}`] : []),
    ...(record !== undefined ? [`--allow-read=${record}`, `--allow-write=${record}`] : []),
  ];
}

function main() {
  const args = process.argv.slice(2);
  let granted;
  try {
    granted = permissions(args, process.env);
  } catch (error) {
    fail(error.message);
  }
  const deno = denoBinary();
  const child = spawn(
    deno,
    [
      "run",
      "--no-config",
      "--no-lock",
      "--quiet",
      "--no-prompt",
      ...granted,
      path.join(PACKAGE, "tmux-mcp.js"),
      ...args,
    ],
    { stdio: "inherit" },
  );
  const forward = (signal) => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill(signal);
    }
  };
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) {
    process.on(signal, forward);
  }
  child.on(
    "error",
    (error) => fail(`could not start ${deno}: ${error.message}`),
  );
  child.on("exit", (code, signal) => {
    if (signal) {
      // End the way the server ended: the same signal, with our handler out of the way.
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

if (require.main === module) main();
else module.exports = { netAddress, permissions };
