// Planner: no share needed. A preset or sliders for bandwidth, RTT and loss;
// every generation's predicted time for the large file and the directory
// set, recomputed in the page as the sliders move.

import { adviceTestText, copyRateText } from '../../../../src/presentation/test-labels.js';
import { Term } from './explained.js';
import { useMemo } from 'react';
import type { Catalogue, PlanResult } from '../../../../src/contract/plan.js';
import { formatBytes, formatDuration, formatRate } from '../../../../src/model/units.js';
import { ChartCanvas, SERIES_COLOURS } from '../charts/chart-canvas.js';
import { download } from '../download.js';
import type { PlannerSecurity, PlannerSettings } from '../state/planner.js';
import {
  asCustom,
  bandwidthToSlider,
  plan,
  planCsv,
  PLANNER_BUFFER_SHARES,
  PLANNER_CHANNELS,
  PLANNER_MTUS,
  PLANNER_TUNNEL_LABELS,
  plannerHash,
  settingsFromPreset,
  SLIDER_STEPS,
  sliderToBandwidth,
} from '../state/planner.js';
import { LAYER_LABELS } from '../state/results.js';
import { plannerChart } from '../state/planner-chart.js';
import { ProfileSelect } from './profile-select.js';

export interface PlannerViewProps {
  readonly catalogue: Catalogue | undefined;
  readonly settings: PlannerSettings;
  readonly onChange: (settings: PlannerSettings) => void;
}

/** The plan's packets where a tunnel makes them smaller than Ethernet's. */
function tunnelHint(mtuBytes: number | undefined): string {
  const label = mtuBytes === undefined ? undefined : (PLANNER_TUNNEL_LABELS as Readonly<Record<number, string>>)[mtuBytes];
  return mtuBytes === undefined || mtuBytes === 1500 ? '' : `, ${mtuBytes}-byte packets${label ? ` (${label})` : ''}`;
}

/** The path's tunnel, by its MTU: what each packet carries less than Ethernet's. */
function TunnelSelect({ value, onChange }: { readonly value: number; readonly onChange: (mtuBytes: number) => void }) {
  return (
    <>
      <label htmlFor="mtu">Tunnel (path MTU)</label>
      <select id="mtu" value={value} onChange={(e) => onChange(Number(e.target.value))}>
        {PLANNER_MTUS.map((mtu) => (
          <option key={mtu} value={mtu}>
            {PLANNER_TUNNEL_LABELS[mtu]} ({mtu} bytes)
          </option>
        ))}
      </select>
    </>
  );
}

export function PlannerView({ catalogue, settings, onChange }: PlannerViewProps) {
  const result = useMemo(() => plan(settings), [settings]);
  // Moving a slider makes the link a custom one.
  const change = (patch: Partial<PlannerSettings>) => onChange(asCustom({ ...settings, ...patch }));
  const chart = useMemo(() => plannerChart(result, SERIES_COLOURS), [result]);

  return (
    <>
      <h2>Planner</h2>
      <section className="panel">
        <label htmlFor="preset">Link preset</label>
        <select
          id="preset"
          value={settings.preset ?? ''}
          onChange={(e) => {
            const preset = settingsFromPreset(e.target.value, settings.server);
            if (preset) onChange(preset);
          }}
        >
          <option value="" disabled>
            Custom link
          </option>
          {catalogue?.presets.map((preset) => (
            <option key={preset.id} value={preset.id}>
              {preset.label} ({formatRate(preset.bandwidthBitsPerSecond)}, {preset.rttMs} ms)
            </option>
          ))}
        </select>
        <label htmlFor="bandwidth">Bandwidth: {formatRate(settings.bandwidthBitsPerSecond)}</label>
        <input
          id="bandwidth"
          type="range"
          min={0}
          max={SLIDER_STEPS}
          value={bandwidthToSlider(settings.bandwidthBitsPerSecond)}
          onChange={(e) => change({ bandwidthBitsPerSecond: sliderToBandwidth(Number(e.target.value)) })}
        />
        <label htmlFor="rtt">Round-trip time: {settings.rttMs} ms</label>
        <input id="rtt" type="range" min={1} max={700} value={settings.rttMs} onChange={(e) => change({ rttMs: Number(e.target.value) })} />
        <label htmlFor="loss">Packet loss: {settings.lossPercent}%</label>
        <input
          id="loss"
          type="range"
          min={0}
          max={50}
          value={settings.lossPercent * 10}
          onChange={(e) => change({ lossPercent: Number(e.target.value) / 10 })}
        />
        <label htmlFor="buffer">Bottleneck buffer</label>
        <select id="buffer" value={settings.bufferShare ?? 1} onChange={(e) => change({ bufferShare: Number(e.target.value) })}>
          {PLANNER_BUFFER_SHARES.map((share) => (
            <option key={share} value={share}>
              {share === 1 ? '1 BDP (deep enough for one flow)' : share === 0 ? 'none' : `${share} BDP`} ({formatBytes(share * result.link.bdpBytes)})
            </option>
          ))}
        </select>
        <TunnelSelect value={settings.mtuBytes ?? 1500} onChange={(mtuBytes) => change({ mtuBytes })} />
        <label htmlFor="plan-server">Server</label>
        <ProfileSelect id="plan-server" value={settings.server} options={catalogue?.servers} onChange={(server) => onChange({ ...settings, server })} />
        <label htmlFor="security">Signing and encryption</label>
        <select id="security" value={settings.security ?? 'auto'} onChange={(e) => onChange({ ...settings, security: e.target.value as PlannerSecurity })}>
          <option value="auto">As each client and this server negotiate</option>
          <option value="signing">Every session signed</option>
          <option value="encryption">Every session encrypted</option>
        </select>
        <label htmlFor="channels">Connections per session (SMB multichannel)</label>
        <select id="channels" value={settings.channels ?? 1} onChange={(e) => onChange({ ...settings, channels: Number(e.target.value) })}>
          {PLANNER_CHANNELS.map((count) => (
            <option key={count} value={count}>
              {count}
            </option>
          ))}
        </select>
        <p className="hint">
          {result.link.label}: BDP {formatBytes(result.link.bdpBytes)}, bottleneck buffer {formatBytes(result.link.bufferBytes)}
          {tunnelHint(result.link.mtuBytes)}. Times come from Pipefill's model, calibrated on NetApp TR-3869's measurements.
        </p>
        {result.refused.length > 0 && (
          <ul className="hint" data-testid="planner-refused">
            {result.refused.map((refusal) => (
              <li key={refusal.client}>{refusal.reason}</li>
            ))}
          </ul>
        )}
        <div className="row">
          <button
            type="button"
            className="secondary"
            onClick={() => void navigator.clipboard?.writeText(`${window.location.origin}${window.location.pathname}${plannerHash(settings)}`)}
          >
            Copy a link to this plan
          </button>
          <button type="button" className="secondary" onClick={() => download('pipefill-plan.csv', planCsv(result), 'text/csv')}>
            Export (CSV)
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => download('pipefill-plan.json', `${JSON.stringify(result, null, 2)}\n`, 'application/json')}
          >
            Export (JSON)
          </button>
        </div>
      </section>
      <section className="panel">
        <h3>Predicted times</h3>
        <ChartCanvas config={chart} label="Predicted seconds for every client generation and test" height={320} testId="chart-planner" />
      </section>
      <section className="panel">
        <PlannerTable cells={result.cells} />
      </section>
    </>
  );
}

/** Every generation's predicted time and rate for every test, with the layer that limits it. */
function PlannerTable({ cells }: { readonly cells: PlanResult['cells'] }) {
  return (
    <table data-testid="planner-table">
      <thead>
        <tr>
          <th>Client</th>
          <th>Test</th>
          <th className="num">Time</th>
          <th className="num">Rate</th>
          <th>Protection</th>
          <th>Limited by</th>
        </tr>
      </thead>
      <tbody>
        {cells.map((cell) => (
          <tr
            key={`${cell.client}-${cell.op}-${cell.workload}`}
            data-client={cell.client}
            data-op={cell.op}
            data-workload={cell.workload}
            data-seconds={cell.seconds}
          >
            <td>{cell.clientLabel}</td>
            <td>{adviceTestText(`${cell.op} ${cell.workload}`)}</td>
            <td className="num">{formatDuration(cell.seconds * 1000)}</td>
            <td className="num">{copyRateText(cell.throughputMbps * 1e6)}</td>
            <td>{cell.protection === 'none' ? '—' : cell.protection}</td>
            <td>
              <Term label={LAYER_LABELS[cell.limitedBy]} text={cell.explanation} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
