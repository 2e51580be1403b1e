/** A pane a person watches whose typed input the test can read back (ask and consent tests). */
import type { TmuxFixture } from "./fixture.ts";

/**
 * A window made current in session "main", whose pane appends every line typed into it to a
 * file, and a person attached to "main" watching it. The person's `script` wrapper, reading
 * /dev/null, types its end-of-file character as it attaches: ^D (so `cat` runs in a loop), or a
 * NUL when the tmux client has already set the terminal raw (so NULs are not counted as typed).
 */
export async function watchedReceiver(fx: TmuxFixture) {
  const file = `${fx.dir}/typed`;
  const paneId = (await fx.tmux(
    "new-window",
    "-t",
    "=main:",
    "-P",
    "-F",
    "#{pane_id}",
    `while :; do cat >> ${file}; done`,
  )).trim();
  const detach = await fx.attachPerson("main");
  const typed = async () => (await Deno.readTextFile(file).catch(() => "")).replaceAll("\0", "");
  return { paneId, file, typed, detach };
}
