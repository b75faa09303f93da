import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HistoryStoreInputSchema, postgresAddressHasPassword, runColumns, siteOf } from './history.js';
import type { Report } from './report.js';
import { ReportSchema } from './report.js';

const fixture = (name: string): Report => ReportSchema.parse(JSON.parse(readFileSync(new URL(`../report/fixtures/${name}.json`, import.meta.url), 'utf8')));

describe('site history', () => {
  it('names one site whatever the slashes and case', () => {
    expect(siteOf('\\\\FS01\\Data\\')).toBe('fs01/data');
    expect(siteOf('//fs01/data')).toBe('fs01/data');
    // The port (the demo share's changes run to run) and a folder below the share are not the site.
    expect(siteOf('  //FS01:4450/Data ')).toBe('fs01/data');
    expect(siteOf('\\\\fs01\\data\\team\\scratch')).toBe('fs01/data');
    expect(siteOf('not a share')).toBe('not a share');
  });

  it('keys generations by profile, op and kind of workload, so runs of different sizes line up', () => {
    const columns = runColumns({ kind: 'assessment', report: fixture('lab-52mbit-75ms') });
    expect(Object.keys(columns.generations).every((key) => /^[a-z0-9-]+ (read|write) (file|dirset)$/.test(key))).toBe(true);
    expect(Object.values(columns.generations).every((measure) => measure.mbps > 0 && measure.seconds > 0)).toBe(true);
  });
});

describe('the store setting', () => {
  it('takes a PostgreSQL address without a password, or none', async () => {
    const { HistoryStoreInputSchema } = await import('./history.js');
    expect(HistoryStoreInputSchema.parse({ address: ' postgres://team@db.example:5433/pipefill ' })).toEqual({
      address: 'postgres://team@db.example:5433/pipefill',
    });
    expect(HistoryStoreInputSchema.parse({ address: null })).toEqual({ address: null });
    expect(() => HistoryStoreInputSchema.parse({ address: 'postgres://team:s3cret@db.example/pipefill' })).toThrow(/Leave the password out of the address/);
    expect(() => HistoryStoreInputSchema.parse({ address: 'postgres://team@db.example/pipefill?sslmode=require&password=s3cret' })).toThrow(
      /Leave the password out of the address/,
    );
    expect(() => HistoryStoreInputSchema.parse({ address: '/etc/passwd' })).toThrow(/Give a PostgreSQL address/);
    expect(() => HistoryStoreInputSchema.parse({ address: '' })).toThrow();
  });
});

describe('a PostgreSQL address with a password in it (issue 35, item 10)', () => {
  it('is found however it is spelled, as the client would read it', () => {
    for (const address of [
      'postgres://team:hunter2@db/pipefill',
      'postgres://team@db/pipefill?password=hunter2',
      'postgres://team@db/pipefill?pass%77ord=hunter2',
      'postgresql://team@db/pipefill?sslmode=require&PASSWORD=x',
      'postgres://team:@db/x?%70assword=y',
      'postgres://[bad',
    ]) {
      expect(postgresAddressHasPassword(address), address).toBe(true);
    }
    for (const address of [
      'postgres://team@db/pipefill',
      'postgres://team@db:5433/pipefill?sslmode=require',
      'postgres://db/pipefill?application_name=passwords-app',
    ]) {
      expect(postgresAddressHasPassword(address), address).toBe(false);
    }
    expect(HistoryStoreInputSchema.safeParse({ address: 'postgres://team@db/pipefill?pass%77ord=hunter2' }).success).toBe(false);
  });
});
