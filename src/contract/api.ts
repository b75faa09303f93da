// The one typed contract between every front end (CLI, local web mode,
// Electron preload) and the services: method name -> input and output
// schemas. Transports validate both sides with these schemas, so a message
// that does not fit is refused at the boundary with a readable error.

import { z } from 'zod';
import { CapacityInputSchema, CapacityResultSchema } from './capacity.js';
import type { ProgressEvent } from './copy-test.js';
import { CopyTestInputSchema, CopyTestResultSchema } from './copy-test.js';
import {
  HistoryDeleteInputSchema,
  HistoryDeleteResultSchema,
  HistoryListInputSchema,
  HistoryListResultSchema,
  HistoryRunInputSchema,
  HistorySaveInputSchema,
  HistorySaveResultSchema,
  HistoryStoreInputSchema,
  HistoryStoreResultSchema,
  HistoryTrendInputSchema,
  SiteTrendSchema,
  StoredRunSchema,
} from './history.js';
import { HostInfoSchema } from './host-info.js';
import { ExportDocumentInputSchema, ExportDocumentResultSchema } from './export.js';
import { ApplyInputSchema, ApplyOutcomeSchema } from './apply.js';
import {
  OpenDocumentInputSchema,
  OpenDocumentSchema,
  OpenDocumentsAddInputSchema,
  OpenDocumentsAddResultSchema,
  OpenDocumentsSchema,
} from './open-documents.js';
import { SettingsSchema, SettingsUpdateSchema } from './settings.js';
import { RecommendApiInputSchema, RecommendResultSchema } from './recommend.js';
import { CatalogueSchema, PlanInputSchema, PlanResultSchema } from './plan.js';
import { ProbeInputSchema, ProbeResultSchema } from './probe.js';
import { AssessInputSchema, ReportSchema } from './report.js';
import { CaptureAnalysisSchema, CaptureInputSchema } from './capture.js';
import { PredictionResultSchema, ScenarioInputSchema } from './scenario.js';

export const apiContract = {
  predict: { input: ScenarioInputSchema, output: PredictionResultSchema },
  predictBatch: { input: z.array(ScenarioInputSchema), output: z.array(PredictionResultSchema) },
  plan: { input: PlanInputSchema, output: PlanResultSchema },
  catalogue: { input: z.object({}).strict(), output: CatalogueSchema },
  copyTest: { input: CopyTestInputSchema, output: CopyTestResultSchema },
  probe: { input: ProbeInputSchema, output: ProbeResultSchema },
  assess: { input: AssessInputSchema, output: ReportSchema },
  capacity: { input: CapacityInputSchema, output: CapacityResultSchema },
  hostInfo: { input: z.object({}).strict(), output: HostInfoSchema },
  recommend: { input: RecommendApiInputSchema, output: RecommendResultSchema },
  // A packet capture of a real copy (src/contract/capture.ts): read on the services' machine, set against the model.
  analyzeCapture: { input: CaptureInputSchema, output: CaptureAnalysisSchema },
  // The site history (src/store): a finished run is saved by the front end that ran it, unless the person said not to.
  historySave: { input: HistorySaveInputSchema, output: HistorySaveResultSchema },
  historyList: { input: HistoryListInputSchema, output: HistoryListResultSchema },
  historyRun: { input: HistoryRunInputSchema, output: StoredRunSchema },
  historyTrend: { input: HistoryTrendInputSchema, output: SiteTrendSchema },
  historyDelete: { input: HistoryDeleteInputSchema, output: HistoryDeleteResultSchema },
  historyStore: { input: HistoryStoreInputSchema, output: HistoryStoreResultSchema },
  // The documents the views have open (src/contract/open-documents.ts), so a reload shows them again.
  openDocuments: { input: z.object({}).strict(), output: OpenDocumentsSchema },
  openDocument: { input: OpenDocumentInputSchema, output: OpenDocumentSchema },
  openDocumentsAdd: { input: OpenDocumentsAddInputSchema, output: OpenDocumentsAddResultSchema },
  // A report or capacity run as HTML, PDF (printed by the services' Chromium), CSV or JSON, for the app's export buttons.
  exportDocument: { input: ExportDocumentInputSchema, output: ExportDocumentResultSchema },
  // What the services remember between runs (src/contract/settings.ts): keeping runs, and the team store historyStore set.
  settings: { input: z.object({}).strict(), output: SettingsSchema },
  settingsUpdate: { input: SettingsUpdateSchema, output: SettingsSchema },
  // Recommendations applied to this machine (src/contract/apply.ts): local only, no transport serves it (transport.ts).
  apply: { input: ApplyInputSchema, output: ApplyOutcomeSchema },
} as const;

export type ApiMethod = keyof typeof apiContract;
export type ApiInput<M extends ApiMethod> = z.input<(typeof apiContract)[M]['input']>;
/** The input after validation (defaults applied). */
export type ApiParsedInput<M extends ApiMethod> = z.output<(typeof apiContract)[M]['input']>;
export type ApiOutput<M extends ApiMethod> = z.output<(typeof apiContract)[M]['output']>;

/** For long calls: cancel them, and hear how far they are. */
export interface CallOptions {
  readonly signal?: AbortSignal;
  readonly onProgress?: (event: ProgressEvent) => void;
  /**
   * When the caller's clock started, as performance.now() counts: an
   * assessment's time budget runs from it (the CLI passes 0, its process's
   * start, so `--quick` holds the whole command to 20 s). Local calls only.
   */
  readonly startedAtMs?: number;
}

/** What every transport exposes: one async function per contract entry. */
export type PipefillApi = { readonly [M in ApiMethod]: (input: ApiInput<M>, options?: CallOptions) => Promise<ApiOutput<M>> };
