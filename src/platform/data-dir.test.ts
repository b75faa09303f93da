import { describe, expect, it } from 'vitest';
import { dataDirectory } from './data-dir.js';

describe('dataDirectory', () => {
  it("is each platform's folder for an application's own data", () => {
    expect(dataDirectory({}, 'linux', '/home/ann')).toBe('/home/ann/.local/share/pipefill');
    expect(dataDirectory({ XDG_DATA_HOME: '/data/ann' }, 'linux', '/home/ann')).toBe('/data/ann/pipefill');
    // A relative XDG_DATA_HOME is invalid (XDG Base Directory spec) and ignored.
    expect(dataDirectory({ XDG_DATA_HOME: 'rel' }, 'linux', '/home/ann')).toBe('/home/ann/.local/share/pipefill');
    expect(dataDirectory({}, 'darwin', '/Users/ann')).toBe('/Users/ann/Library/Application Support/Pipefill');
    expect(dataDirectory({ APPDATA: 'C:/Users/ann/AppData/Roaming' }, 'win32', 'C:/Users/ann')).toMatch(/Roaming[\\/]Pipefill$/);
    expect(dataDirectory({ PIPEFILL_DATA_DIR: '/tmp/x' }, 'linux', '/home/ann')).toBe('/tmp/x');
  });
});
