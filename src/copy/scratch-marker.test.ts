import { describe, expect, it } from 'vitest';
import { markerProves, markerText, parseMarker } from './scratch-marker.js';

const folder = '.pipefill-20261127T031500-00c0ffee';

describe("a scratch folder's marker", () => {
  it('reads back what a run writes, and proves only the folder it names, by its id', () => {
    const marker = parseMarker(markerText({ folder, folderId: 0x1234n }));
    expect(marker).toEqual({ folder, folderId: 0x1234n });
    expect(markerProves(marker, folder, 0x1234n)).toBe(true);
    expect(markerProves(marker, folder, 0x1235n)).toBe(false);
    expect(markerProves(marker, '.pipefill-20261127T031500-00c0ffef', 0x1234n)).toBe(false);
    expect(markerProves(undefined, folder, 0x1234n)).toBe(false);
    // A server that gave no id when the folder was made: the name alone.
    expect(markerProves(parseMarker(markerText({ folder, folderId: 0n })), folder, 42n)).toBe(true);
  });

  it.each([
    ['empty', ''],
    ['another header', `Pipefill scratch folder 2\n${folder}\n1\n`],
    ['no end of line', `Pipefill scratch folder 1\n${folder}\n1`],
    ['a trailing line', `Pipefill scratch folder 1\n${folder}\n1\nmore\n`],
    ['a name that is no scratch folder', 'Pipefill scratch folder 1\ndata\n1\n'],
    ['a path for a name', `Pipefill scratch folder 1\n../${folder}\n1\n`],
    ['an id past 64 bits', `Pipefill scratch folder 1\n${folder}\n11112222333344445\n`],
    ['an id that is no number', `Pipefill scratch folder 1\n${folder}\n-1\n`],
    ['too long to be one', `Pipefill scratch folder 1\n${folder}\n1\n`.padEnd(300, ' ')],
  ])('is not one when %s', (_what, text) => {
    expect(parseMarker(Buffer.from(text, 'latin1'))).toBeUndefined();
  });

  it('is never written for a name that is no scratch folder', () => {
    expect(() => markerText({ folder: '../etc', folderId: 1n })).toThrow();
  });
});
