// Bergamot — the engine of Firefox's translations (@browsermt/bergamot-translator 0.4.9, Marian
// compiled to WASM) — loaded straight from its Emscripten build and run on the calling thread, in
// Node or in a page. Not the package's translator.js (that one runs in a worker and fixes the
// model config); this one sets the config the comparison needs (beam size, float32 or int8 GEMM,
// <unk> allowed as a Heed file's search allows it, or banned as Marian's is by default) and
// times the translate call itself.
//
//   const bergamot = await loadBergamot({ glue, wasmBinary });     // glue: the .js file's text
//   const model = bergamot.model({ model, vocab, beam: 1, gemm: 'float32' });
//   model.translate(['A sentence.', ...]);  // -> ['Une phrase.', ...], one batch
//   model.delete();

/** The int8 GEMM functions Marian imports from "wasm_gemm" (Firefox may supply native ones);
 * here the fallbacks compiled into the same binary, as the package's own worker links them. */
const GEMM_FALLBACKS = {
  int8_prepare_a: 'int8PrepareAFallback',
  int8_prepare_b: 'int8PrepareBFallback',
  int8_prepare_b_from_transposed: 'int8PrepareBFromTransposedFallback',
  int8_prepare_b_from_quantized_transposed: 'int8PrepareBFromQuantizedTransposedFallback',
  int8_prepare_bias: 'int8PrepareBiasFallback',
  int8_multiply_and_add_bias: 'int8MultiplyAndAddBiasFallback',
  int8_select_columns_of_b: 'int8SelectColumnsOfBFallback',
};

/**
 * Instantiates the module. The glue is Emscripten's classic script: it reads and writes a global
 * `Module`, so it is evaluated in global scope (one Bergamot per realm).
 * @param {{glue: string, wasmBinary: Uint8Array}} files
 */
export function loadBergamot({ glue, wasmBinary }) {
  return new Promise((resolve, reject) => {
    const Module = {
      print: () => {},
      printErr: (s) => console.error(`[bergamot] ${s}`),
      instantiateWasm(imports, accept) {
        const gemm = {};
        for (const [name, fallback] of Object.entries(GEMM_FALLBACKS))
          gemm[name] = (...args) => Module.asm[fallback](...args);
        WebAssembly.instantiate(wasmBinary, { ...imports, wasm_gemm: gemm })
          .then(({ instance }) => accept(instance))
          .catch(reject);
        return {};
      },
      onRuntimeInitialized: () => resolve(api(Module)),
      onAbort: (what) => reject(new Error(`Bergamot aborted: ${what}`)),
    };
    globalThis.Module = Module;
    (0, eval)(glue);
  });
}

function aligned(Module, bytes, alignment) {
  const memory = new Module.AlignedMemory(bytes.byteLength, alignment);
  memory.getByteArrayView().set(new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength));
  return memory;
}

function api(Module) {
  const service = new Module.BlockingService({ cacheSize: 0 });
  return {
    /** WASM linear memory in bytes (grows, never shrinks). */
    memoryBytes: () => Module.HEAP8.length,
    /**
     * A translation model. gemm: 'float32' or 'int8shiftAll' (Marian quantises the float32
     * weights at load, per tensor, and the activations on the fly). allowUnk: false is Marian's
     * default (its beam search never chooses <unk>).
     */
    model({ model, vocab, beam = 1, gemm = 'float32', allowUnk = true }) {
      const vocabs = new Module.AlignedMemoryList();
      vocabs.push_back(aligned(Module, vocab, 64));
      const config = [
        `beam-size: ${beam}`,
        'normalize: 1.0', // score / length, Heed's length_penalty 1.0
        'word-penalty: 0',
        'max-length-factor: 2.0',
        'max-length-break: 128',
        'mini-batch-words: 1024',
        'workspace: 128',
        'skip-cost: false',
        'cpu-threads: 0',
        'quiet: true',
        'quiet-translation: true',
        `gemm-precision: ${gemm}`,
        // why: a Heed file's search never bans <unk>; Marian's (and the Marian reader's) does
        `allow-unk: ${allowUnk}`,
      ].join('\n');
      const handle = new Module.TranslationModel(
        config,
        aligned(Module, model, 256),
        new Module.AlignedMemory(0, 64), // no shortlist
        vocabs,
        null,
      );
      return {
        /** @param {string[]} texts one batch; @returns {string[]} */
        translate(texts) {
          const input = new Module.VectorString();
          const options = new Module.VectorResponseOptions();
          for (const t of texts) {
            input.push_back(t);
            options.push_back({ qualityScores: false, alignment: false, html: false });
          }
          const responses = service.translate(handle, input, options);
          const out = texts.map((_, i) => responses.get(i).getTranslatedText());
          input.delete();
          options.delete();
          responses.delete();
          return out;
        },
        delete: () => handle.delete(),
      };
    },
  };
}
