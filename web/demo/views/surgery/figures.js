// Two exported figures side by side in one file: the Surgery view's "both runs" export as PNG
// or SVG. No view state here.

const GAP = 24; // px between the two figures of a side-by-side export

/** Two PNG figures side by side in one PNG. */
export async function pngPair(a, b) {
  const [x, y] = await Promise.all([a, b].map((blob) => createImageBitmap(blob)));
  const cv = document.createElement('canvas');
  cv.width = x.width + GAP * 2 + y.width;
  cv.height = Math.max(x.height, y.height);
  const ctx = cv.getContext('2d');
  ctx.fillStyle = '#ffffff';
  ctx.fillRect(0, 0, cv.width, cv.height);
  ctx.drawImage(x, 0, 0);
  ctx.drawImage(y, x.width + GAP * 2, 0); // why: the PNGs are at 2×, so is the gap
  return new Promise((resolve) => cv.toBlob(resolve, 'image/png'));
}

/** Two SVG figures side by side, nested in one SVG. */
export function svgPair(a, b) {
  const size = (svg) =>
    svg
      .match(/width="([\d.]+)" height="([\d.]+)"/)
      .slice(1)
      .map(Number);
  const [w1, h1] = size(a);
  const [w2, h2] = size(b);
  const w = w1 + GAP + w2;
  const h = Math.max(h1, h2);
  const at = (svg, x) => svg.replace('<svg ', `<svg x="${x}" y="0" `);
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}">` +
    `<rect width="${w}" height="${h}" fill="#fff"/>${at(a, 0)}${at(b, w1 + GAP)}</svg>`
  );
}
