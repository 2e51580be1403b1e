/**
 * Program names read from shell text (docs/design.md §7.9), on their own: the words of shell text,
 * the shell a pane's start command leaves running, and the programs `exec` puts in its place.
 */
import { assertEquals } from "../../../tests/support/assert.ts";
import { execPrograms, paneShell, shellWords } from "./shell_words.ts";
import { RUN_SHELLS } from "./run.ts";

Deno.test("shellWords: quotes and escapes join a word; unquoted separators come out as one ';'", () => {
  const table: Array<[string, string[]]> = [
    ["", []],
    ["  echo   hi\\t", ["echo", "hit"]], // a backslash takes the next character as it is
    ["trailing\\", ["trailing"]],
    ["echo 'a b' \"c d\"", ["echo", "a b", "c d"]],
    ["x'y'\"z\"w", ["xyzw"]],
    ["''", [""]],
    ["'unclosed quote", ["unclosed quote"]],
    ['"say \\"hi\\" \\\\ now"', ['say "hi" \\ now']],
    ["a\\ b", ["a b"]],
    ["a;b", ["a", ";", "b"]],
    ["a && b || c | d & e", ["a", ";", "b", ";", "c", ";", "d", ";", "e"]],
    ["(cd /x)\nls", [";", "cd", "/x", ";", "ls"]],
    ["'a;b' \"c|d\" e\\;f", ["a;b", "c|d", "e;f"]],
    ["cmd 2>&1 >&2 <&0", ["cmd", "2>&1", ">&2", "<&0"]],
    ["tab\tseparated", ["tab", "separated"]],
  ];
  for (const [text, want] of table) assertEquals(shellWords(text), want, text);
});

Deno.test("paneShell: the program a start command leaves running, as tmux quotes it; default-shell without one", () => {
  const table: Array<[string, string, string | undefined]> = [
    ["", "/bin/bash", "bash"],
    ["", "/usr/bin/zsh", "zsh"],
    ["\"env -i PATH=/bin HOME=/tmp PS1='$ ' bash --norc --noprofile\"", "/bin/sh", "bash"],
    ["\"sh -c 'read -r a; echo got:$a'\"", "/bin/bash", "sh"],
    ['"exec -l /bin/zsh"', "/bin/bash", "zsh"],
    ['"cd /tmp && exec bash"', "/bin/sh", "bash"],
    ["dash", "/bin/bash", "dash"],
    ["bash --norc", "/bin/sh", "bash"],
    ['"sleep 1000"', "/bin/bash", "sleep"],
    ['"FOO=1 env -u BAR -i /usr/bin/ksh"', "/bin/bash", "ksh"],
    ['"$SHELL -l"', "/bin/bash", "bash"],
    ['"exec ${SHELL}"', "/bin/zsh", "zsh"],
    ['"reattach-to-user-namespace -l zsh"', "/bin/bash", "zsh"],
    ['"./start-work.sh"', "/bin/bash", "start-work.sh"],
    ['"$EDITOR notes"', "/bin/bash", undefined],
    ["", "/usr/bin/fish", "fish"],
    ["fish -l", "/bin/bash", "fish"],
    ['"env -i HOME=/tmp XDG_DATA_HOME=/tmp/d TERM=screen /usr/bin/fish"', "/bin/sh", "fish"],
    ['"$SHELL -l"', "/usr/local/bin/fish", "fish"],
  ];
  for (const [start, shell, want] of table) {
    assertEquals(paneShell(start, shell, RUN_SHELLS), want, start);
  }
});

Deno.test("execPrograms: the programs a command replaces the shell with, at a command's start only", () => {
  const table: Array<[string, string[]]> = [
    ["exec python3 -q </dev/tty", ["python3"]],
    ["exec dash -i", ["dash"]],
    ["cd /x && exec /usr/bin/env", ["env"]],
    ["exec >log", []],
    ["exec 2>&1; exec 3> out", []],
    ["echo exec python3", []],
    ["if true; then exec -a name zsh; fi", ["zsh"]],
    ["python3 train.py", []],
    ["exec env -i FOO=1 bash", ["bash"]],
    // fish: a block opens with `begin`, a condition chains with `and`, `or`, `not`.
    ["begin; exec python3; end", ["python3"]],
    ["test -d /x; and exec zsh", ["zsh"]],
    ["true; or exec bash; not exec dash", ["bash", "dash"]],
    ["echo begin exec python3", []],
  ];
  for (const [command, want] of table) {
    assertEquals([...execPrograms(command)], want, command);
  }
});
