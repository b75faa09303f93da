// A capacity run's sentences, said once for every place that shows the run
// (the Capacity view, the CLI, the HTML and PDF): the knee and the peak,
// measured and modelled, and the server the model took.

import type { CapacityResult } from '../contract/capacity.js';
import type { Report } from '../contract/report.js';
import type { ServerProfileId } from '../model/server-profiles.js';
import { SERVER_PROFILES } from '../model/server-profiles.js';
import { serverSeenText } from './summary.js';

const people = (count: number) => `${count} ${count === 1 ? 'person' : 'people'}`;
const mbps = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

/** The knee and the peak, measured and modelled, in one sentence. */
export function kneeText(result: CapacityResult): string {
  const share = `${Math.round(result.knee.share * 100)}% of what one person moved alone`;
  const measured =
    result.knee.users === null
      ? `No knee within these steps (each person who joined still added at least ${share})`
      : `The knee is at ${people(result.knee.users)} (one more adds less than ${share})`;
  const model = result.expectedKnee
    ? `; the model puts ${result.expectedKnee.users === null ? 'no knee' : `it at ${people(result.expectedKnee.users)}`} and the peak at ${mbps(result.expectedKnee.peakMbps)} Mb/s`
    : '';
  return `${measured}; the peak is ${mbps(result.knee.peakMbps)} Mb/s at ${people(result.knee.peakUsers)}${model}.`;
}

/**
 * The server the model took: the profile named, and where the run's copies
 * were granted fewer SMB2 credits than that profile allows, the credits they
 * were granted (the model used those). Empty where the run had no model.
 */
export function modelServerText(result: CapacityResult): string {
  if (!result.expectedKnee) return '';
  const profile = SERVER_PROFILES[result.server];
  const granted = result.negotiated.creditsGranted;
  if (granted === undefined || granted >= profile.smb2.creditsMax) return `The model takes the server as ${profile.label}.`;
  return (
    `The model takes the server as this run saw it: ${profile.label}, except that it granted each person ${granted} SMB2 credits at once ` +
    `(the profile allows ${profile.smb2.creditsMax}).`
  );
}

/**
 * Under the Capacity form's server, while the form is still on the share
 * just assessed: the server as that assessment saw it (e.g. "Samba, which
 * granted at most 16 SMB credits"), and that the run goes by what its own
 * copies are granted, so the profile's default is not what the model will
 * assume.
 */
export function capacityServerHint(form: { readonly share: string; readonly server: ServerProfileId }, report: Report | undefined): string | undefined {
  if (!report || form.share.trim() !== report.target.share) return undefined;
  return `The assessment of this share saw ${serverSeenText(report, form.server)}. The run reads the credits its own copies are granted, and the model takes the server so.`;
}
