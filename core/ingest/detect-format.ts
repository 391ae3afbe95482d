import fs from 'node:fs/promises';
import { NemoriError } from '../domain/errors.js';
import type { ImportFormat } from './import-format.js';
import { chatgptImport } from './chatgpt.js';
import { claudeImport } from './claude.js';
import { discordImport } from './discord.js';
import { genericJson, genericJsonl } from './generic.js';
import { googleChatImport } from './google-chat.js';
import { messengerImport } from './messenger.js';
import { skypeImport } from './skype.js';
import { slackImport } from './slack.js';
import { telegramImport } from './telegram.js';
import { lineImport } from './line.js';
import { markdownImport } from './markdown.js';
import { qqImport } from './qq.js';
import { wechatImport } from './wechat.js';
import { whatsappImport } from './whatsapp.js';

/** Every importer, most specific first: detection takes the first that recognises a file. */
export const importFormats: readonly ImportFormat[] = [
  whatsappImport,
  wechatImport,
  qqImport,
  lineImport,
  chatgptImport,
  claudeImport,
  telegramImport,
  discordImport,
  messengerImport,
  googleChatImport,
  skypeImport,
  slackImport,
  markdownImport,
  genericJsonl,
  genericJson,
];

async function head(file: string, bytes = 64 * 1024): Promise<string> {
  const fh = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(bytes);
    const { bytesRead } = await fh.read(buf, 0, bytes, 0);
    return buf.subarray(0, bytesRead).toString('utf8');
  } finally {
    await fh.close();
  }
}

export async function detectFormat(file: string, forced?: string): Promise<ImportFormat> {
  let text: string;
  try {
    const stat = await fs.stat(file);
    // A pipe or a device would block the import on its first read, forever: only files and folders are read.
    if (!stat.isFile() && !stat.isDirectory()) {
      throw new NemoriError('INVALID_INPUT', `${file}: not a regular file (a pipe, socket or device); save the export to a file first`, {
        file,
      });
    }
    if (forced) {
      const f = importFormats.find((x) => x.id === forced);
      if (!f) throw new NemoriError('INVALID_INPUT', `unknown format "${forced}"; known: ${importFormats.map((x) => x.id).join(', ')}`);
      return f;
    }
    if (stat.isDirectory()) {
      const folderFormat = importFormats.find((x) => x.readsFolders);
      if (folderFormat) return folderFormat;
      throw new NemoriError('INVALID_INPUT', `${file} is a folder; name the export files inside it`);
    }
    text = await head(file);
  } catch (e) {
    if (e instanceof NemoriError) throw e;
    throw new NemoriError('INVALID_INPUT', `${file}: cannot read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { file });
  }
  const f = importFormats.find((x) => x.detect({ path: file, head: text }));
  if (!f) {
    throw new NemoriError(
      'IMPORT_PARSE',
      `${file}: line 1: not a format Nemori recognises (known: ${importFormats.map((x) => x.label).join(', ')}); use --format to force one`,
      { file, line: 1 },
    );
  }
  return f;
}
