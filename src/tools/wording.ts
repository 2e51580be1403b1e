/** Sentences many tool descriptions share, worded once. */

/**
 * The sentence a guarded tool's description ends with: the two rules an agent must plan around
 * (docs/design.md §6.2, §6.9). The rest of the guard is said by its refusals, each of which reads
 * alone, and once in the server instructions, which some clients drop.
 */
export const GUARDED = "Refuses panes a person watches, and your own unless force.";

/** The sentence of the view setters, which only the watched-window rule (§6.8) limits. */
export const VIEW_GUARDED = "Refused where a person watches.";

/** Asking the person (docs/design.md §6.11), for descriptions that mention it. */
export const ASK_TEXT = "A person may be asked to allow it.";
