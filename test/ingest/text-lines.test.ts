import iconv from 'iconv-lite';
import { describe, expect, it } from 'vitest';
import { detectTextEncoding, readLines, splitLines } from '../../core/ingest/text-lines.js';
import { writeTemp } from './chat-helpers.js';

async function collect(it: AsyncIterable<{ line: string; lineNo: number }>): Promise<string[]> {
  const out: string[] = [];
  for await (const l of it) out.push(`${l.lineNo}:${l.line}`);
  return out;
}

async function* chunks(...parts: string[]): AsyncGenerator<string> {
  yield* parts;
}

describe('text lines', () => {
  it('splits \\n, \\r\\n and lone \\r, also when \\r\\n straddles two chunks', async () => {
    expect(await collect(splitLines(chunks('a\r', '\nb\nc\r', 'd\r\n', 'e')))).toEqual(['1:a', '2:b', '3:c', '4:d', '5:e']);
    expect(await collect(splitLines(chunks('\ufeffx\n\ny\n')))).toEqual(['1:x', '2:', '3:y']);
  });

  it('detects BOMs, UTF-8 without BOM, and falls back to GB18030 for GBK', async () => {
    const text = '消息记录\n2019-07-16 18:15:05 张三(12345)\n你好\n';
    const cases: Array<[Buffer, string]> = [
      [Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]), 'utf8'],
      [Buffer.from(text), 'utf8'],
      [iconv.encode(text, 'utf16le', { addBOM: true }), 'utf16le'],
      [iconv.encode(text, 'utf16-be', { addBOM: true }), 'utf16be'],
      [iconv.encode(text, 'gbk'), 'gb18030'],
    ];
    for (const [bytes, encoding] of cases) {
      const file = writeTemp('t.txt', bytes);
      expect((await detectTextEncoding(file)).encoding).toBe(encoding);
      expect(await collect(readLines(file))).toEqual(['1:消息记录', '2:2019-07-16 18:15:05 张三(12345)', '3:你好']);
    }
  });

  it('tells Latin-1 (Windows-1252) from GBK', async () => {
    const western = ['Héllo café, à bientôt!', 'Grüße aus Köln — ça va?', 'hélène: señor, mañana'];
    const chinese = ['你好，明天见', '周末去苏州玩两天，有什么推荐？', 'GBK 里也有 ASCII：abc 123'];
    for (const line of western) {
      const file = writeTemp('latin.txt', iconv.encode(`${line}\n`, 'windows1252'));
      expect((await detectTextEncoding(file)).encoding, line).toBe('windows1252');
      expect(await collect(readLines(file))).toEqual([`1:${line}`]);
    }
    for (const line of chinese) {
      const file = writeTemp('gbk.txt', iconv.encode(`${line}\n`, 'gbk'));
      expect((await detectTextEncoding(file)).encoding, line).toBe('gb18030');
      expect(await collect(readLines(file))).toEqual([`1:${line}`]);
    }
  });

  it('refuses a NUL character with its line and column', async () => {
    const file = writeTemp('nul.txt', 'first line\nsecond\u0000line\n');
    await expect(collect(readLines(file))).rejects.toThrow(/nul\.txt: line 2, column 7: a NUL character/);
  });

  it('keeps a multi-byte character that falls on the 64 KiB sniffing boundary as UTF-8', async () => {
    const file = writeTemp('t.txt', Buffer.from(`${'a'.repeat(64 * 1024 - 1)}好\n`));
    expect((await detectTextEncoding(file)).encoding).toBe('utf8');
  });
});
