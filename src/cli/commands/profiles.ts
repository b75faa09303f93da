// pipefill profiles: the ids the other commands accept.

import type { PipefillApi } from '../../contract/api.js';
import { formatBytes, formatDuration, formatRate } from '../../model/units.js';
import { parseOptions } from '../args.js';
import type { Output } from '../output.js';
import { printJson } from '../output.js';
import { formatTable } from '../table.js';

export const PROFILES_USAGE = 'pipefill profiles [--json]   client and server profiles and link presets';

export async function profilesCommand(argv: readonly string[], api: PipefillApi, output: Output): Promise<void> {
  const { values } = parseOptions(argv, { json: { type: 'boolean' } }, PROFILES_USAGE);
  const catalogue = await api.catalogue({});
  if (values.json) {
    printJson(output, catalogue);
    return;
  }
  output.out(
    [
      'Client profiles',
      formatTable(
        ['id', 'protocol', 'dialect', 'description'],
        catalogue.clients.map((c) => [c.id, c.protocol, c.dialect, c.label]),
      ),
      '',
      'Server profiles',
      formatTable(
        ['id', 'description'],
        catalogue.servers.map((s) => [s.id, s.label]),
      ),
      '',
      'Link presets',
      formatTable(
        ['id', 'bandwidth', 'rtt', 'buffer', 'description'],
        catalogue.presets.map((p) => [p.id, formatRate(p.bandwidthBitsPerSecond), formatDuration(p.rttMs), formatBytes(p.bufferBytes), p.label]),
        ['left', 'right', 'right', 'right', 'left'],
      ),
    ].join('\n'),
  );
}
