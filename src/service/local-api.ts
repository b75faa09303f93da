// The in-process implementation of the contract. The CLI calls it directly;
// the web host and Electron's main process expose the same object.

import { hostname, userInfo } from 'node:os';

import type { ApiInput, ApiMethod, ApiOutput, ApiParsedInput, CallOptions, PipefillApi } from '../contract/api.js';
import { apiContract } from '../contract/api.js';
import type { RunDocument } from '../contract/history.js';
import { runDocumentOf } from '../contract/history.js';
import { takePgPassword } from '../platform/pg-password.js';
import { readSettings, settingsPath, writeSettings } from '../store/settings-file.js';
import type { HostInfo } from '../contract/host-info.js';
import { catalogue, planFromInput } from '../contract/plan.js';
import { recommendFromInput } from '../contract/recommend.js';
import { copyFraction, throttleProgress } from '../contract/progress.js';
import { predictScenario } from '../contract/scenario.js';
import { API_METHODS } from '../contract/transport.js';
import { parseInput } from '../contract/validate.js';
import { PipefillInputError } from '../model/errors.js';
import { parseHostPort } from '../model/share-path.js';
import { shareTargetOf } from '../contract/share-login.js';
import { IPERF_DEFAULT_PORT } from '../probe/bandwidth.js';
import { probePath } from '../probe/probe-path.js';
import { readLinuxSysctlValues, readSmbConfValues } from '../apply/current-values.js';
import { pipefillVersion } from '../platform/package-root.js';
import { assess } from '../assess/assess.js';
import { runCapacity } from '../capacity/capacity.js';
import { runCopyTest } from '../copy/copy-test.js';
import { credentialsFrom } from '../smb/session.js';
import type { HistoryStore, SavedBy } from '../store/history-store.js';
import type { StoreSpec } from '../store/open-store.js';
import { openStore, parseStoreSpec } from '../store/open-store.js';
import { siteTrend } from '../presentation/site-trend.js';
import { OpenDocumentsHolder } from './open-documents.js';
import { exportDocumentAsync, exportFileName, localePaper, mediaTypeOf } from '../report/export.js';
import { runApply } from '../apply/run-apply.js';
import { heldTicketPrincipal } from '../platform/kerberos-ticket.js';
import { analyzeCapture } from '../capture/analyze-capture.js';

export interface LocalApiOptions {
  /** Which shell serves this API. */
  readonly shell?: HostInfo['shell'];
  /** The site history: `--store`, PIPEFILL_STORE, or the embedded default in this user's data folder. */
  readonly store?: StoreSpec;
  /** The services' settings file (default: settings.json in this user's data folder). */
  readonly settingsFile?: string;
}

/** The store, opened on first use and kept open; a failed open is tried again on the next call; another can take its place. */
class StoreHolder {
  private opening: Promise<HistoryStore> | undefined;
  /** Undefined: PIPEFILL_STORE or the default, read on first use, so a bad PIPEFILL_STORE fails the history and nothing else. */
  constructor(
    private spec: StoreSpec | undefined,
    private readonly settingsFile: string,
  ) {}

  get(): Promise<HistoryStore> {
    this.opening ??= Promise.resolve()
      .then(() => openStore(this.spec ?? defaultStoreSpec(this.settingsFile)))
      .catch((error: unknown) => {
        this.opening = undefined;
        throw error;
      });
    return this.opening;
  }

  /** Opens `spec` first (so a store that cannot be used leaves the current one in place), then closes the old one. */
  async use(spec: StoreSpec): Promise<string> {
    const next = await openStore(spec);
    const previous = this.opening;
    this.spec = spec;
    this.opening = Promise.resolve(next);
    await previous?.then((store) => store.close()).catch(() => undefined);
    return next.where;
  }

  /** Closes the store if one was opened (a failed open has nothing to close); the next call opens it again. */
  async close(): Promise<void> {
    const opened = this.opening;
    this.opening = undefined;
    await opened?.then((store) => store.close()).catch(() => undefined);
  }
}

/**
 * The store when none was named for this process: PIPEFILL_STORE, else the
 * team store the person chose in the app (the services' settings), else this
 * computer's.
 */
function defaultStoreSpec(settingsFile: string): StoreSpec {
  if (process.env.PIPEFILL_STORE) return parseStoreSpec(undefined);
  const { teamStore } = readSettings(settingsFile);
  return parseStoreSpec(teamStore ?? undefined);
}

/** Who saves a run: this account on this machine (never a share's login or a password). */
function savedBy(): SavedBy {
  let ranBy = 'unknown';
  try {
    ranBy = userInfo().username;
  } catch {
    // No passwd entry (a container's arbitrary uid): keep 'unknown'.
  }
  return { ranBy, machine: hostname() };
}

/** A document sent to be kept (history) or kept open: checked and bounded, else a readable refusal. */
function documentToSave(json: unknown): RunDocument {
  try {
    return runDocumentOf(json);
  } catch (error) {
    throw new PipefillInputError(
      `That is not a Pipefill report or capacity run: ${error instanceof Error ? error.message.slice(0, 300) : String(error)}`,
      'Save what `pipefill assess --out` or `pipefill capacity --out` wrote, or what the app exported as JSON.',
    );
  }
}

type Handlers = { readonly [M in ApiMethod]: (input: ApiParsedInput<M>, options: CallOptions) => ApiOutput<M> | Promise<ApiOutput<M>> };

function createHandlers(host: LocalApiOptions, holder: StoreHolder): Handlers {
  const settingsFile = host.settingsFile ?? settingsPath();
  const store = () => holder.get();
  const open = new OpenDocumentsHolder();
  return {
    predict: (input) => predictScenario(input),
    predictBatch: (inputs) =>
      inputs.map((input, index) => {
        try {
          return predictScenario(input);
        } catch (error) {
          if (error instanceof PipefillInputError) throw new PipefillInputError(`Scenario #${index + 1}: ${error.message}`, error.hint);
          throw error;
        }
      }),
    plan: (input) => planFromInput(input),
    catalogue: () => catalogue(),
    copyTest: (input, options) =>
      runCopyTest(
        {
          share: shareTargetOf(input),
          credentials: credentialsFrom(input),
          profile: input.profile,
          op: input.op,
          workload: input.workload,
          ...(input.verify === undefined ? {} : { verify: input.verify }),
          ...(input.budgetSeconds === undefined ? {} : { budget: { maxSeconds: input.budgetSeconds } }),
        },
        {
          ...(options.signal ? { signal: options.signal } : {}),
          ...(options.onProgress
            ? {
                onProgress: (progress) =>
                  options.onProgress?.({
                    step: progress.phase,
                    bytes: progress.bytes,
                    totalBytes: progress.totalBytes,
                    fraction: copyFraction(progress.phase, progress.bytes, progress.totalBytes),
                    ...(progress.live ? { live: progress.live } : {}),
                  }),
              }
            : {}),
        },
      ),
    probe: (input, options) =>
      probePath(shareTargetOf(input), credentialsFrom(input), {
        ...(input.iperf === undefined ? {} : { iperf: parseHostPort(input.iperf, IPERF_DEFAULT_PORT) }),
        ...(input.seconds === undefined ? {} : { seconds: input.seconds }),
        ...(options.signal ? { signal: options.signal } : {}),
      }),
    // A run's result stays open in the services as it ends, so a page reloaded during or after the run shows it.
    assess: async (input, options) => {
      // Assessed again: the share's report open here is the one its promises are checked against (unless one is given).
      const since = input.since ?? open.latestAssessmentOf(input.share.text);
      const report = await assess(since ? { ...input, since } : input, options);
      open.add({ kind: 'assessment', report }, true);
      return report;
    },
    capacity: async (input, options) => {
      const result = await runCapacity(input, options);
      open.add({ kind: 'capacity', capacity: result }, true);
      return result;
    },
    analyzeCapture: (input, options) => analyzeCapture(input, options.signal),
    openDocuments: () => open.get(),
    openDocument: (input) => open.document(input.id),
    apply: async (input) => runApply(input),
    exportDocument: async (input) => {
      const document = documentToSave(input.document);
      const content = await exportDocumentAsync(document, input.format, input.paper ?? localePaper());
      return {
        fileName: exportFileName(document, input.format),
        mediaType: mediaTypeOf(input.format),
        base64: (typeof content === 'string' ? Buffer.from(content, 'utf8') : content).toString('base64'),
      };
    },
    openDocumentsAdd: (input) => ({ open: open.add(documentToSave(input.document), input.show) }),
    recommend: (input) => {
      // Start from what is set today where it can be read: the smb.conf given, and this machine when it is the Linux client.
      const current = {
        ...(input.client === 'linux-cifs' ? readLinuxSysctlValues() : {}),
        ...(input.smbConf === undefined ? {} : readSmbConfValues(input.smbConf)),
        ...input.current,
      };
      return recommendFromInput({ ...input, current });
    },
    historySave: async (input) => {
      // The document first: one that is not a report is refused without touching the store.
      const document = documentToSave(input.document);
      const history = await store();
      return { ...(await history.save(document, savedBy())), where: history.where };
    },
    historyList: async (input) => {
      const history = await store();
      return { where: history.where, runs: await history.list(input) };
    },
    historyRun: async (input) => {
      const run = await (await store()).get(input.id);
      if (!run) throw new PipefillInputError(`There is no run ${input.id} in the history.`, 'List the runs with `pipefill history list`.');
      return run;
    },
    historyTrend: async (input) => siteTrend(await (await store()).siteTrendData(input.site)),
    historyDelete: async (input) => ({ deleted: await (await store()).delete(input.id) }),
    historyStore: async (input) => {
      // Opened first: a store that cannot be used is neither switched to nor remembered.
      const where = await holder.use(parseStoreSpec(input.address ?? ''));
      writeSettings({ ...readSettings(settingsFile), teamStore: input.address }, settingsFile);
      return { where };
    },
    settings: () => readSettings(settingsFile),
    settingsUpdate: (input) =>
      writeSettings({ ...readSettings(settingsFile), ...(input.keepHistory === undefined ? {} : { keepHistory: input.keepHistory }) }, settingsFile),
    // A demo is the front end's to name (src/contract/served-as.ts): `pipefill ui` starts it, not the service.
    hostInfo: () => ({ shell: host.shell ?? 'cli', version: pipefillVersion(), ...heldTicket() }),
  };
}

async function call<M extends ApiMethod>(handlers: Handlers, method: M, input: ApiInput<M>, options: CallOptions = {}): Promise<ApiOutput<M>> {
  // Validate here too: the CLI and the web host hand over raw user input.
  const parsed = parseInput(apiContract[method].input, input, `${method} input`) as ApiParsedInput<M>;
  const handler = handlers[method] as (value: ApiParsedInput<M>, options: CallOptions) => ApiOutput<M> | Promise<ApiOutput<M>>;
  // Fast copies complete hundreds of requests a second: ten events a second are plenty for any front end.
  const onProgress = options.onProgress ? throttleProgress(options.onProgress) : undefined;
  return handler(parsed, { ...(options.signal ? { signal: options.signal } : {}), ...(onProgress ? { onProgress } : {}) });
}

/** The services for one process, and the way to let go of what they opened (the history store's connections). */
export interface LocalServices {
  readonly api: PipefillApi;
  /** Closes the site history if it was opened: a team store's idle connections would keep a CLI process alive. */
  close(): Promise<void>;
}

export function openLocalServices(host: LocalApiOptions = {}): LocalServices {
  // From here on no child this process starts inherits a team database's password (src/platform/pg-password.ts).
  takePgPassword();
  const holder = new StoreHolder(host.store, host.settingsFile ?? settingsPath());
  const handlers = createHandlers(host, holder);
  const api = Object.fromEntries(
    API_METHODS.map((method) => [method, (input: never, options?: CallOptions) => call(handlers, method, input, options)]),
  ) as unknown as PipefillApi;
  return { api, close: () => holder.close() };
}

/** The services for a process that keeps them as long as it runs (the app, the web host). */
export function createLocalApi(host: LocalApiOptions = {}): PipefillApi {
  return openLocalServices(host).api;
}

/** The person's Kerberos ticket, for HostInfo: asked each time (a kinit while the app runs counts). */
function heldTicket(): { kerberos?: { principal: string } } {
  const principal = heldTicketPrincipal();
  return principal === undefined ? {} : { kerberos: { principal } };
}
