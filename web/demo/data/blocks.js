// The model's three attention blocks as the demo names them, how many layers and heads a trace
// has in each, and a head's label ('head 2', 'average of heads', 'rollout …'). No DOM here.

/** The blocks in the order every grid and ranking lists them. */
export const BLOCKS = ['encoder', 'decoder', 'cross'];

export const BLOCK_NAMES = {
  encoder: 'Encoder self-attention',
  decoder: 'Decoder masked self-attention',
  cross: 'Cross-attention (decoder → encoder)',
};

/** Layer and head counts of a block, from the trace's tensor shapes. */
export function blockShape(result, block) {
  const a = result?.attention;
  if (!a) return { layers: 0, heads: 0 };
  const t = block === 'encoder' ? a.encoderSelf : block === 'decoder' ? a.decoderSelf : a.cross;
  return { layers: t.shape[0], heads: t.shape[1] };
}

/** 'head 2', 'average of heads' or (encoder) 'rollout through layers 1–3'. */
export function headLabel(head, layer) {
  if (head === 'avg') return 'average of heads';
  if (head === 'rollout') return `rollout through layers 1–${layer + 1}`;
  return `head ${head + 1}`;
}
