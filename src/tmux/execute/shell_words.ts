/**
 * Program names read from shell text, for run_shell_command (docs/design.md §7.9): the pane's
 * own shell from its start command (`#{pane_start_command}`, or the `default-shell` option when it
 * is empty), and the programs a command replaces the shell with (`exec …`). Names only: tmux 3.3a
 * names the foreground program but gives no foreground pid, and this server does not read /proc.
 * Pure; it neither spawns nor runs anything.
 */

/** Words of shell text; unquoted `;`, `&`, `|`, parentheses and newlines come out as `;`. */
export function shellWords(text: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  const end = () => {
    if (word !== undefined) words.push(word);
    word = undefined;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "'") {
      const close = text.indexOf("'", i + 1);
      const stop = close < 0 ? text.length : close;
      word = (word ?? "") + text.slice(i + 1, stop);
      i = stop;
    } else if (c === '"') {
      let out = "";
      for (i++; i < text.length && text[i] !== '"'; i++) {
        if (text[i] === "\\" && i + 1 < text.length) i++;
        out += text[i];
      }
      word = (word ?? "") + out;
    } else if (c === "\\") {
      word = (word ?? "") + (text[++i] ?? "");
    } else if (c === " " || c === "\t") {
      end();
    } else if ("\n;&|()".includes(c) && !(c === "&" && /[<>]$/.test(word ?? ""))) {
      end();
      if (words.at(-1) !== ";") words.push(";");
    } else {
      word = (word ?? "") + c;
    }
  }
  end();
  return words;
}

/** A program's name as tmux shows it in `pane_current_command`: no directory, no login `-`. */
function programName(word: string): string {
  return (word.split("/").at(-1) ?? "").replace(/^-/, "");
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/**
 * The program a simple command runs, past `exec` and `env` (their options and assignments),
 * `command` and assignments; undefined when there is none.
 */
function programOf(words: readonly string[]): string | undefined {
  let i = 0;
  while (i < words.length) {
    const word = words[i];
    if (ASSIGNMENT.test(word) || word === "command") i++;
    else if (word === "exec" || word === "env") {
      i++;
      while (i < words.length && (words[i].startsWith("-") || ASSIGNMENT.test(words[i]))) {
        // Options taking a value: env -u NAME, -C DIR, -S STRING; exec -a NAME.
        i += /^-[uCSa]$/.test(words[i]) ? 2 : 1;
      }
    } else if (/^\d*[<>]/.test(word)) i += /^\d*[<>]+&?$/.test(word) ? 2 : 1;
    // A program named by an expansion ($SHELL, `…`) is not known here.
    else return /[$`]/.test(word) ? undefined : programName(word);
  }
  return undefined;
}

/** Simple commands of shell words, split at `;` (and the other separators shellWords made `;`). */
function commands(words: readonly string[]): string[][] {
  const out: string[][] = [[]];
  for (const word of words) {
    if (word === ";") out.push([]);
    else out[out.length - 1].push(word);
  }
  return out.filter((c) => c.length > 0);
}

/**
 * The name of the shell a pane runs as its own: the program of its start command (tmux prints
 * its arguments quoted; one argument is a command line for `default-shell -c`, whose last simple
 * command is the program left running), or `default-shell` when it started without one. When
 * that program is not one of `shells`, a wrapper's last word that is (`reattach-to-user-namespace
 * -l zsh`), or `default-shell` for `$SHELL`. Undefined when none is known.
 */
export function paneShell(
  startCommand: string,
  defaultShell: string,
  shells: ReadonlySet<string>,
): string | undefined {
  const fallback = programName(defaultShell) || undefined;
  if (startCommand === "") return fallback;
  const argv = shellWords(startCommand).filter((w) => w !== ";");
  const line = argv.length === 1 ? commands(shellWords(argv[0])).at(-1) : argv;
  if (!line) return undefined;
  const program = programOf(line);
  if (program && shells.has(program)) return program;
  const wrapped = line.map(programName).findLast((word) => shells.has(word));
  if (wrapped) return wrapped;
  return line.some((word) => /^\$\{?SHELL\}?$/.test(word)) ? fallback : program;
}

/**
 * Words after which a command word begins, when they stand at a command's start themselves
 * (fish's `begin`, `and`, `or` and `not` too); `;` always.
 */
const COMMAND_START = new Set([
  "then",
  "do",
  "else",
  "{",
  "!",
  "time",
  "begin",
  "and",
  "or",
  "not",
]);

/**
 * The programs a command replaces its shell with by `exec` at a command's start (`exec python3 -q
 * </dev/tty` gives python3). An `exec` with only redirections (`exec >log`) names none.
 */
export function execPrograms(command: string): Set<string> {
  const words = shellWords(command);
  const names = new Set<string>();
  let atStart = true;
  words.forEach((word, i) => {
    const here = atStart;
    atStart = word === ";" || (here && COMMAND_START.has(word));
    if (word !== "exec" || !here) return;
    const rest = words.slice(i, words.indexOf(";", i) < 0 ? undefined : words.indexOf(";", i));
    const name = programOf(rest);
    if (name) names.add(name);
  });
  return names;
}
