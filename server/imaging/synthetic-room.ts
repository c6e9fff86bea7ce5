/**
 * A drawn empty room (wall, window, skirting, plank floor) of any size, for tests, benchmarks and the playground's
 * drawn samples; the README's sample is a real photo (docs/samples/SOURCES.md).
 */
import sharp from 'sharp';

export function emptyRoomSvg(width: number, height: number): string {
  const floorY = Math.round(height * 0.62);
  const skirting = Math.max(3, Math.round(height * 0.022));
  const vanishX = width * 0.5;
  const vanishY = height * 0.2;
  const planks: string[] = [];
  for (let i = -12; i <= 12; i++) {
    const xBottom = vanishX + (i * width) / 7;
    const t = (floorY - vanishY) / (height - vanishY);
    const xTop = vanishX + (xBottom - vanishX) * t;
    planks.push(`<line x1="${xTop.toFixed(1)}" y1="${floorY}" x2="${xBottom.toFixed(1)}" y2="${height}"/>`);
  }
  for (let k = 2; k <= 6; k += 2) {
    const y = floorY + (height - floorY) * (k / 7) ** 1.6;
    planks.push(`<line x1="0" y1="${y.toFixed(1)}" x2="${width}" y2="${y.toFixed(1)}" stroke-opacity="0.25"/>`);
  }
  const wx = width * 0.67;
  const wy = height * 0.12;
  const ww = width * 0.22;
  const wh = height * 0.36;
  const frame = Math.max(2, Math.round(width * 0.008));
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">
  <defs>
    <linearGradient id="wall" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#efe9df"/><stop offset="0.6" stop-color="#ddd5c8"/><stop offset="1" stop-color="#c9c0b2"/></linearGradient>
    <linearGradient id="floor" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#9c7650"/><stop offset="1" stop-color="#c89d6f"/></linearGradient>
    <linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#a9cbe8"/><stop offset="1" stop-color="#e4eef5"/></linearGradient>
    <radialGradient id="light" cx="0.5" cy="0.5" r="0.5"><stop offset="0" stop-color="#fff8e8" stop-opacity="0.45"/><stop offset="1" stop-color="#fff8e8" stop-opacity="0"/></radialGradient>
    <linearGradient id="ceiling" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#000" stop-opacity="0.12"/><stop offset="1" stop-color="#000" stop-opacity="0"/></linearGradient>
  </defs>
  <rect width="${width}" height="${floorY}" fill="url(#wall)"/>
  <rect width="${width}" height="${height * 0.08}" fill="url(#ceiling)"/>
  <rect x="${wx - frame}" y="${wy - frame}" width="${ww + 2 * frame}" height="${wh + 2 * frame}" fill="#f8f6f2"/>
  <rect x="${wx}" y="${wy}" width="${ww}" height="${wh}" fill="url(#sky)"/>
  <path d="M${wx} ${wy + wh * 0.75} q${ww * 0.25} ${-wh * 0.12} ${ww * 0.5} ${-wh * 0.04} t${ww * 0.5} ${-wh * 0.02} V${wy + wh} H${wx} Z" fill="#8fb08a" opacity="0.8"/>
  <rect x="${wx + ww / 2 - frame / 2}" y="${wy}" width="${frame}" height="${wh}" fill="#f8f6f2"/>
  <rect x="${wx}" y="${wy + wh * 0.45}" width="${ww}" height="${frame}" fill="#f8f6f2"/>
  <rect x="${wx - frame * 2}" y="${wy + wh + frame}" width="${ww + frame * 4}" height="${frame * 1.5}" fill="#ffffff"/>
  <rect y="${floorY}" width="${width}" height="${height - floorY}" fill="url(#floor)"/>
  <g stroke="#6e5036" stroke-width="${Math.max(1, width / 900)}" stroke-opacity="0.45">${planks.join('')}</g>
  <ellipse cx="${wx + ww * 0.3}" cy="${floorY + (height - floorY) * 0.45}" rx="${ww * 0.9}" ry="${(height - floorY) * 0.3}" fill="url(#light)"/>
  <rect y="${floorY - skirting}" width="${width}" height="${skirting}" fill="#f6f3ee"/>
  <rect y="${floorY}" width="${width}" height="${Math.max(1, skirting * 0.2)}" fill="#000" opacity="0.15"/>
</svg>`;
}

/** The empty room as a JPEG (or PNG) of the given size. */
export function emptyRoomImage(width: number, height: number, format: 'jpeg' | 'png' = 'jpeg'): Promise<Buffer> {
  const image = sharp(Buffer.from(emptyRoomSvg(width, height)));
  return (format === 'png' ? image.png() : image.jpeg({ quality: 90 })).toBuffer();
}
