import { describe, expect, it } from 'vitest';
import { hasControlCharacter, printable } from './terminal-text.js';

describe('text for a terminal', () => {
  it('replaces what a terminal would obey: ESC sequences (title, clear, OSC 52 clipboard), C1 controls, DEL and bidi overrides', () => {
    const hostile = 'share\u001b]0;pwned\u0007\u001b[2J\u001b]52;c;ZWNobyBoaQ==\u0007\u009b31m\u007f\u202eexe.txt';
    const shown = printable(hostile);
    // eslint-disable-next-line no-control-regex -- matching control characters is the point
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(shown).toBe('share\ufffd]0;pwned\ufffd\ufffd[2J\ufffd]52;c;ZWNobyBoaQ==\ufffd\ufffd31m\ufffd\ufffdexe.txt');
  });

  it('keeps tabs, newlines and every printable script', () => {
    expect(printable('a\tb\nc — Zürich 東京 שלום')).toBe('a\tb\nc — Zürich 東京 שלום');
  });

  it('finds control characters, line breaks included, in a name', () => {
    for (const name of ['a\nb', 'a\tb', 'a\u001bb', 'a\u0085b', 'a\u202eb', 'a\u007fb']) expect(hasControlCharacter(name), JSON.stringify(name)).toBe(true);
    expect(hasControlCharacter('Zürich-Daten')).toBe(false);
  });
});
