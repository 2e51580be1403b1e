/**
 * The npm package (docs/design.md §8.7): `npx -y @tmux-mcp/tmux-mcp` runs the bundled server under
 * the Deno binary of the `deno` npm package, with exactly the start task's permissions.
 *
 *   deno task npm            # dist/npm/ (the package) and dist/<name>-<version>.tgz (npm pack)
 *   deno task npm --no-pack  # dist/npm/ only
 *
 * dist/npm/ holds npm/'s package.json (its version must be deno.json's; `repository.url` becomes
 * this GitHub repository's when GITHUB_REPOSITORY is set, as npm provenance requires), the launcher
 * (npm/bin/tmux-mcp.cjs), npm/README.md, LICENSE, the bundle of main.ts (`deno bundle`), and
 * launch.json: the permissions of src/config/permissions.ts and the server's option table, which
 * the launcher reads to widen the permissions for --ssh, --http and --record only.
 */
import { OPTIONS } from "../src/config/options.ts";
import { ENV_VARIABLES, RUN_PROGRAMS, SSH_WIDENING } from "../src/config/permissions.ts";

const ROOT = new URL("..", import.meta.url).pathname.replace(/\/$/, "");

/** What the launcher reads: the permissions, what --ssh adds, and how each option parses. */
export interface LaunchSpec {
  run: readonly string[];
  env: readonly string[];
  ssh: { run: readonly string[]; env: readonly string[] };
  options: Record<
    string,
    { type: "string" | "boolean"; short?: string; multiple?: boolean }
  >;
}

/** The launch spec of this build (node:util's parseArgs options, from the option table). */
export function launchSpec(): LaunchSpec {
  return {
    run: RUN_PROGRAMS,
    env: ENV_VARIABLES,
    ssh: SSH_WIDENING,
    options: Object.fromEntries(OPTIONS.map((o) => [o.name, {
      type: o.type,
      ...(o.short ? { short: o.short } : {}),
      ...(o.multiple ? { multiple: true } : {}),
    }])),
  };
}

/** npm/package.json as published: deno.json's version checked, the repository filled in. */
export function packageJson(
  source: Record<string, unknown>,
  version: string,
  repository: string | undefined,
): Record<string, unknown> {
  if (source.version !== version) {
    throw new Error(
      `npm/package.json says version ${source.version}, deno.json ${version}: make them agree`,
    );
  }
  if (repository === undefined) return source;
  const url = `git+https://github.com/${repository}.git`;
  return { ...source, repository: { ...source.repository as object, url } };
}

async function run(
  program: string,
  args: string[],
  cwd = ROOT,
): Promise<string> {
  const out = await new Deno.Command(program, { args, cwd, stdin: "null" })
    .output();
  const decoder = new TextDecoder();
  if (!out.success) {
    throw new Error(
      `${program} ${args.join(" ")} failed: ${decoder.decode(out.stderr).trim()}`,
    );
  }
  return decoder.decode(out.stdout);
}

/**
 * Assemble `<dir>/npm/` (dir: dist/ by default) and, unless asked not to, pack it into `dir`; the
 * tarball's path (or the folder's).
 */
export async function build(options: { pack?: boolean; dir?: string } = {}): Promise<string> {
  const dir = options.dir ?? `${ROOT}/dist`;
  const out = `${dir}/npm`;
  await Deno.remove(out, { recursive: true }).catch(() => {});
  await Deno.mkdir(`${out}/bin`, { recursive: true });
  const { version } = JSON.parse(await Deno.readTextFile(`${ROOT}/deno.json`));
  const source = JSON.parse(
    await Deno.readTextFile(`${ROOT}/npm/package.json`),
  );
  const manifest = packageJson(
    source,
    version,
    Deno.env.get("GITHUB_REPOSITORY"),
  );
  await Deno.writeTextFile(
    `${out}/package.json`,
    JSON.stringify(manifest, null, 2) + "\n",
  );
  await Deno.writeTextFile(
    `${out}/launch.json`,
    JSON.stringify(launchSpec(), null, 2) + "\n",
  );
  await Deno.copyFile(
    `${ROOT}/npm/bin/tmux-mcp.cjs`,
    `${out}/bin/tmux-mcp.cjs`,
  );
  await Deno.chmod(`${out}/bin/tmux-mcp.cjs`, 0o755);
  await Deno.copyFile(`${ROOT}/npm/README.md`, `${out}/README.md`);
  await Deno.copyFile(`${ROOT}/LICENSE`, `${out}/LICENSE`);
  await run(Deno.execPath(), [
    "bundle",
    "--quiet",
    "--output",
    `${out}/tmux-mcp.js`,
    "main.ts",
  ]);
  if (options.pack === false) return out;
  const packed = await run("npm", ["pack", "--silent", "--pack-destination", dir], out);
  return `${dir}/${packed.trim().split("\n").at(-1)}`;
}

if (import.meta.main) console.log(await build({ pack: !Deno.args.includes("--no-pack") }));
