// The Planner's chart, as a configuration (pure): every generation's
// predicted time for every test, in seconds, or in minutes where the longest
// copy runs past two of them.

import type { ChartConfiguration } from 'chart.js';
import type { PlanResult } from '../../../../src/contract/plan.js';
import { adviceTestText, clientShortLabel } from '../../../../src/presentation/test-labels.js';

export function plannerChart(result: PlanResult, colours: readonly string[]): ChartConfiguration {
  const clients = [...new Set(result.cells.map((cell) => cell.client))];
  const tests = [...new Set(result.cells.map((cell) => `${cell.op} ${cell.workload}`))];
  // Minutes where the longest copy runs past two of them: ticks at whole minutes, not at "16 min 40 s".
  const inMinutes = Math.max(...result.cells.map((cell) => cell.seconds)) > 120;
  const scale = inMinutes ? 60 : 1;
  return {
    type: 'bar',
    data: {
      labels: tests.map(adviceTestText),
      datasets: clients.map((client, index) => ({
        label: clientShortLabel(client),
        data: tests.map((test) => {
          const seconds = result.cells.find((cell) => cell.client === client && `${cell.op} ${cell.workload}` === test)?.seconds;
          return seconds === undefined ? null : seconds / scale;
        }),
        backgroundColor: colours[index % colours.length] ?? '',
      })),
    },
    // Linear from zero: a person compares these times (a log axis made 26 s and 5 min look alike); the ticks read as times.
    options: {
      scales: {
        y: { type: 'linear', beginAtZero: true, title: { display: true, text: inMinutes ? 'minutes' : 'seconds' } },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  };
}
