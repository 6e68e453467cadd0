// Draws the app icons (PNG) into remote/app/public/icons: no network, no image library.
// Run with `node remote/app/scripts/make-icons.js` after changing the drawing; the PNGs are committed.
import { Buffer } from 'node:buffer';
import { mkdirSync, writeFileSync } from 'node:fs';
import { crc32, deflateSync } from 'node:zlib';

const out = new URL('../public/icons/', import.meta.url);
const BACKGROUND = [0x1d, 0x4e, 0xd8];
const INK = [0xff, 0xff, 0xff];
const SAMPLES = 4;

/** Distance from point p to the segment a-b. */
function segmentDistance(px, py, ax, ay, bx, by) {
  const dx = bx - ax;
  const dy = by - ay;
  const t = Math.max(0, Math.min(1, ((px - ax) * dx + (py - ay) * dy) / (dx * dx + dy * dy)));
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/**
 * The glyph: two rings joined by a line (a tether), in unit coordinates around the
 * centre, scaled by `scale` (maskable icons keep it inside the safe zone).
 */
function inGlyph(x, y, scale) {
  const u = (x - 0.5) / scale + 0.5;
  const v = (y - 0.5) / scale + 0.5;
  const ring = (cx, cy) => Math.abs(Math.hypot(u - cx, v - cy) - 0.13) < 0.045;
  const line = segmentDistance(u, v, 0.41, 0.59, 0.59, 0.41) < 0.04;
  return ring(0.3, 0.7) || ring(0.7, 0.3) || line;
}

function inRoundedSquare(x, y, radius) {
  const cx = Math.min(Math.max(x, radius), 1 - radius);
  const cy = Math.min(Math.max(y, radius), 1 - radius);
  return Math.hypot(x - cx, y - cy) <= radius;
}

/** RGBA pixels of one icon, anti-aliased by supersampling. */
function draw(size, { radius, scale }) {
  const pixels = Buffer.alloc(size * size * 4);
  for (let py = 0; py < size; py++) {
    for (let px = 0; px < size; px++) {
      let cover = 0;
      let ink = 0;
      for (let sy = 0; sy < SAMPLES; sy++) {
        for (let sx = 0; sx < SAMPLES; sx++) {
          const x = (px + (sx + 0.5) / SAMPLES) / size;
          const y = (py + (sy + 0.5) / SAMPLES) / size;
          if (!inRoundedSquare(x, y, radius)) continue;
          cover++;
          if (inGlyph(x, y, scale)) ink++;
        }
      }
      const total = SAMPLES * SAMPLES;
      const i = (py * size + px) * 4;
      const mix = cover === 0 ? 0 : ink / cover;
      for (let c = 0; c < 3; c++) {
        pixels[i + c] = Math.round(BACKGROUND[c] * (1 - mix) + INK[c] * mix);
      }
      pixels[i + 3] = Math.round((255 * cover) / total);
    }
  }
  return pixels;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function png(size, pixels) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y++) {
    rows[y * (size * 4 + 1)] = 0; // filter: none
    pixels.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const icons = [
  { file: 'icon-192.png', size: 192, radius: 0.22, scale: 1 },
  { file: 'icon-512.png', size: 512, radius: 0.22, scale: 1 },
  // Maskable: full bleed, the glyph inside the 80% safe circle.
  { file: 'icon-maskable-512.png', size: 512, radius: 0, scale: 0.72 },
  // iOS rounds the corners itself and shows transparency as black.
  { file: 'apple-touch-icon-180.png', size: 180, radius: 0, scale: 0.9 },
];

mkdirSync(out, { recursive: true });
for (const { file, size, radius, scale } of icons) {
  writeFileSync(new URL(file, out), png(size, draw(size, { radius, scale })));
  console.log(`wrote ${file}`);
}
