import { describe, expect, it } from 'vitest';
import { paperForLocale } from './export.js';

describe('the paper a PDF prints on', () => {
  it('is Letter where the locale names a Letter region, A4 elsewhere', () => {
    for (const locale of ['en_US.UTF-8', 'en-US', 'fr_CA', 'es-MX', 'en_PH.utf8', 'es_CL@euro']) expect(paperForLocale(locale), locale).toBe('letter');
    for (const locale of ['en_GB.UTF-8', 'de-DE', 'fr_FR', 'es-419', 'en', 'C', 'C.UTF-8', 'POSIX', '', undefined, 'zh-Hant-TW'])
      expect(paperForLocale(locale), String(locale)).toBe('a4');
  });
});
