// Heed — types of `heed/worker`: the same Translator as `heed`, running in a dedicated worker
// (a browser module worker, or a Node worker_threads worker).

import type { LoadOptions, Translator } from './heed.js';

export { HeedError } from './heed.js';
export type {
  BatchFailure,
  HeadExplanation,
  HeadLocation,
  LoadOptions,
  ModelInfo,
  StepEvent,
  TranslateOptions,
  TranslationResult,
  Translator,
} from './heed.js';

export interface SpawnOptions extends LoadOptions {
  /** the worker script (default: worker.js next to this module) */
  workerUrl?: string | URL;
}

/** Starts a worker and loads the model in it. The result's dispose() terminates the worker,
 *  which frees all its memory; until then (under Node) an idle worker does not keep the
 *  process alive. Step events and results arrive as messages; an AbortSignal rejects the call
 *  at once with 'ABORTED' and cancels the worker's job. */
export function spawnTranslator(options: SpawnOptions): Promise<Translator>;
