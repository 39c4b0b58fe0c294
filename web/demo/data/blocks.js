// The model's three attention blocks as the demo names them, which of them a trace has (an SSRU
// decoder has no self-attention), how many layers and heads each has, a head's label ('head 2',
// 'average of heads', 'rollout …'), and the head a Marian model trained on word alignments.
// No DOM here.

/** The blocks in the order every grid and ranking lists them. */
export const BLOCKS = ['encoder', 'decoder', 'cross'];

export const BLOCK_NAMES = {
  encoder: 'Encoder self-attention',
  decoder: 'Decoder masked self-attention',
  cross: 'Cross-attention (decoder → encoder)',
};

/** The blocks a result's model has: an SSRU decoder (its trace has forget gates) attends not. */
export function blocksOf(result) {
  return result?.attention?.forget ? BLOCKS.filter((b) => b !== 'decoder') : BLOCKS;
}

/** Layer and head counts of a block, from the trace's tensor shapes (0 for a block it lacks). */
export function blockShape(result, block) {
  const a = result?.attention;
  if (!a || !blocksOf(result).includes(block)) return { layers: 0, heads: 0 };
  const t = block === 'encoder' ? a.encoderSelf : block === 'decoder' ? a.decoderSelf : a.cross;
  return { layers: t.shape[0], heads: t.shape[1] };
}

/** 'head 2', 'average of heads' or (encoder) 'rollout through layers 1–3'. */
export function headLabel(head, layer) {
  if (head === 'avg') return 'average of heads';
  if (head === 'rollout') return `rollout through layers 1–${layer + 1}`;
  return `head ${head + 1}`;
}

/**
 * The cross-attention head a Marian model was trained to align words with, from its
 * translator's info (metadata 'heed.marian', alignment_layer): {layer, head} or null. Marian's
 * guided alignment trains the first head of that layer (it collects head 0's weights).
 */
export function alignedHead(info) {
  let marian = null;
  try {
    marian = JSON.parse(info?.metadata?.['heed.marian'] ?? 'null');
  } catch {
    return null;
  }
  const layer = marian?.alignment_layer;
  return Number.isInteger(layer) && layer >= 0 ? { layer, head: 0 } : null;
}

/** Whether head (block, layer, head) is the one `aligned` (alignedHead()) names. */
export const isAligned = (aligned, block, layer, head) =>
  Boolean(aligned) && block === 'cross' && aligned.layer === layer && aligned.head === head;

export const ALIGNED_TEXT = 'trained on word alignments';
