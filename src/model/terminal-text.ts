// Text from outside (share names, headlines, server-chosen names in imported
// reports, a team store, a server's replies) is printed to terminals. A
// terminal acts on control characters: ESC sequences retitle the window,
// clear the screen or write the clipboard (OSC 52), C1 controls do the same
// on terminals that read them, and bidirectional overrides reorder what a
// person reads. None of them belongs in anything Pipefill prints.

/** C0 controls but tab and newline, DEL, C1 controls, and the bidirectional embeddings, overrides and isolates. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNPRINTABLE = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
/** The same, with tab and newline too: what a single-line name must never hold. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ANY_CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

/** `text` with every character a terminal would act on replaced by U+FFFD (seen, not obeyed). */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, '\ufffd');
}

/** Whether a name (a share, a user) holds a control character, a line break or a bidirectional control. */
export function hasControlCharacter(text: string): boolean {
  return ANY_CONTROL.test(text);
}
