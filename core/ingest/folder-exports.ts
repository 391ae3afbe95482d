import fs from 'node:fs/promises';
import path from 'node:path';
import { NemoriError } from '../domain/errors.js';
import { mimeTypeOf } from './chat-text.js';
import { detectFormat } from './detect-format.js';

/**
 * A folder a person imports can hold anything: a Markdown journal, a Telegram export beside it, a
 * Messenger download with a thread per folder, the photos that came with them. Each file is detected
 * on its own; the Markdown files stay one folder import (their paths are their identity), and files no
 * format recognises (media, notes) are left alone.
 */

// Folders no export lives in; dot-folders (.git, .obsidian, .trash) are skipped too.
const IGNORED_DIRS = new Set(['node_modules', '__MACOSX']);
// Enough for a Messenger download of a few thousand threads; a person who points at their home folder
// is told to name the exports rather than wait for every file on the disk to be opened.
const MAX_FILES = 20_000;

const isMarkdown = (name: string) => /\.(md|markdown)$/i.test(name);
// Photos, videos and voice notes that came with an export are never an export themselves.
const isMedia = (name: string) => /^(image|video|audio)\//.test(mimeTypeOf(name) ?? '');

/** The files to import for `dir`: the folder itself when it holds Markdown, then every other export in it. */
export async function exportsInFolder(dir: string): Promise<string[]> {
  const candidates: string[] = [];
  let markdown = false;
  let seen = 0;
  const walk = async (d: string): Promise<void> => {
    for (const e of await fs.readdir(d, { withFileTypes: true })) {
      // Symbolic links are not followed: a link back up the tree would never end.
      if (e.name.startsWith('.')) continue;
      const full = path.join(d, e.name);
      if (e.isDirectory()) {
        if (!IGNORED_DIRS.has(e.name)) await walk(full);
      } else if (e.isFile()) {
        if (++seen > MAX_FILES)
          throw new NemoriError(
            'INVALID_INPUT',
            `${dir}: more than ${MAX_FILES} files in this folder; name the export files or a smaller folder`,
          );
        if (isMarkdown(e.name)) markdown = true;
        else if (!isMedia(e.name)) candidates.push(full);
      }
    }
  };
  await walk(dir);
  const found: string[] = [];
  for (const file of candidates.sort()) {
    try {
      if ((await detectFormat(file)).id !== 'markdown') found.push(file);
    } catch (e) {
      if (!(e instanceof NemoriError)) throw e;
    }
  }
  // A folder with neither stays as it is: the Markdown reader then says it found nothing to import.
  return markdown || found.length === 0 ? [dir, ...found] : found;
}
