import { describe, expect, it } from 'vitest';
import { CAPACITY_FIXTURE } from '../test-support/capacity-fixture.js';
import { capacityCsv, capacityHtml } from './capacity.js';
import { kneeText } from '../presentation/capacity-text.js';

describe('capacity exports', () => {
  it('writes one CSV row per step, the model beside the measurement', () => {
    const lines = capacityCsv(CAPACITY_FIXTURE).trim().split(/\r?\n/);
    expect(lines).toHaveLength(3);
    const header = lines[0]?.split(',') ?? [];
    const first = lines[1]?.split(',') ?? [];
    const column = (name: string) => first[header.indexOf(name)];
    expect(column('people')).toBe('1');
    expect(column('aggregate_mbps')).toBe('140');
    expect(column('expected_aggregate_mbps')).toBe('148');
    expect(column('added_ms')).toBe('7.9');
    expect(column('model_limit')).toBe('read: the link is full');
    // The second step had no model figures and one person who stopped.
    const second = lines[2]?.split(',') ?? [];
    expect(second[header.indexOf('expected_aggregate_mbps')]).toBe('');
    expect(second[header.indexOf('failed_people')]).toBe('1');
  });

  it('writes one self-contained page: no script, both charts, the verdict, the knee, who stopped, everything escaped', () => {
    const hostile = { ...CAPACITY_FIXTURE, share: '//evil/<script>alert(1)</script>' };
    const html = capacityHtml(hostile);
    expect(html).not.toMatch(/<script/i);
    expect(html).toContain('&lt;script&gt;');
    expect(html.match(/<svg /g)).toHaveLength(2);
    expect(html).toContain('data-bars="3"');
    expect(html).toContain('class="headline not-met"');
    expect(html).toContain(kneeText(CAPACITY_FIXTURE).replace(/'/g, '&#39;'));
    expect(html).toContain('Person 2, during the step of 2 people');
    expect(kneeText(CAPACITY_FIXTURE)).toBe(
      'The knee is at 1 person (one more adds less than 50% of what one person moved alone); the peak is 146 Mb/s at 2 people; the model puts it at 1 person and the peak at 148 Mb/s.',
    );
  });
});
