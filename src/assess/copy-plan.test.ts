import { describe, expect, it } from 'vitest';
import { BudgetKeeper, minimumSlotSeconds } from './budget-keeper.js';
import { planCopies } from './copy-plan.js';

// A model stand-in: one second a file copy, three a directory set, a second less with the sender warm.
const modelSeconds = (_profile: string, _op: string, workload: { kind: string; files: readonly unknown[] }, warm: boolean) =>
  (workload.kind === 'file' ? 1 : workload.files.length > 1 ? 3 : 0.5) - (warm ? 0.1 : 0);

const input = {
  workloads: ['file:8MiB', 'tr3869-dirset:0.01'],
  profiles: ['win11-24h2', 'pipefill-max'] as const,
  rttMs: 40,
  modelSeconds,
};

describe('planCopies', () => {
  it("plans every workload both ways for every generation, in report order, with Pipefill's own write of each workload first", () => {
    const plan = planCopies({ ...input, quick: false, budgeted: true });
    expect(plan.planned.map((copy) => `${copy.workload} ${copy.profile} ${copy.op}`)).toEqual([
      'file:8MiB win11-24h2 read',
      'file:8MiB win11-24h2 write',
      'file:8MiB pipefill-max read',
      'file:8MiB pipefill-max write',
      'tr3869-dirset:0.01 win11-24h2 read',
      'tr3869-dirset:0.01 win11-24h2 write',
      'tr3869-dirset:0.01 pipefill-max read',
      'tr3869-dirset:0.01 pipefill-max write',
    ]);
    expect(plan.order.map((copy) => copy.index)).toEqual([3, 0, 1, 2, 7, 4, 5, 6]);
    expect(plan.sourceWrites).toEqual([]);
    expect(plan.copiedWorkloads).toEqual(input.workloads);
    // Four writes, two of which lay their workload's source.
    expect(plan.targetWrites).toBe(2);
    // The later workload finds its sender warm.
    expect(plan.planned[0]?.expectedSeconds).toBe(1);
    expect(plan.planned[4]?.expectedSeconds).toBeCloseTo(2.9, 12);
  });

  it('gives a file copy at least its opening round trips and a dozen more, and a directory set twice its first file', () => {
    const plan = planCopies({ ...input, quick: false, budgeted: true });
    const [fileRead] = plan.planned;
    // Windows 11 reads a file after 6 round trips of metadata (create, query...): (6 + 12) x 40 ms, under the model's second.
    expect(fileRead?.minimumSeconds).toBeLessThan(1);
    expect(fileRead?.minimumSeconds).toBeGreaterThan(0.4);
    expect(plan.planned[4]?.minimumSeconds).toBeCloseTo(2 * 0.4 + 0.32, 12);
  });

  it("leaves a quick run's directory sets to be projected from the file copies, and writes a source Pipefill does not lay", () => {
    const plan = planCopies({ ...input, profiles: ['win11-24h2'], quick: true, budgeted: true });
    expect(plan.planned.filter((copy) => copy.fromFileCopy).map((copy) => copy.workload)).toEqual(['tr3869-dirset:0.01', 'tr3869-dirset:0.01']);
    expect(plan.order.every((copy) => !copy.fromFileCopy)).toBe(true);
    expect(plan.sourceWrites).toEqual(input.workloads);
    expect(plan.copiedWorkloads).toEqual(['file:8MiB']);
    expect(plan.targetWrites).toBe(1);
    // Without a budget (--full) nothing is projected.
    expect(planCopies({ ...input, quick: true, budgeted: false }).planned.some((copy) => copy.fromFileCopy)).toBe(false);
  });
});

describe('BudgetKeeper', () => {
  const plan = planCopies({ ...input, quick: false, budgeted: true });
  const options = { budgetSeconds: 60, rttMs: 40, entries: 30, readBackSeconds: 1, checkSeconds: 1 };

  it("gives each copy the model's time for it while the budget holds them all, and its least once the budget is spent", () => {
    let spent = 0;
    const keeper = new BudgetKeeper({ ...options, spent: () => spent });
    const first = plan.order[0];
    if (!first) throw new Error('no copy');
    const slot = keeper.slotFor(first, plan.order);
    expect(slot.rttMs).toBe(40);
    expect(slot.maxSeconds).toBeCloseTo(first.expectedSeconds, 9);
    // Later, with most of the budget spent, the same copy gets its least.
    spent = 58;
    expect(keeper.slotFor(first, plan.order).maxSeconds).toBe(minimumSlotSeconds(40));
    expect(keeper.checkSlot().maxSeconds).toBe(minimumSlotSeconds(40));
  });

  it('holds back what copies took beyond their slots for the copies after them', () => {
    const keeper = new BudgetKeeper({ ...options, spent: () => 10 });
    const [first, second] = plan.order;
    if (!first || !second) throw new Error('no copies');
    const before = keeper.slotFor(second, plan.order.slice(1)).maxSeconds;
    keeper.ran(first, keeper.slotFor(first, plan.order), 30);
    expect(keeper.slotFor(second, plan.order.slice(1)).maxSeconds).toBeLessThan(before);
  });
});
