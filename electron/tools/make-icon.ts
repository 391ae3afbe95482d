/**
 * Draws resources/icon.png (1024×1024 RGBA): a crescent and a small star on an ink-dark
 * rounded square, in the journal's paper and amber tones. Pure Node (zlib), no image library.
 * electron-builder derives the .icns/.ico and Linux sizes from it.
 *
 *   npx tsx electron/tools/make-icon.ts [output.png]
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { deflateSync } from 'node:zlib';

type Rgb = readonly [number, number, number];

const SIZE = 1024;
const INK: Rgb = [0x2b, 0x28, 0x24];
const INK_LIGHT: Rgb = [0x3a, 0x35, 0x2f];
const PAPER: Rgb = [0xf7, 0xf3, 0xea];
const AMBER: Rgb = [0xd9, 0xa6, 0x6c];

/** Area coverage of a pixel from a signed distance (negative inside), ~1px anti-aliasing. */
const coverage = (distance: number): number => Math.min(1, Math.max(0, 0.5 - distance));
const circle = (x: number, y: number, cx: number, cy: number, r: number): number => Math.hypot(x - cx, y - cy) - r;
function roundedSquare(x: number, y: number, center: number, half: number, radius: number): number {
  const qx = Math.abs(x - center) - (half - radius);
  const qy = Math.abs(y - center) - (half - radius);
  return Math.hypot(Math.max(qx, 0), Math.max(qy, 0)) + Math.min(Math.max(qx, qy), 0) - radius;
}
const mix = (a: Rgb, b: Rgb, t: number): Rgb => [0, 1, 2].map((i) => a[i]! + (b[i]! - a[i]!) * t) as unknown as Rgb;

function pixel(x: number, y: number): [number, number, number, number] {
  const body = coverage(roundedSquare(x, y, SIZE / 2, 412, 185));
  if (body === 0) return [0, 0, 0, 0];
  let color = mix(INK_LIGHT, INK, y / SIZE); // soft top light
  const crescent = coverage(circle(x, y, 500, 530, 262)) * (1 - coverage(circle(x, y, 612, 450, 228)));
  color = mix(color, PAPER, crescent);
  color = mix(color, AMBER, coverage(circle(x, y, 680, 452, 46)));
  return [color[0], color[1], color[2], body * 255];
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) c = CRC_TABLE[(c ^ byte) & 0xff]! ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type: string, data: Uint8Array): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}

function renderIcon(): Buffer {
  const stride = SIZE * 4 + 1;
  const raw = Buffer.alloc(stride * SIZE);
  for (let y = 0; y < SIZE; y++) {
    raw[y * stride] = 0; // filter: none
    for (let x = 0; x < SIZE; x++) {
      const [r, g, b, a] = pixel(x + 0.5, y + 0.5);
      raw.set([Math.round(r), Math.round(g), Math.round(b), Math.round(a)], y * stride + 1 + x * 4);
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(raw, { level: 9 })),
    chunk('IEND', new Uint8Array()),
  ]);
}

const output = resolve(process.argv[2] ?? resolve(import.meta.dirname, '../../resources/icon.png'));
writeFileSync(output, renderIcon());
console.log(`wrote ${output}`);
