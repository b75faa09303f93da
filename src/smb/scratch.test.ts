import { describe, expect, it } from 'vitest';
import { SmbError } from './errors.js';
import { scratchPath } from './scratch.js';

describe('scratchPath', () => {
  const root = '.pipefill-20261121T120000-0123abcd';

  it('joins paths inside the scratch folder', () => {
    expect(scratchPath(root, 'target/dir01/file001.xls')).toBe(`${root}/target/dir01/file001.xls`);
    expect(scratchPath(root, './source\\a.bin')).toBe(`${root}/source/a.bin`);
  });

  it.each(['../outside.txt', 'target/../../x', 'C:\\Windows', 'a/../../b'])('refuses %j, which could leave it', (relative) => {
    expect(() => scratchPath(root, relative)).toThrow(SmbError);
  });
});
