import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { confirmPlan, saysYes } from './confirm-plan.js';

const capture = () => {
  const lines: string[] = [];
  return { lines, output: { out: (text: string) => lines.push(text), err: (text: string) => lines.push(text) } };
};

/** A terminal as readline sees one: a stream that says it is a TTY, with the person's answer typed into it. */
function terminal(answer: string | undefined) {
  const input = Object.assign(new PassThrough(), { isTTY: true });
  const prompt = Object.assign(new PassThrough(), { isTTY: true });
  let shown = '';
  let answered = false;
  prompt.on('data', (chunk: Buffer) => {
    shown += chunk.toString();
    // Once: readline echoes what is typed to the terminal, which would type it again.
    if (answer !== undefined && !answered && shown.includes('Go ahead?')) {
      answered = true;
      input.write(`${answer}\n`);
    }
  });
  return { streams: { input, prompt }, shown: () => shown };
}

describe('the plan before a run', () => {
  it('is printed, and nobody is asked, without a terminal or with --yes', async () => {
    const { lines, output } = capture();
    const pipe = { input: new PassThrough(), prompt: new PassThrough() };
    await expect(confirmPlan('Copies test files.', false, output, pipe)).resolves.toBe(false);
    const atTerminal = terminal(undefined);
    await expect(confirmPlan('Copies test files.', true, output, atTerminal.streams)).resolves.toBe(false);
    expect(atTerminal.shown()).toBe('');
    expect(lines).toEqual(['Plan: Copies test files.', 'Plan: Copies test files.']);
  });

  it('asks at a terminal; Enter or y goes ahead, n stops before anything is written', async () => {
    const { output } = capture();
    const yes = terminal('');
    await expect(confirmPlan('Copies.', false, output, yes.streams)).resolves.toBe(true);
    expect(yes.shown()).toContain('Go ahead? [Y/n] ');
    await expect(confirmPlan('Copies.', false, output, terminal('n').streams)).rejects.toThrow(/Not started: nothing was written/);
    expect(['', 'y', 'Yes', ' YES '].every(saysYes)).toBe(true);
    expect(['n', 'no', 'nope', 'x'].some(saysYes)).toBe(false);
  });
});
