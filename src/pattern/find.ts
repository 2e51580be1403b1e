/**
 * Where an RE2 program first matches a line: the one matching rule shared by the main thread and
 * the pattern workers (docs/design.md §7.7 rule 10), so both answer the same positions.
 */
import type { RE2JS } from "re2js";

/**
 * The UTF-16 index of the first match of `re` in `line`, or -1. `test` runs RE2's DFA when it can
 * (far faster than the NFA behind a Matcher); only a caller that cuts the line around its match
 * (`needPosition`) pays for the position, and only when the line matches.
 */
export function firstMatch(re: RE2JS, line: string, needPosition: boolean): number {
  if (!re.test(line)) return -1;
  if (!needPosition) return 0;
  const matcher = re.matcher(line);
  return matcher.find() ? matcher.start() : -1;
}
