// The contract as one front end serves it: every call answered by the API
// the front end was given, and `hostInfo` saying which front end it is and
// what it started for this run (the demo share). `pipefill ui` serves the
// same API instance every other command calls, or the branch demo's service
// process, through this one decoration rather than an API of its own.

import type { PipefillApi } from './api.js';
import type { HostInfo } from './host-info.js';

export interface ServedAs {
  readonly shell: HostInfo['shell'];
  readonly demo?: HostInfo['demo'];
}

/**
 * `calls` with its hostInfo from `about` (this process's own: the Kerberos
 * ticket the person holds here, the version), marked as `served` says. A
 * demo's service process answers the copies; this process knows the page.
 */
export function servedAs(calls: PipefillApi, served: ServedAs, about: PipefillApi = calls): PipefillApi {
  return {
    ...calls,
    hostInfo: async (input, options) => {
      const own = { ...(await about.hostInfo(input, options)) };
      // The demo is this front end's to name: the API it decorates knows of none, or of another run's.
      delete own.demo;
      return { ...own, shell: served.shell, ...(served.demo ? { demo: served.demo } : {}) };
    },
  };
}
