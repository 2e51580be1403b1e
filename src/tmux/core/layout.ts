/**
 * tmux's layout strings (`window_layout`): checked before tmux sees one (the grammar, the checksum
 * and the geometry tmux itself checks, docs/design.md §5.12), and read for the size of each pane
 * (`%layout-change`, docs/design.md §7.2). Pure: no tmux, no I/O.
 */
import { preview, ToolError } from "../../errors.ts";
import { PANE_LIMITS } from "../../live/emulator.ts";

/** The layouts tmux names (passed only exactly: tmux itself would also take a unique prefix). */
export const NAMED_LAYOUTS = [
  "even-horizontal",
  "even-vertical",
  "main-horizontal",
  "main-vertical",
  "tiled",
] as const;

/** Characters of a layout string accepted (a pane's cell takes ~20, so ~400 panes fit). */
export const MAX_LAYOUT_CHARS = 8192;

/** One cell of a parsed layout string. */
interface LayoutCell {
  width: number;
  height: number;
  /** `{` children side by side, `[` stacked; absent for a pane. */
  split?: "{" | "[";
  cells: LayoutCell[];
}

/** tmux's layout checksum (layout_checksum): a 16-bit rotate-and-add over the body's bytes. */
export function layoutChecksum(body: string): string {
  let sum = 0;
  for (let i = 0; i < body.length; i++) {
    sum = ((sum >> 1) + ((sum & 1) << 15) + body.charCodeAt(i)) & 0xffff;
  }
  return sum.toString(16).padStart(4, "0");
}

/**
 * Check a layout: one of {@link NAMED_LAYOUTS}, or a string as tmux prints it (`window_layout`:
 * `csum,WxH,X,Y` then `,ID` for a pane or `{…}`/`[…]` for children side by side or stacked).
 * The grammar, the checksum and the geometry tmux checks (children span their parent, with one
 * cell of border between them) are verified here, so tmux never sees a malformed layout.
 */
export function checkLayout(layout: string): void {
  if ((NAMED_LAYOUTS as readonly string[]).includes(layout)) return;
  const refuse = (why: string) =>
    new ToolError("invalid_arguments", `layout ${preview(layout)} is not valid: ${why}`, {
      hint: `Pass one of ${NAMED_LAYOUTS.join(", ")}, or a layout string exactly as ` +
        "get_window_info or list_windows print it (window_layout).",
    });
  if (layout.length > MAX_LAYOUT_CHARS) throw refuse(`longer than ${MAX_LAYOUT_CHARS} characters`);
  const head = /^([0-9a-fA-F]{4}),/.exec(layout);
  if (!head) throw refuse("it is no layout name and does not start with a 4-digit checksum");
  const body = layout.slice(5);
  // Sticky patterns, made per call: their lastIndex is state.
  const CELL_HEAD = /(\d{1,5})x(\d{1,5}),(\d{1,5}),(\d{1,5})/y;
  // A pane's id: digits that the next cell's "WxH" does not continue.
  const CELL_ID = /,\d{1,10}(?=[,}\]]|$)/y;
  let at = 0;
  const cell = (): LayoutCell => {
    CELL_HEAD.lastIndex = at;
    const m = CELL_HEAD.exec(body);
    if (!m) throw refuse(`expected WxH,X,Y at character ${at + 5}`);
    at = CELL_HEAD.lastIndex;
    const [width, height] = [Number(m[1]), Number(m[2])];
    // A layout resizes its window: no larger than the largest pane we follow (§7.2).
    const [columns, rows] = [PANE_LIMITS.columns, PANE_LIMITS.rows];
    if (width < 1 || height < 1 || width > columns || height > rows) {
      throw refuse(`a cell of ${width}x${height} (at most ${columns}x${rows})`);
    }
    CELL_ID.lastIndex = at;
    if (CELL_ID.test(body)) at = CELL_ID.lastIndex;
    const open = body[at];
    if (open !== "{" && open !== "[") return { width, height, cells: [] };
    const cells: LayoutCell[] = [];
    do {
      at++;
      cells.push(cell());
    } while (body[at] === ",");
    if (body[at] !== (open === "{" ? "}" : "]")) {
      throw refuse(`unclosed ${open} at character ${at + 5}`);
    }
    at++;
    return { width, height, split: open, cells };
  };
  const root = cell();
  if (at !== body.length) throw refuse(`unexpected text at character ${at + 5}`);
  if (layoutChecksum(body) !== head[1].toLowerCase()) {
    throw refuse("its checksum does not match (tmux refuses it as an invalid layout)");
  }
  const fits = (c: LayoutCell): boolean => {
    if (!c.split) return true;
    const across = c.split === "{";
    const spanned = c.cells.reduce((sum, child) => sum + (across ? child.width : child.height), 0) +
      c.cells.length - 1;
    return spanned === (across ? c.width : c.height) &&
      c.cells.every((child) => (across ? child.height === c.height : child.width === c.width)) &&
      c.cells.every(fits);
  };
  if (!fits(root)) throw refuse("its cells do not add up to their parents' sizes");
}

/** A pane's size in cells. */
export interface PaneSize {
  width: number;
  height: number;
}

/**
 * Pane sizes in tmux layout strings (`csum,WxH,X,Y{…}`, a pane being `WxH,X,Y,N` for pane %N);
 * a later layout wins, so the visible layout of a zoomed window overrides the saved one.
 */
export function layoutPanes(...layouts: string[]): Map<string, PaneSize> {
  const panes = new Map<string, PaneSize>();
  for (const layout of layouts) {
    for (const m of layout.matchAll(/(\d+)x(\d+),\d+,\d+,(\d+)/g)) {
      panes.set(`%${m[3]}`, { width: Number(m[1]), height: Number(m[2]) });
    }
  }
  return panes;
}
