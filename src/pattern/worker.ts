/**
 * The pattern worker's program (docs/design.md §7.7 rule 10): it matches one long line at a time
 * for the main thread, so an RE2 scan that takes seconds never holds the event loop. It is bundled
 * with re2js into src/generated/pattern_worker_js.ts (scripts/pattern_worker.ts) and started from a
 * blob URL: a worker file would need read permission, which the server is not granted, and
 * neither `deno bundle` nor `deno compile` would carry it.
 */
import { RE2JS } from "re2js";
import { firstMatch } from "./find.ts";

/** One line to match: `source` is already checked RE2 (quoted when literal), `flags` RE2JS's. */
export interface PatternJob {
  id: number;
  source: string;
  flags: number;
  line: string;
}

/** Where the job's line matches (`at`, -1 for nowhere), or why it could not be matched. */
export type PatternAnswer = { id: number; at: number } | { id: number; error: string };

/** Compiled programs kept (a wait sends the same few patterns line after line). */
const KEPT = 32;

const programs = new Map<string, RE2JS>();

function program(source: string, flags: number): RE2JS {
  const key = `${flags}:${source}`;
  let re = programs.get(key);
  if (re) {
    programs.delete(key);
  } else {
    re = RE2JS.compile(source, flags);
    if (programs.size >= KEPT) programs.delete(programs.keys().next().value!);
  }
  programs.set(key, re);
  return re;
}

const scope = globalThis as unknown as {
  onmessage: (event: MessageEvent<PatternJob>) => void;
  postMessage: (answer: PatternAnswer) => void;
};

scope.onmessage = ({ data: job }) => {
  try {
    scope.postMessage({
      id: job.id,
      at: firstMatch(program(job.source, job.flags), job.line, true),
    });
  } catch (error) {
    scope.postMessage({ id: job.id, error: String(error).slice(0, 200) });
  }
};
