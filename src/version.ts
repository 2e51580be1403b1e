/** The product version, read from deno.json so there is one source of truth. */
import manifest from "../deno.json" with { type: "json" };

/** This build's version, e.g. "0.1.0". */
export const VERSION: string = manifest.version;
