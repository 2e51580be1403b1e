// Generated from deno.json's version by `deno task version` (scripts/release.ts): edit
// deno.json, not this file. A test checks that the two agree.

/** This build's version, e.g. "0.1.0". */
export const VERSION: string = "0.1.0";
