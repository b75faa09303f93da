// Which folder of src/ may import which: the allow-list eslint.config.js
// enforces, and docs/architecture.md's layer diagram is drawn from
// (scripts/docs-layers.test.ts). A module of its own so the tests read the
// same list the linter does.
// Only Node built-ins here (none needed).

/** The folders of src/ below smb, held by the regex rules in eslint.config.js: the project layers each may import. */
export const BASE_LAYERS = { model: [], platform: [], advice: ['model'], contract: ['model', 'advice'] };

/**
 * Each folder of src/ from smb up, and the project layers it may import (an
 * allow-list, as VS Code's layer rules are). docs/architecture.md's layer
 * diagram is drawn from this and BASE_LAYERS (scripts/docs-layers.test.ts).
 */
export const ALLOWED_LAYERS = {
  // What a person reads of the contract's documents: report views, ticket summaries, comparisons, CSV rows.
  presentation: ['model', 'advice', 'contract'],
  smb: ['model', 'platform'],
  // The copy emulator: how each client generation copies, over the protocol library below it.
  copy: ['model', 'contract', 'platform', 'smb'],
  probe: ['model', 'contract', 'platform', 'smb', 'copy'],
  apply: ['model', 'advice', 'contract', 'platform'],
  report: ['model', 'contract', 'presentation'],
  store: ['model', 'contract', 'platform'],
  lab: ['model', 'contract', 'platform', 'smb', 'copy'],
  // Packet captures of real copies, read and set against the model (pcap, TCP, SMB2 framing).
  capture: ['model', 'contract', 'platform', 'smb'],
  capacity: ['model', 'contract', 'platform', 'smb', 'copy', 'probe', 'apply'],
  assess: ['model', 'contract', 'presentation', 'platform', 'smb', 'copy', 'probe', 'apply', 'store'],
  service: ['model', 'advice', 'contract', 'presentation', 'platform', 'smb', 'copy', 'probe', 'apply', 'report', 'store', 'assess', 'capacity', 'capture'],
  web: ['model', 'contract', 'platform', 'service'],
  cli: ['model', 'advice', 'contract', 'presentation', 'platform', 'probe', 'apply', 'report', 'store', 'lab', 'service', 'web'],
};
