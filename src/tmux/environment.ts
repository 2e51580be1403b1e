/** Parsing `show-environment -s` output (shell syntax: its quoting keeps multi-line values whole). */

/** One environment variable; `value` is absent for variables marked removed. */
export interface EnvironmentEntry {
  name: string;
  value?: string;
  removed?: true;
}

/** Parse `show-environment -s`: `NAME="…"; export NAME;` or `unset NAME;` per variable. */
export function parseEnvironment(out: string): EnvironmentEntry[] {
  const entries: EnvironmentEntry[] = [];
  const pattern = /unset ([^\s;]+);\n|([^\s=;]+)="((?:[^"\\]|\\[\s\S])*)"; export \2;\n/g;
  for (const m of out.matchAll(pattern)) {
    if (m[1] !== undefined) entries.push({ name: m[1], removed: true });
    else entries.push({ name: m[2], value: m[3].replace(/\\([\s\S])/g, "$1") });
  }
  return entries;
}
