// The Recommendations view: recommendations grouped by where they are set
// (the client, the server, the copy tool), and each group as a script to copy
// or save. Pure.

import type { RecommendationOut, RecommendResult } from '../../../../src/contract/recommend.js';

export type Group = 'client' | 'server' | 'copy tool';

const GROUP_OF: Readonly<Record<RecommendationOut['platform'], Group>> = {
  'windows-client': 'client',
  linux: 'client',
  macos: 'client',
  'windows-server': 'server',
  samba: 'server',
  ontap: 'server',
  'copy-tool': 'copy tool',
};

export function grouped(result: RecommendResult): { group: Group; items: RecommendationOut[] }[] {
  return (['client', 'server', 'copy tool'] as const)
    .map((group) => ({ group, items: result.recommendations.filter((r) => GROUP_OF[r.platform] === group) }))
    .filter((g) => g.items.length > 0);
}

/** One group's commands as a script, each with why and the expected gain in a comment. */
export function scriptFor(result: RecommendResult, items: readonly RecommendationOut[]): string {
  const header = `# Pipefill recommendations for ${result.client} with a ${result.server} server on ${result.link.bandwidthBitsPerSecond / 1e6} Mb/s, ${result.link.rttMs.toFixed(1)} ms.\n# Review before running; \`pipefill apply\` previews, backs up, verifies and can roll back.`;
  // PowerShell, sh and ONTAP's CLI all take # as a comment.
  const lines = items.map(
    (r) => `# ${r.why}${r.caution ? `\n# Note: ${r.caution}` : ''}\n${r.platform === 'samba' ? `# in smb.conf [global]:\n#   ${r.command}` : r.command}`,
  );
  return `${header}\n\n${lines.join('\n\n')}\n`;
}

/** The file name a group's script is saved as. */
export function scriptName(items: readonly RecommendationOut[]): string {
  return items.some((r) => r.platform.startsWith('windows') || r.platform === 'copy-tool') ? 'pipefill-recommendations.ps1' : 'pipefill-recommendations.sh';
}
