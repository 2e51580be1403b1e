/**
 * tmux format syntax: literalization of agent strings, and list formats whose rows and fields are
 * split on per-call random separators, so that nothing a pane, a path or a name contains can forge
 * a boundary (paths reach `-F` output raw, control characters included).
 */
import { randomHex } from "../../base/random.ts";

/**
 * Make an agent-supplied string inert in a format-expanded tmux argument (`-F`, `rename-window`,
 * `new-session -s`, `select-pane -T`, `display-message`…): `#(…)` would run a shell command and
 * `#{…}` would expand, so every `#` is doubled.
 */
export function literal(value: string): string {
  return value.replaceAll("#", "##");
}

/** A per-call random token that output cannot predict. */
export function nonce(): string {
  return randomHex(8);
}

/** Separators for one invocation; they embed the nonce and ASCII record/unit separators. */
export interface Separators {
  readonly row: string;
  readonly field: string;
}

/** Build the separators of one invocation. */
export function separators(token: string = nonce()): Separators {
  return { row: `\x1e${token}\x1e`, field: `\x1f${token}\x1f` };
}

/**
 * A `-F` template printing one tagged row: the row separator, the tag, then each variable.
 * `variables` are constant tmux variable names of ours, never agent input.
 */
export function rowTemplate(sep: Separators, tag: string, variables: readonly string[]): string {
  return sep.row + [tag, ...variables.map((v) => `#{${v}}`)].join(sep.field);
}

/** One parsed row: its tag and its raw field values in template order. */
export interface TaggedRow {
  tag: string;
  fields: string[];
}

/** Split the output of one or more `rowTemplate` commands back into rows. */
export function parseRows(stdout: string, sep: Separators): TaggedRow[] {
  const chunks = stdout.split(sep.row);
  const rows: TaggedRow[] = [];
  for (const chunk of chunks.slice(1)) {
    // tmux ends each printed row with one newline; anything else belongs to the last field.
    const body = chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk;
    const [tag, ...fields] = body.split(sep.field);
    rows.push({ tag, fields });
  }
  return rows;
}

/** A typed row format: keys in order, each bound to a tmux variable. */
type FieldMap<K extends string> = Readonly<Record<K, string>>;

/** Template and decoder for rows described by a {@link FieldMap}. */
export function rowFormat<K extends string>(tag: string, map: FieldMap<K>) {
  const keys = Object.keys(map) as K[];
  const variables = keys.map((k) => map[k]);
  return {
    tag,
    template: (sep: Separators) => rowTemplate(sep, tag, variables),
    /** Decode the rows of this tag; rows with a wrong field count are a tmux-side surprise. */
    decode(rows: readonly TaggedRow[]): Record<K, string>[] {
      const out: Record<K, string>[] = [];
      for (const row of rows) {
        if (row.tag !== tag) continue;
        if (row.fields.length !== keys.length) {
          throw new Error(`row of ${tag} has ${row.fields.length} fields, want ${keys.length}`);
        }
        const record = {} as Record<K, string>;
        for (let i = 0; i < keys.length; i++) record[keys[i]] = row.fields[i];
        out.push(record);
      }
      return out;
    },
  };
}

/** Parse a decimal integer field; empty or malformed gives `fallback`. */
export function int(value: string, fallback = 0): number {
  return /^-?\d+$/.test(value) ? Number(value) : fallback;
}

/** Parse a tmux boolean flag field ("1" / "0" / ""). */
export function flag(value: string): boolean {
  return value === "1";
}

/** A command printing a section marker: the row separator and a tag, then a newline. */
export function marker(sep: Separators, tag: string): string[] {
  return ["display-message", "-p", rowTemplate(sep, tag, [])];
}

/** One section of chained output, from one marker or header row to the next. */
export interface Section {
  /** The marker's tag. */
  tag: string;
  /** A header row's fields (the whole section but its final newline, split on the field separator). */
  fields: string[];
  /** What was printed after a bare marker's line (e.g. a capture). */
  body: string;
}

/** Split chained output at markers and header rows (whose fields may hold newlines). */
export function splitSections(stdout: string, sep: Separators): Section[] {
  return stdout.split(sep.row).slice(1).map((chunk) => {
    const head = chunk.endsWith("\n") ? chunk.slice(0, -1) : chunk;
    const [first, ...fields] = head.split(sep.field);
    const newline = chunk.indexOf("\n");
    const tag = fields.length > 0 ? first : (newline < 0 ? chunk : chunk.slice(0, newline));
    return { tag, fields, body: newline < 0 ? "" : chunk.slice(newline + 1) };
  });
}
