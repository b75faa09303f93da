import { describe, expect, it } from 'vitest';
import { inputErrorText } from '../test-support/input-error.js';
import { formatSharePath, parseHostPort, parseSharePath } from './share-path.js';

describe('parseSharePath', () => {
  it.each([
    ['\\\\fs01\\projects', { host: 'fs01', port: 445, share: 'projects' }],
    ['//fs01/projects', { host: 'fs01', port: 445, share: 'projects' }],
    ['smb://fs01.corp.example/projects', { host: 'fs01.corp.example', port: 445, share: 'projects' }],
    ['//127.0.0.1:4450/share', { host: '127.0.0.1', port: 4450, share: 'share' }],
    ['//[::1]:4450/share', { host: '::1', port: 4450, share: 'share' }],
    ['  //fs01/My Files/ ', { host: 'fs01', port: 445, share: 'My Files' }],
    // A folder below the share, where a person may write: Pipefill works there.
    ['\\\\fs01\\projects\\team\\scratch', { host: 'fs01', port: 445, share: 'projects', folder: 'team/scratch' }],
    ['//fs01/projects/Team Folder/', { host: 'fs01', port: 445, share: 'projects', folder: 'Team Folder' }],
  ])('reads %j', (text, expected) => {
    expect(parseSharePath(text)).toEqual(expected);
  });

  it.each([
    ['fs01/projects', /not a share path/],
    ['//fs01', /names no share/],
    ['//fs01/projects/../x', /"\.\." is not a folder name/],
    ['//fs01/projects/a:b', /"a:b" is not a folder name/],
    [`//fs01/projects/${'d/'.repeat(17)}`, /more than 16 folders deep/],
    ['//fs01:99999/projects', /out of range/],
    ['//bad_host!/x', /not a server name/],
    ['//fs01/a*b', /not a valid share name/],
  ])('refuses %j', (text, message) => {
    expect(inputErrorText(() => parseSharePath(text))).toMatch(message);
  });

  it('prints the canonical form', () => {
    expect(formatSharePath(parseSharePath('\\\\fs01\\p'))).toBe('//fs01/p');
    expect(formatSharePath(parseSharePath('//127.0.0.1:4450/share'))).toBe('//127.0.0.1:4450/share');
    expect(formatSharePath(parseSharePath('\\\\fs01\\p\\team\\scratch'))).toBe('//fs01/p/team/scratch');
  });
});

describe('parseHostPort', () => {
  it('reads a host with or without a port', () => {
    expect(parseHostPort('fs01', 5201)).toEqual({ host: 'fs01', port: 5201 });
    expect(parseHostPort('10.77.0.2:5202', 5201)).toEqual({ host: '10.77.0.2', port: 5202 });
    expect(parseHostPort('[::1]:5201', 1)).toEqual({ host: '::1', port: 5201 });
  });
  it.each(['fs01:abc', 'fs01:0', 'fs01:70000', 'bad host', ''])('refuses %j', (text) => {
    expect(inputErrorText(() => parseHostPort(text, 5201))).toMatch(/not a host|out of range/);
  });
});
