/**
 * Id fields marked in the schemas (docs/design.md §5.15). Every schema field that holds an object
 * of one host — a tmux id, a session reference, a cursor or runId of ours — is declared with
 * {@link tmuxId}; the edge between the agent and a host reads the marks ({@link rewriteIds}) to
 * qualify a remote host's results (`box1:%3`) and unqualify arguments, and the catalog reads them
 * to advertise patterns that take the prefix ({@link qualifiedPattern}). A field without a mark is
 * never rewritten, so a text that reads `box1:%3` stays what it is.
 *
 * Marks live in a registry of their own, which JSON Schema never shows: they cost the catalog no
 * byte. A mark survives `.describe()` and added checks (zod keeps the marked schema as the clone's
 * parent) and sits under `.optional()` and `.nullable()`, which the walk looks through.
 */
import { z } from "zod";

/** What a marked field names on one host. */
export type IdKind =
  | "pane"
  | "window"
  | "session"
  | "target"
  | "cursor"
  | "run";

/** A tmux variable's id kind; `sessions` is a comma-separated list of session names. */
export type VariableKind = IdKind | "sessions";

/**
 * How a schema node routes: a string that is one id; a record of tmux variables keyed by name,
 * some of which hold ids (tmux's names, not ours: the value's meaning depends on the name); or a
 * nested call's arguments, which that call routes itself.
 */
export type IdMark =
  | { readonly kind: IdKind }
  | { readonly variables: Readonly<Record<string, VariableKind>> }
  | { readonly call: true };

/**
 * The marks. Read them with {@link idMark}, which sees a mark through `.describe()` (zod hands a
 * clone its parent's metadata, less a key named `id`: no mark has one).
 */
const MARKS = z.registry<IdMark>();

/**
 * `schema` (default: any string) marked as holding an id of `kind`: the one way a schema declares
 * an id field. Mark the string itself, then wrap it (`tmuxId("pane").optional()`).
 */
export function tmuxId<S extends z.ZodString>(kind: IdKind, schema?: S): S {
  const marked = schema ?? (z.string() as S);
  MARKS.add(marked, { kind });
  return marked;
}

/**
 * A record of tmux format variables by name (get_tmux_variables), marked with the id kind of each
 * variable that holds one.
 */
export function tmuxVariables(
  kinds: Readonly<Record<string, VariableKind>>,
): z.ZodRecord<z.ZodString, z.ZodString> {
  const record = z.record(z.string(), z.string());
  MARKS.add(record, { variables: kinds });
  return record;
}

/** The arguments of a nested call (the read batch's rows): routed by that call, not its batch. */
export function nestedCall(): z.ZodUnknown {
  const args = z.unknown();
  MARKS.add(args, { call: true });
  return args;
}

/** The mark of a schema node, if it has one (inherited by its `.describe()` clones). */
export function idMark(schema: z.ZodType): IdMark | undefined {
  return MARKS.get(schema);
}

/**
 * A marked id's pattern as advertised with remote hosts configured: the same, after an optional
 * `NAME:` (the edge strips it before the tool's own schema checks the id). `(\S+:)?` is the
 * shortest form: the edge refuses an unknown host, and these patterns sit in many schemas.
 */
export function qualifiedPattern(pattern: string): string {
  if (!pattern.startsWith("^")) throw new Error(`internal: an id pattern is anchored: ${pattern}`);
  return `^(\\S+:)?${pattern.slice(1)}`;
}

/** One id as the edge rewrites it; `kind` says what it names. */
export type IdEdit = (id: string, kind: IdKind) => string;

/**
 * `value` with `edit` applied to every string that a marked field of `schema` holds, anywhere in
 * nested objects, arrays and records; everything else (symbol keys included) is kept. `value` need
 * not match `schema`: arguments are rewritten before their schema checks them, so a key the schema
 * does not know, or a value of another type, is left for that check to refuse.
 */
export function rewriteIds(schema: z.ZodType, value: unknown, edit: IdEdit): unknown {
  const mark = idMark(schema);
  if (mark) return rewriteMarked(mark, value, edit);
  const def = schema.def as unknown as Def;
  if (def.innerType) return rewriteIds(def.innerType, value, edit);
  switch (def.type) {
    case "array":
      return Array.isArray(value) ? value.map((v) => rewriteIds(def.element!, v, edit)) : value;
    case "record":
      return isRecord(value) ? mapValues(value, () => def.valueType!, edit) : value;
    case "object":
      return isRecord(value)
        ? mapValues(value, (key) => own(def.shape!, key) ?? def.catchall, edit)
        : value;
    case "union": {
      const option = def.options!.find((o) => fits(o, value));
      return option ? rewriteIds(option, value, edit) : value;
    }
    default:
      return value;
  }
}

/** Whether any node of `schema` carries a mark for which `test` holds. */
export function anyMark(schema: z.ZodType, test: (mark: IdMark) => boolean): boolean {
  const mark = idMark(schema);
  if (mark) return test(mark);
  const def = schema.def as unknown as Def;
  const parts = [
    def.innerType,
    def.element,
    def.valueType,
    def.catchall,
    ...Object.values(def.shape ?? {}),
    ...def.options ?? [],
  ];
  return parts.some((part) => part !== undefined && anyMark(part, test));
}

/**
 * Whether every value `schema` accepts holds a marked id: a marked string, or an object with a
 * required field (an array with items) that does. A tool whose input does names an object.
 */
export function requiresId(schema: z.ZodType): boolean {
  const mark = idMark(schema);
  if (mark) return "kind" in mark;
  if (schema.safeParse(undefined).success) return false;
  const def = schema.def as unknown as Def;
  if (def.innerType) return requiresId(def.innerType);
  if (def.type === "array") return requiresId(def.element!);
  return Object.values(def.shape ?? {}).some(requiresId);
}

/** The parts of a zod definition the walk reads (wrappers have `innerType`). */
interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  valueType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
  options?: z.ZodType[];
}

function rewriteMarked(mark: IdMark, value: unknown, edit: IdEdit): unknown {
  if ("kind" in mark) return typeof value === "string" ? edit(value, mark.kind) : value;
  if ("call" in mark || !isRecord(value)) return value;
  const out: Record<string | symbol, unknown> = { ...value };
  for (const [name, v] of Object.entries(value)) {
    const kind = own(mark.variables, name);
    if (kind === undefined || typeof v !== "string") continue;
    setOwn(
      out,
      name,
      kind === "sessions"
        ? v.split(",").map((one) => edit(one, "session")).join(",")
        : edit(v, kind),
    );
  }
  return out;
}

/** `value` with each entry rewritten by the schema `field(key)` gives (none: kept). */
function mapValues(
  value: Record<string, unknown>,
  field: (key: string) => z.ZodType | undefined,
  edit: IdEdit,
): Record<string | symbol, unknown> {
  const out: Record<string | symbol, unknown> = { ...value };
  for (const [key, v] of Object.entries(value)) {
    const schema = field(key);
    if (schema !== undefined) setOwn(out, key, rewriteIds(schema, v, edit));
  }
  return out;
}

/** `table[key]` if `table` has it as its own (never `constructor` or `__proto__` of its prototype). */
function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Set `key` as an own property: an agent's `__proto__` key stays data, never a prototype. */
function setOwn(out: Record<string | symbol, unknown>, key: string, value: unknown): void {
  if (out[key] === value) return;
  Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Whether `value` has the JSON type of a union's `option` (the option it would be read as). */
function fits(option: z.ZodType, value: unknown): boolean {
  const def = option.def as unknown as Def;
  if (def.innerType) return fits(def.innerType, value);
  switch (def.type) {
    case "object":
    case "record":
      return isRecord(value);
    case "array":
      return Array.isArray(value);
    case "string":
      return typeof value === "string";
    default:
      return false;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
