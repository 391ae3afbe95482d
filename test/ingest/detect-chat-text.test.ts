import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { detectFormat } from '../../core/ingest/detect-format.js';
import { lineImport } from '../../core/ingest/line.js';
import { markdownImport } from '../../core/ingest/markdown.js';
import { qqImport } from '../../core/ingest/qq.js';
import { wechatImport } from '../../core/ingest/wechat.js';
import { whatsappImport } from '../../core/ingest/whatsapp.js';
import { fixture } from '../helpers/engine.js';
import { headOf, ingestFixture } from './chat-helpers.js';

// Detection sees a path and the first 64 KiB decoded as UTF-8. Each of these importers must claim its
// own exports and leave every other format's fixtures alone.

const mine = { whatsapp: whatsappImport, wechat: wechatImport, qq: qqImport, line: lineImport, markdown: markdownImport };
type Mine = keyof typeof mine;

function filesUnder(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile())
    .map((e) => path.join(e.parentPath, e.name));
}

const ownFixtures: Array<[Mine, string]> = (Object.keys(mine) as Mine[]).flatMap((id) =>
  filesUnder(ingestFixture(id))
    .filter((f) => !f.includes(`${path.sep}.obsidian${path.sep}`))
    .map((f): [Mine, string] => [id, f]),
);

const otherFixtures = [
  ...filesUnder(fixture('import')),
  ...fs
    .readdirSync(ingestFixture())
    .filter((d) => !(d in mine))
    .flatMap((d) => filesUnder(ingestFixture(d))),
];

describe('detection of WhatsApp, WeChat, QQ, LINE and Markdown exports', () => {
  it.each(ownFixtures)('%s claims %s, and no other of these importers does', (id, file) => {
    const head = headOf(file);
    const claims = (Object.keys(mine) as Mine[]).filter((k) => mine[k].detect({ path: file, head }));
    expect(claims).toEqual([id]);
  });

  it.each(ownFixtures)('the registry picks %s for %s', async (id, file) => {
    expect((await detectFormat(file)).id).toBe(id);
  });

  it('none of them claims another format’s fixtures', () => {
    expect(otherFixtures.length).toBeGreaterThan(0);
    const claimed = otherFixtures.flatMap((file) => {
      const head = headOf(file);
      return (Object.keys(mine) as Mine[]).filter((k) => mine[k].detect({ path: file, head })).map((k) => `${k}: ${file}`);
    });
    expect(claimed).toEqual([]);
  });
});
