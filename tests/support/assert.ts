/** Minimal assertions (JSR's @std/assert is unreachable here); node:assert does the work. */
import nodeAssert from "node:assert/strict";

/** Assert a condition. */
export function assert(condition: unknown, message?: string): asserts condition {
  nodeAssert.ok(condition, message);
}

/** Deep, strict equality. */
export function assertEquals<T>(actual: T, expected: T, message?: string): void {
  nodeAssert.deepStrictEqual(actual, expected, message);
}

/** Assert that `fn` throws an instance of `type` (whose message includes `includes`). */
export function assertThrows<E extends Error>(
  fn: () => unknown,
  type: new (...args: never[]) => E,
  includes?: string,
): E {
  try {
    fn();
  } catch (error) {
    nodeAssert.ok(error instanceof type, `expected ${type.name}, got ${error}`);
    if (includes) nodeAssert.ok((error as E).message.includes(includes), (error as E).message);
    return error as E;
  }
  throw new Error(`expected ${type.name} to be thrown`);
}

/** Assert that a promise-returning `fn` rejects with an instance of `type`. */
export async function assertRejects<E extends Error>(
  fn: () => Promise<unknown>,
  type: new (...args: never[]) => E,
): Promise<E> {
  try {
    await fn();
  } catch (error) {
    nodeAssert.ok(error instanceof type, `expected ${type.name}, got ${error}`);
    return error as E;
  }
  throw new Error(`expected ${type.name} to be rejected`);
}

/** Assert that `text` matches `pattern`. */
export function assertMatch(text: string, pattern: RegExp): void {
  nodeAssert.match(text, pattern);
}
