// Heed — public TypeScript types of the npm package `heed` (hand-written; Emscripten 3.1.6 has
// no --emit-tsd). This file is the contract between the WASM engine, the worker and the demo.

/** Raised for every user-facing failure; `code` says which kind. */
export class HeedError extends Error {
  readonly code:
    | 'BAD_MODEL' // the model bytes are not a valid Heed model (message names the problem)
    | 'BAD_INPUT' // empty/over-long/invalid text, wrong argument types, bad options
    | 'DISPOSED' // the translator was disposed
    | 'NO_SIMD' // this JS engine lacks WebAssembly SIMD
    | 'ABORTED' // the call was aborted through its AbortSignal
    | 'LOAD_FAILED' // the .wasm or model could not be fetched/read
    | 'INTERNAL'; // a bug or exhausted memory in the engine, or a crashed worker
}

/** A dense float array in row-major order with its shape. Copied out of WASM memory. */
export interface Tensor {
  shape: number[];
  data: Float32Array;
}

export interface Candidate {
  id: number;
  piece: string;
  prob: number;
}

export interface StepInfo {
  /** step index t (0-based): the t-th target token */
  step: number;
  token: string;
  id: number;
  prob: number;
  /** top-k candidates at this step, most probable first */
  top: Candidate[];
}

export interface Attention {
  /** [layers][heads][S][S] */
  encoderSelf: Tensor;
  /** [layers][heads][T][T], causal (row t has zeros after column t) */
  decoderSelf: Tensor;
  /** [layers][heads][T][S] */
  cross: Tensor;
  /** models whose decoder is an SSRU cell (Firefox's; Kim et al. 2019) instead of
   *  self-attention: each layer's forget gates f_t per step, [layers][T][D] (1 keeps the
   *  past, 0 takes this step's input); decoderSelf is then all zeros, since nothing attends */
  forget?: Tensor;
  steps: StepInfo[];
  /** beam search only: the beam tree, the hypotheses kept at each step */
  beam?: BeamNode[][];
  /** beam search only: the index in beam[T-1] of the hypothesis that won (its parents,
   *  followed back, spell the translation) */
  beamWinner?: number;
}

/** One hypothesis kept at one beam step. */
export interface BeamNode {
  token: number;
  piece: string;
  /** index of the node it extends in the previous step's list (-1 at step 0) */
  parent: number;
  /** its total log-probability so far */
  logprob: number;
  /** it ended with </s> here and left the beam */
  finished: boolean;
}

/** Unknown keys and out-of-range values reject with 'BAD_INPUT' (catches typos such as beamSize). */
export interface TranslateOptions {
  /** beam size 1..16; 1 = greedy (default 1) */
  beam?: number;
  /** max target tokens 1..1024 (default: 2 × source length + 10, or 2 × source length for a
   *  Marian model, where Bergamot's Marian stops; capped by the model) */
  maxLength?: number;
  /** beam length penalty α in 0..10: score / length^α (default 1) */
  lengthPenalty?: number;
  /** return the attention trace (default false) */
  attention?: boolean;
  /** split a string into sentences and translate each (default true; see TranslationResult);
   *  false: the whole string is one sequence, refused beyond 250 source pieces */
  split?: boolean;
  /** output shortlist (default false): the decoder scores only the target pieces the model's
   *  shortlist allows for the sentence's source pieces (info.shortlists lists the languages
   *  that have one; BAD_INPUT otherwise). Probabilities are normalised over those pieces;
   *  attention is computed as without it. */
  shortlist?: boolean;
  /** the copy guard (default true): the output writes no letter of another script, emoji or
   *  symbol that the source lacks, and copies a run of them or a URL whole once it has begun
   *  it ("λόγος", "слово", "😀👍", "https://…" come through as typed). false: the model's own
   *  choices. No effect on a Marian model. */
  copyGuard?: boolean;
  /** threads for this call's batch, 1..the translator's info.threads (default: all of them) */
  threads?: number;
  /** "what if": target ids the decoder must take first, whatever their probability (say a
   *  result's targetIds up to step k, then another of that step's top candidates); it decodes
   *  on from there, and each forced token keeps the model's own probability. Needs a text of
   *  one sentence (or split: false); every id must be in the model's vocabulary and none a
   *  control piece (`<s>`, `<pad>`, a target-language token such as `<2de>`, which the
   *  decoder never emits); `</s>` may only come last and not first. Else BAD_INPUT.
   *  Default []. */
  forcedPrefix?: number[];
  /** candidates per step in the trace, 0..100 (default 5) */
  topK?: number;
  /** target language, one of the targets in `info.directions` (e.g. 'de' for 'en-de'): 1 to 8
   *  letters a-z; default '' = the model's first direction. Unknown targets reject with
   *  BAD_INPUT. */
  to?: string;
  /** attention surgery: change how the trained model attends for this call (default: none) */
  interventions?: Interventions;
  /** called after each decoding step of a single sentence (greedy or beam); see StepEvent.
   *  In loadTranslator's translator it runs synchronously inside the engine call (the page
   *  cannot repaint in between); spawnTranslator's events arrive as the worker decodes.
   *  If it throws, the translation stops and the promise rejects with that error. */
  onStep?: (event: StepEvent) => void;
  /** aborts between decoding steps; the promise rejects with code 'ABORTED'. On the calling
   *  thread JS cannot run during a translation, so only an abort from onStep (or before the
   *  call starts) takes effect there; spawnTranslator rejects at once and stops the worker's
   *  job between steps (mid-sentence where SharedArrayBuffer is allowed, else before it starts). */
  signal?: AbortSignal;
}

/** One decoding step, for animation: the new token and that step's attention rows. */
export interface StepEvent extends StepInfo {
  /** cross-attention row of this step: [layers][heads][S] */
  cross: Tensor;
  /** decoder self-attention row of this step: [layers][heads][step+1] */
  decoderSelf: Tensor;
  /** SSRU decoders only: this step's forget gates, [layers][D] */
  forget?: Tensor;
  /** target tokens so far */
  tokens: string[];
  /** the source pieces (EOS included), the key labels of `cross`, and their ids */
  sourceTokens: string[];
  sourceIds: number[];
  /** on the first step of each sentence only: the encoder self-attention [layers][heads][S][S]
   *  (the encoder runs once, before decoding), so the events of a stopped translation still
   *  hold its whole trace */
  encoderSelf?: Tensor;
  /** which sentence of the text is being decoded (0-based), and how many the text has */
  sentence: number;
  sentences: number;
}

/** One sentence of a translated text: its own result (trace included) and where it was. */
export interface SentenceResult extends Omit<TranslationResult, 'sentences' | 'interventions'> {
  /** the sentence as it stood in the text, without the whitespace around it */
  source: string;
  /** its place in the text: text.slice(start, end) === source (UTF-16 indices) */
  start: number;
  end: number;
}

/**
 * A translated string. The text is split into sentences (every line break, and `.` `!` `?` `…`
 * before a capitalised word, except after abbreviations, initials and short numbers; see the
 * README) and each is translated on its own, so a paragraph is never cut short; `text` joins
 * their translations with the text's own whitespace and line breaks. With one sentence (the
 * usual case) the fields describe it, as `sentences[0]` does. With several, the token, id and
 * probability arrays concatenate the sentences' (each ending with its `</s>`), `scores` is
 * their sum, `attention` is absent and each sentence's trace is in `sentences[i].attention`
 * (explainHead takes a sentence). A batch (string[]) is not split: each string is one sentence.
 */
export interface TranslationResult {
  text: string;
  sourceTokens: string[];
  targetTokens: string[];
  /** probability of each target token */
  tokenProbs: number[];
  /** hypothesis score (sum of log-probabilities; length-normalised for beam) */
  scores: number;
  /** ids of sourceTokens / targetTokens (what explainHead re-runs; equal to the native CLI's) */
  sourceIds: number[];
  targetIds: number[];
  /** the target language it was translated into (options.to, or the model's default; '' when
   *  the model names no languages); explainHead re-runs the decoder from the same start */
  to: string;
  /** the attention surgery it was made with (all fields, defaults filled in) */
  interventions: Required<Interventions>;
  /** true when a sentence's decoding stopped at the length limit (maxLength, or the automatic
   *  2 × source pieces + 10, or 2 × for a Marian model) before the model ended it with </s>:
   *  that translation may be cut */
  truncated: boolean;
  /** the sentences of the text, in order, each with its own result (one for a batch item) */
  sentences: SentenceResult[];
  /** attention multiply-adds and state bytes for this sentence, one entry per block and layer
   *  (encoder layers, then per decoder layer 'decoder' and 'cross'), as the surgery computed it */
  costs: AttentionCost[];
  /** target pieces the decoder scored at each step: the vocabulary, or the shortlist's size
   *  (per sentence; absent on a several-sentence paragraph's top level) */
  outputSize?: number;
  attention?: Attention;
}

/** What one block and layer of attention cost for a sentence (the engine's
 *  model/attention_cost.h). Softmax, window and sparse: macs = H·P·(Dh + Dv) and
 *  stateBytes = 4·H·P over the P visible (query, key) pairs; linear: macs =
 *  H·[(Lq + Lk)·r·Dh (FAVOR+'s projections) + (Lq + Lk)·r·(Dv + 1)], stateBytes = 4·H·r·(Dv + 1).
 *  The q/k/v/o projections, which every variant shares, are not counted. */
export interface AttentionCost {
  block: 'encoder' | 'decoder' | 'cross';
  layer: number;
  /** multiply-adds */
  macs: number;
  /** bytes of attention state: the weights (softmax variants) or the sums S and z (linear) */
  stateBytes: number;
}

/** Attention surgery (the engine's model/interventions.h). */
export interface Interventions {
  /** multiplies every softmax's scale 1/√d_k; > 1 sharpens, < 1 flattens; in (0, 100], default 1 */
  temperature?: number;
  /** local attention of this radius in encoder self- and cross-attention (query position = the
   *  decoding step, at most the last source position); decoder self-attention stays causal;
   *  -1..4096, default -1 (none) */
  window?: number;
  /** drop the sinusoidal positions: the encoder becomes permutation-equivariant (default false) */
  noPositions?: boolean;
  /** Longformer/BigBird-style sparse attention on top of the window (0 when none is set): the
   *  first and last keys are global, the first and last query positions see every key, and each
   *  block of `block` query positions (1..256, default 4) sees `randomBlocks` (0..64) random key
   *  blocks drawn from `seed`; encoder self- and cross-attention only */
  sparse?: { enabled?: boolean; randomBlocks?: number; block?: number; seed?: number };
  /** Linear attention in place of every softmax (encoder self-, decoder self- through running
   *  sums, and cross-attention), on the trained weights. 'favor': FAVOR+ positive orthogonal
   *  random features (Choromanski et al. 2021) estimating the softmax kernel with the model's
   *  scale and temperature; `features` r in [1, 4096] (default 256), ω drawn from `seed`
   *  (0..2^32 - 1, default 1) per block and layer. 'elu': φ = elu + 1 (Katharopoulos et al.
   *  2020), no scale: a temperature other than 1 is refused. With a window or sparse pattern:
   *  refused. Ablation still applies. The attention views show the implied weights
   *  φ(q_i)ᵀφ(k_j) / Σ_j' φ(q_i)ᵀφ(k_j'). */
  linear?: { kind?: 'none' | 'favor' | 'elu'; features?: number; seed?: number };
  /** heads switched off: output zeroed, or (mean: true) replaced by the mean of the other heads'
   *  outputs; their attention weights are still recorded. Layers and heads must exist. */
  ablate?: {
    block: 'encoder' | 'decoder' | 'cross';
    layer: number;
    head: number;
    mean?: boolean;
  }[];
}

export interface ModelInfo {
  config: Record<string, unknown>;
  metadata: Record<string, unknown>;
  parameters: number;
  /** bytes the loaded weights occupy in WASM memory */
  weightBytes: number;
  /** 'int8': the file's int8 weights stay int8 and are multiplied as int8; 'f32': widened */
  compute: 'int8' | 'f32';
  /** target languages the model file has an output shortlist for (see options.shortlist) */
  shortlists: string[];
  /** threads the translator was loaded with (LoadOptions.threads) */
  threads: number;
  /** every direction the model translates in, 'source-target' (e.g. ['en-de', 'de-en']),
   *  the default first; empty when the file names no languages */
  directions: string[];
}

/** One refused text of a batch, in its place among the results. */
export interface BatchFailure {
  error: { code: 'BAD_INPUT'; message: string };
}

/** Translator.dispose() frees the WASM objects (Embind handles) behind it; call it when done. */
export interface Translator {
  readonly info: ModelInfo;
  /** The engine's limits (as limits() returns them), which translate() checks first. */
  readonly limits: Readonly<Limits>;
  /** Calls run one at a time in call order; a batch (text[]) is decoded together. Texts must
   *  be strings without lone UTF-16 surrogates, and a batch a dense array (no holes), else the
   *  call rejects 'BAD_INPUT' before the engine runs. One call (a string or a batch) holds at
   *  most 256 texts, 20,000 UTF-8 bytes per text, 65,536 bytes and 1,024 sentences in all
   *  (limits()); beyond, it rejects 'BAD_INPUT' before any sentence is translated, the same
   *  in spawnTranslator's worker. Within a batch, a text the engine refuses (empty, over 249
   *  pieces, ...) becomes its own BatchFailure item and the rest are translated. User text
   *  never becomes a control piece: a typed `<2de>`, `<s>`, `</s>` or `<pad>` is spelt out of
   *  ordinary pieces. */
  translate(text: string, options?: TranslateOptions): Promise<TranslationResult>;
  translate(
    text: string[],
    options?: TranslateOptions,
  ): Promise<Array<TranslationResult | BatchFailure>>;
  /** Async iterator form of onStep: yields each step, then returns the full result. */
  steps(text: string, options?: TranslateOptions): AsyncGenerator<StepEvent, TranslationResult>;
  /** Every intermediate of one attention head on a finished translation (teacher-forced
   *  re-run of the engine on result's sourceIds and targetIds), for the explainer. `layer` and
   *  `head` must exist in the model and every id be a vocabulary index, else 'BAD_INPUT'. */
  explainHead(result: TranslationResult, where: HeadLocation): Promise<HeadExplanation>;
  /** Frees the WASM objects. Later calls reject with code 'DISPOSED'. */
  dispose(): void;
}

export interface HeadLocation {
  block: 'encoder' | 'decoder' | 'cross';
  layer: number;
  head: number;
}

/** One head's computation. Lq/Lk: query/key lengths; D model dim; Dh = D / heads. */
export interface HeadExplanation {
  dk: number;
  /** the block's query-side input after its layer norm [Lq][D] */ xq: Tensor;
  /** key/value-side input [Lk][D] (encoder output for cross-attention) */ xkv: Tensor;
  /** this head's projections: q [Lq][Dh], k [Lk][Dh], v [Lk][Dh] */ q: Tensor;
  k: Tensor;
  v: Tensor;
  /** Q·Kᵀ [Lq][Lk] */ scores: Tensor;
  /** Q·Kᵀ/√dk [Lq][Lk] */ scaled: Tensor;
  /** 1 where the mask blocks (causal/padding) [Lq][Lk] */ mask: Tensor;
  /** softmax of scaled, masked [Lq][Lk] */ weights: Tensor;
  /** softmax without the √dk scaling, for comparison [Lq][Lk] */ weightsUnscaled: Tensor;
  /** weights·V [Lq][Dh] */ output: Tensor;
  /** all heads concatenated [Lq][D] */ concat: Tensor;
  /** after the output projection [Lq][D] */ projected: Tensor;
  /** ‖f(x_j)‖ per key [Lk]: the norm of key j's value vector carried through this head's
   *  columns of the output projection, v_j·W_O[:, h·Dh..(h+1)·Dh)ᵀ, without the output bias.
   *  weights[i][j]·valueNorms[j] is the norm-weighted attention of Kobayashi et al. 2020
   *  ("Attention is Not Only a Weight", §3): how much key j adds to query i's output. */
  valueNorms: Tensor;
  /** encoder: source tokens; decoder and cross: the target token each position produced
   *  (as the rows of Attention.decoderSelf / cross) */
  queryTokens: string[];
  /** encoder and cross: source tokens; decoder: the token each position consumed
   *  (the decoder's start token — '<s>', or the target language's token such as '<2de>' — then the previous target tokens) */
  keyTokens: string[];
}

/** A model file: a URL (string or URL), its bytes, or under Node a file path or the name of an
 *  installed package's file, e.g. 'heed-models/multi.heed' (`npm install heed-models`; a string
 *  that names no existing file and reads as `name/file` or `@scope/name/file` is resolved as
 *  `import` would, beside heed, then from the working directory's project; 'LOAD_FAILED' says
 *  what to install when the package is missing). Browsers cannot resolve package names: pass
 *  the URL the file is served at (e.g. from a bundler's asset import). */
export type ModelSource = string | URL | ArrayBuffer | Uint8Array;

/** A Marian model bundle as Firefox Translations and OPUS-MT publish them; every file a
 *  ModelSource (or a promise of one). Converted to a Heed model inside the engine. */
export interface MarianBundle {
  /** the model: Marian's binary `.bin` (float32, intgemm8, intgemm8 + alphas) or `.npz` */
  model: ModelSource | Promise<ModelSource>;
  /** SentencePiece vocabularies (`.spm`): one shared, or the source's then the target's; or
   *  OPUS-MT's `vocab.yml` id map with the `source.spm` and `target.spm` that segment the text
   *  (each file is recognised by its content) */
  vocabs: (ModelSource | Promise<ModelSource>)[];
  /** Marian's binary lexical shortlist (`lex.*.s2t.bin`), used when translate() asks for
   *  `shortlist: true` */
  shortlist?: ModelSource | Promise<ModelSource> | null;
  /** language codes (1 to 8 letters a-z) the model translates from and into (default 'und'); `target` is the
   *  model's one direction's target (translate()'s `to`) */
  source?: string;
  target?: string;
}

export interface LoadOptions {
  /** URL (string or URL), bytes, or (Node only) a file path or a package's file such as
   *  'heed-models/multi.heed' (see ModelSource); or a promise of one, so the
   *  engine is instantiated while the model is still downloading. Give this or `marian`. */
  model?: ModelSource | Promise<ModelSource>;
  /** a Marian bundle instead of a Heed model file; BAD_MODEL names what the engine cannot
   *  read (e.g. a pre-norm or factored model, a BPE vocabulary) */
  marian?: MarianBundle;
  /** where heed.wasm lives (default: next to this module) */
  wasmUrl?: string | URL;
  /** read progress of URL and file models, 0..1 (NaN while the size is unknown; 1 at the
   *  end); not called for bytes */
  onProgress?: (fraction: number, loadedBytes: number) => void;
  /** 'int8' (default): weights the file stores as int8 stay int8 in memory and are multiplied
   *  as int8 (activations rounded to int16 per row); 'f32': widened to f32 at load (about 4×
   *  their memory; the reference int8 is compared with). f16/f32 files are always f32. */
  compute?: 'int8' | 'f32';
  /** 1 (default): the single-thread build. 2..16: the pthreads build (mt/heed-mt.mjs), whose
   *  translate() decodes the sentences of a batch or paragraph on that many threads, or shares
   *  each large matrix product of one sentence over them (the same translations); loading starts the threads' workers (threads - 1 besides the caller,
   *  shared by the translators of that build), so every value of the range works for any
   *  batch. Needs SharedArrayBuffer: Node, or a cross-origin isolated page (served with COOP
   *  same-origin and COEP require-corp, as scripts/serve.mjs does); BAD_INPUT elsewhere.
   *  Step-by-step calls (onStep) decode one sentence at a time either way. */
  threads?: number;
}

export function loadTranslator(options: LoadOptions): Promise<Translator>;

/** A Marian bundle converted to a Heed model file (e.g. to cache it, or to save it as .heed);
 *  BAD_MODEL as loadTranslator. */
export function convertMarian(
  bundle: MarianBundle,
  options?: { wasmUrl?: string | URL },
): Promise<Uint8Array>;

/**
 * The attention primitives, computed by the C++ kernels: dot and general scores (Luong et al.
 * 2015 §3.1), scaled dot product (Vaswani et al. 2017 §3.2.1), additive (Bahdanau et al. 2015
 * §3.1), linear attention (Katharopoulos et al. 2020 §3.2).
 */
export type ScoreFunction = 'dot' | 'scaled_dot' | 'general' | 'additive';
/** true = blocked. `keyPadding` ([Lk], true = padded key) may accompany any kind, e.g. a causal
 *  mask over padded keys. `offset` shifts the diagonal: query i sees keys j <= i + offset
 *  (causal) or |i + offset - j| <= window (local); incremental decoding of one query over t
 *  cached keys uses offset t - 1. `offset` and `window` are integers within ±2**24. */
export type MaskSpec =
  | { kind: 'none'; keyPadding?: boolean[] }
  | { kind: 'causal'; offset?: number; keyPadding?: boolean[] }
  | { kind: 'padding'; keyPadding: boolean[] }
  | { kind: 'local'; window: number; offset?: number; keyPadding?: boolean[] }
  | { kind: 'custom'; blocked: boolean[][]; keyPadding?: boolean[] };

export interface AttentionInputs {
  q: number[][] | Tensor;
  k: number[][] | Tensor;
  v: number[][] | Tensor;
  score: ScoreFunction;
  mask?: MaskSpec;
  /** general: W [Dq][Dk]; additive: W [Da][Dq], U [Da][Dk], v [Da] */
  params?: { w?: number[][]; u?: number[][]; v?: number[] };
}
export interface AttentionOutputs {
  /** [Lq][Dv] */ output: Tensor;
  /** [Lq][Lk], rows sum to 1 (0 for fully masked rows) */ weights: Tensor;
  /** [Lq][Lk] pre-softmax, masked = -Infinity */ scores: Tensor;
}
/** Every matrix of the lab has at most 4096 rows and columns (limits().labSize), else
 *  BAD_INPUT. */
export interface AttentionLab {
  attention(inputs: AttentionInputs): AttentionOutputs;
  /** [length][dModel] sinusoidal position encodings (Vaswani et al. 2017); length and dModel
   *  0..4096 (their similarity is not computed) */
  sinusoidalPositions(length: number, dModel: number): Tensor;
  /** [length][length] cosine similarity between those position encodings (L²·D work) */
  positionSimilarity(length: number, dModel: number): Tensor;
  linearAttention(
    inputs: Omit<AttentionInputs, 'score' | 'params'> & { causal?: boolean },
  ): AttentionOutputs;
}
export function loadAttentionLab(options?: { wasmUrl?: string | URL }): Promise<AttentionLab>;

/** WASM memory of the engine instance for `wasmUrl` (shared by its translators and lab):
 *  bytes in use by malloc, and the size of linear memory (which never shrinks). `threads` > 1
 *  (1..16): the pthreads engine's, and `workers`, its pool of thread workers. */
export function memoryStats(options?: {
  wasmUrl?: string | URL;
  threads?: number;
}): Promise<{ inUse: number; size: number; workers?: number }>;

/** Every limit the engine enforces, stated once (README, "Untrusted models and text"). */
export interface Limits {
  /** TranslateOptions ranges: beam 1..beam, maxLength 1..maxLength, lengthPenalty
   *  0..lengthPenalty, topK 0..topK, threads 1..threads (also loadTranslator's) */
  beam: number;
  maxLength: number;
  lengthPenalty: number;
  topK: number;
  threads: number;
  /** interventions ranges: temperature (0, temperature], window -1..window, sparse.randomBlocks
   *  0..randomBlocks, sparse.block 1..sparseBlock, linear.features 1..linearFeatures, every
   *  seed 0..seed, ablate[i].layer 0..layers-1 and .head 0..heads-1 (then the model's own) */
  temperature: number;
  window: number;
  randomBlocks: number;
  sparseBlock: number;
  linearFeatures: number;
  seed: number;
  layers: number;
  heads: number;
  /** one call (a string or a batch): UTF-8 bytes per text, texts, bytes and sentences in all */
  textBytes: number;
  batchTexts: number;
  batchBytes: number;
  batchSentences: number;
  /** source pieces of one engine batch (the engine sends 64 sentences at a time) */
  batchPieces: number;
  /** bytes of a model file */
  modelBytes: number;
  /** rows and columns of a lab matrix, and the positions' length and dModel */
  labSize: number;
  /** the largest |offset| and |window| of a lab mask */
  labMaskInt: number;
}
export function limits(options?: { wasmUrl?: string | URL }): Promise<Readonly<Limits>>;
