import { NemoriError } from '../domain/errors.js';

/** Opaque page cursors: the sort time and id of the last item shown (keyset paging). */
export function encodeCursor(at: Date, id: string): string {
  return Buffer.from(`${at.toISOString()}|${id}`).toString('base64url');
}

export function decodeCursor(cursor: string): { at: Date; id: string } {
  const [when, id] = Buffer.from(cursor, 'base64url').toString().split('|');
  const at = new Date(when ?? '');
  if (!id || Number.isNaN(at.getTime())) throw new NemoriError('INVALID_INPUT', 'the page cursor is not valid; start from the first page');
  return { at, id };
}
