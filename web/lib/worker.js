// The worker script behind spawnTranslator (heed-worker.js): holds one Translator of heed.js
// and answers id-tagged messages, one job at a time. Runs as a browser module worker or a Node
// worker_threads worker. Not an API of its own: talk to it through heed-worker.js.
//
// Messages in:  {id, type: 'load', model | marian, wasmUrl?, compute?, threads?, progress}
//               {id, type: 'translate', text, options, steps, abortable, flag?}
//               {id, type: 'explain', result, where}
//               {type: 'cancel', target}                   (abort job `target`)
//               {type: 'warm', wasmUrl?, threads?}         (instantiate the engine early)
// Messages out: {type: 'ready'} once, then per job {id, type: 'progress' | 'step' | 'result' |
//               'error', ...}; 'error' carries {code, message}.

import { HeedError, transferables } from './common.js';
import { getCore } from './engine.js';
import { loadTranslator } from './heed.js';

async function connect() {
  if (typeof WorkerGlobalScope !== 'undefined' && self instanceof WorkerGlobalScope) {
    return {
      post: (message, transfer) => self.postMessage(message, transfer),
      listen: (handler) => self.addEventListener('message', (e) => handler(e.data)),
    };
  }
  const { parentPort } = await import(/* webpackIgnore: true */ 'node:worker_threads');
  return {
    post: (message, transfer) => parentPort.postMessage(message, transfer),
    listen: (handler) => parentPort.on('message', handler),
  };
}

const port = await connect();
let translator = null;
const jobs = [];
const cancelled = new Set();
let pumping = false;

// why: yielding a macrotask before each job lets queued 'cancel' messages arrive first
const macrotask = () => new Promise((resolve) => setTimeout(resolve, 0));

port.listen((message) => {
  if (message?.type === 'cancel') {
    cancelled.add(message.target);
    return;
  }
  if (message?.type === 'warm') {
    // why: the page's model is still downloading; the engine compiles meanwhile (a failure
    // is reported by the load that follows)
    getCore(message.wasmUrl, message.threads > 1).catch(() => {});
    return;
  }
  jobs.push(message);
  pump();
});

async function pump() {
  if (pumping) return;
  pumping = true;
  while (jobs.length) {
    await macrotask();
    const job = jobs.shift();
    await run(job);
    cancelled.delete(job.id);
  }
  pumping = false;
}

/** A signal-like object: aborted once the job is cancelled (the shared flag is seen mid-run). */
function cancelSignal(job) {
  return {
    get aborted() {
      return cancelled.has(job.id) || (job.flag !== undefined && Atomics.load(job.flag, 0) !== 0);
    },
    reason: undefined,
  };
}

function reply(message) {
  port.post(message, [...transferables(message)]);
}

function engine() {
  if (!translator) throw new HeedError('DISPOSED', 'no model is loaded in this worker');
  return translator;
}

async function run(job) {
  try {
    let value = null;
    if (cancelled.has(job.id)) throw new HeedError('ABORTED', 'the call was aborted');
    switch (job.type) {
      case 'load':
        translator = await loadTranslator({
          ...(job.marian ? { marian: job.marian } : { model: job.model }),
          wasmUrl: job.wasmUrl,
          compute: job.compute,
          threads: job.threads,
          onProgress: job.progress
            ? (fraction, loaded) => port.post({ id: job.id, type: 'progress', fraction, loaded })
            : undefined,
        });
        value = { info: translator.info, limits: translator.limits };
        break;
      case 'translate':
        value = await engine().translate(job.text, {
          ...job.options,
          signal: job.abortable ? cancelSignal(job) : undefined,
          onStep: job.steps ? (event) => reply({ id: job.id, type: 'step', event }) : undefined,
        });
        break;
      case 'explain':
        value = await engine().explainHead(job.result, job.where);
        break;
      default:
        throw new HeedError('INTERNAL', `unknown worker message type '${job.type}'`);
    }
    reply({ id: job.id, type: 'result', value });
  } catch (e) {
    const code = e instanceof HeedError ? e.code : 'INTERNAL';
    port.post({ id: job.id, type: 'error', error: { code, message: String(e?.message ?? e) } });
  }
}

port.post({ type: 'ready' });
