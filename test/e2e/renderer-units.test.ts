/**
 * The renderer's pure logic, in Node (no browser): the windowed list's arithmetic at 100k rows,
 * grouping episodes under the day they happened (in their own time zone), the hash routes, which
 * words a result marks, and the two UI dictionaries.
 */
import { describe, expect, it } from 'vitest';
import type { EpisodeView } from '../../renderer/src/api/types';
import { prefixOffsets, rowAt, scrollToReveal, visibleRange } from '../../renderer/src/components/windowing';
import { en } from '../../renderer/src/i18n/en';
import { localeFor } from '../../renderer/src/i18n/locale';
import { translate } from '../../renderer/src/i18n/translate';
import { zh } from '../../renderer/src/i18n/zh';
import {
  dayKey,
  formatDay,
  formatDays,
  formatOffset,
  formatRelative,
  formatSpan,
  instantRangeForLocalDays,
  monthGrid,
} from '../../renderer/src/lib/dates';
import { hashOf, parseHash } from '../../renderer/src/lib/routes';
import { sourceName } from '../../renderer/src/lib/sources';
import { snippet, termPattern } from '../../renderer/src/lib/terms';
import { formatByteProgress } from '../../renderer/src/lib/format';
import { describeError } from '../../renderer/src/lib/errors';
import { describeReason } from '../../renderer/src/lib/reasons';
import { describeMatch } from '../../renderer/src/lib/match';
import type { ForgettingReason } from '../../renderer/src/api/types';
import type { Locale } from '../../renderer/src/i18n/locale';
import { applyEvent, modelNotice, type EventsState } from '../../renderer/src/store/event-state';
import { currentStage } from '../../renderer/src/store/stages';
import { appendRows, mergeHead, toEntry, type Entry } from '../../renderer/src/store/journal-rows';

describe('the windowed journal list', () => {
  const heights = Array.from({ length: 100_000 }, (_, i) => (i % 4 === 0 ? 60 : 136));
  const offsets = prefixOffsets(heights);

  it('knows the exact height of 100k rows without measuring any', () => {
    expect(offsets[100_000]).toBe(25_000 * 60 + 75_000 * 136);
  });

  it('renders only the rows near the viewport, wherever it is scrolled', () => {
    for (const scrollTop of [0, 1_000_000, offsets[99_990]!]) {
      const { start, end } = visibleRange(offsets, scrollTop, 800, 600);
      expect(end - start).toBeLessThan(30);
      expect(offsets[start]!).toBeLessThanOrEqual(Math.max(0, scrollTop - 600));
      expect(offsets[end]!).toBeGreaterThanOrEqual(Math.min(offsets[100_000]!, scrollTop + 800 + 600));
    }
  });

  it('finds the row under a point and scrolls a row into view by the least amount', () => {
    expect(rowAt(offsets, 0)).toBe(0);
    expect(rowAt(offsets, 59)).toBe(0);
    expect(rowAt(offsets, 60)).toBe(1);
    expect(rowAt(offsets, 1e12)).toBe(99_999);
    expect(scrollToReveal(offsets, 1, 0, 800)).toBe(0); // already visible
    expect(scrollToReveal(offsets, 10, 0, 800)).toBe(offsets[11]! - 800); // below: align bottom
    expect(scrollToReveal(offsets, 2, 5000, 800)).toBe(offsets[2]); // above: align top
  });

  it('copes with an empty list', () => {
    expect(visibleRange(prefixOffsets([]), 0, 800, 600)).toEqual({ start: 0, end: 0 });
  });
});

function episode(id: string, start: string, utcOffsetMin: number): EpisodeView {
  return {
    id,
    ownerId: 'o',
    conversationId: null,
    episodeType: 'conversational',
    level: 1,
    title: id,
    content: '…',
    summary: 's',
    start,
    end: start,
    utcOffsetMin,
    metadata: {
      entities: [],
      topics: [],
      emotions: [],
      keyPoints: [],
      timeReferences: [],
      participants: ['A', 'B'],
      messageCount: 2,
      custom: {},
    },
    structuredData: {},
    keywords: [],
    importance: 0.5,
    recallCount: 0,
    lastAccessed: null,
    builder: 'heuristic',
    processingStatus: 'ready',
    processingVersion: 'v',
    embeddingModel: null,
    messageIds: [],
    semanticNodeIds: [],
    createdAt: start,
    updatedAt: start,
  };
}

describe('days in the journal', () => {
  it('are the local days the episodes happened on, not the computer’s', () => {
    // 23:30 in Shanghai is 15:30 UTC; 01:00 in New York on the 9th is 06:00 UTC on the 9th.
    expect(dayKey('2024-03-08T15:30:00.000Z', 480)).toBe('2024-03-08');
    expect(dayKey('2024-03-08T16:30:00.000Z', 480)).toBe('2024-03-09');
    expect(dayKey('2024-03-09T06:00:00.000Z', -300)).toBe('2024-03-09');
    expect(formatSpan('2023-05-08T07:00:00.000Z', '2023-05-08T18:17:00.000Z', 120, 'en')).toBe('09:00 – 20:17');
    expect(formatOffset(120)).toBe('UTC+02:00');
    expect(formatOffset(-330)).toBe('UTC−05:30');
  });

  it('group consecutive episodes under one heading per day, across pages', () => {
    const page1 = [episode('a', '2024-03-09T08:15:00.000Z', 60), episode('b', '2024-03-05T11:00:00.000Z', 480)].map(toEntry);
    const page2 = [episode('c', '2024-03-05T10:00:00.000Z', 480), episode('d', '2024-03-01T12:10:00.000Z', 480)].map(toEntry);
    const rows = appendRows(appendRows([], page1), page2);
    expect(rows.map((r) => (r.kind === 'day' ? `${r.day}:${r.count}` : r.key))).toEqual([
      '2024-03-09:1',
      'a',
      '2024-03-05:2',
      'b',
      'c',
      '2024-03-01:1',
      'd',
    ]);
  });

  it('keep list entries light: no narrative, a bounded summary', () => {
    const e: Entry = toEntry({
      ...episode('x', '2024-01-01T00:00:00.000Z', 0),
      content: 'long '.repeat(10_000),
      summary: 'y'.repeat(5000),
    });
    expect(JSON.stringify(e).length).toBeLessThan(1000);
  });

  it("mark a live conversation's open episode as ongoing, and follow it when the newest page is read again", () => {
    const open = toEntry({ ...episode('live-1', '2024-03-09T09:00:00.000Z', 60), processingStatus: 'open' });
    expect(open.ongoing).toBe(true);
    expect(toEntry(episode('a', '2024-03-09T08:15:00.000Z', 60)).ongoing).toBe(false);
    const loaded = [open, ...['a', 'b', 'c'].map((id, i) => toEntry(episode(id, `2024-03-0${8 - i}T08:00:00.000Z`, 60)))];
    // The open tail was rebuilt (a new id, a later end) and part of it closed into an episode; the head covers down to `b`.
    const grown = toEntry({ ...episode('live-2', '2024-03-09T09:30:00.000Z', 60), processingStatus: 'open' });
    const closed = toEntry(episode('closed', '2024-03-09T09:00:00.000Z', 60));
    const head = [grown, closed, loaded[1]!, loaded[2]!];
    const merged = mergeHead(loaded, head, true);
    expect(merged?.entries.map((e) => e.id)).toEqual(['live-2', 'closed', 'a', 'b', 'c']);
    expect(merged?.kept).toBe(1);
    // Read again with nothing new: no change. A head that is everything keeps nothing older.
    expect(mergeHead(merged!.entries, head, true)).toBeNull();
    expect(mergeHead(loaded, [grown, closed], false)?.entries.map((e) => e.id)).toEqual(['live-2', 'closed']);
  });

  it("say how long ago a companion called, in the reader's language", () => {
    const now = Date.parse('2024-04-02T10:00:00Z');
    expect(formatRelative('2024-04-02T09:57:00Z', now, 'en')).toBe('3 minutes ago');
    expect(formatRelative('2024-04-01T09:00:00Z', now, 'en')).toBe('yesterday');
    expect(formatRelative('2024-04-02T09:59:50Z', now, 'en')).toBe('now');
    expect(formatRelative('2024-04-02T09:57:00Z', now, 'zh')).toBe('3分钟前');
  });

  it('widen a jump by the time zones that could hold that local day', () => {
    expect(instantRangeForLocalDays('2024-03-01', '2024-04-01')).toEqual({
      since: '2024-02-29T10:00:00.000Z',
      until: '2024-04-01T12:00:00.000Z',
    });
  });

  it('read naturally in both languages, and the month grid starts on Monday', () => {
    expect(formatDay('2024-03-09', 'en')).toBe('Saturday, March 9, 2024');
    expect(formatDay('2024-03-09', 'zh')).toBe('2024年3月9日星期六');
    const march = monthGrid(2024, 2); // 1 March 2024 was a Friday
    expect(march.slice(0, 5)).toEqual([null, null, null, null, 1]);
    expect(march.filter(Boolean)).toHaveLength(31);
  });
});

describe('routes', () => {
  it('round-trip through the URL hash', () => {
    for (const route of [
      { name: 'journal' },
      { name: 'episode', id: '5d2c3d4e-0000-4000-8000-000000000001' },
      { name: 'search', q: '西湖 & boots?' },
      { name: 'settings' },
      { name: 'knowledge' },
      { name: 'knowledge', id: '5d2c3d4e-0000-4000-8000-000000000002' },
      // A fact named by its key: the colon, slashes and spaces survive the trip.
      { name: 'knowledge', id: "person:Alice's sister / Lisbon?" },
    ] as const) {
      expect(parseHash(hashOf(route))).toEqual(route);
    }
    expect(parseHash('')).toEqual({ name: 'journal' });
    expect(parseHash('#token=abc')).toEqual({ name: 'journal' });
    expect(parseHash('#/nowhere')).toEqual({ name: 'journal' });
  });
});

describe('marking matched terms', () => {
  const marks = (text: string, terms: string[]) => [...text.matchAll(termPattern(terms)!)].map((m) => m[0]);

  it('marks stemmed English words whole, and Chinese words where they appear', () => {
    expect(marks('I went hiking; hikes are great. Hike!', ['hike'])).toEqual(['hiking', 'hikes', 'Hike']);
    expect(marks('周六去杭州西湖骑自行车，西湖边的樱花', ['西湖', '自行车'])).toEqual(['西湖', '自行车', '西湖']);
    expect(marks('a+b (c)', ['a+b'])).toEqual(['a+b']);
    expect(termPattern([])).toBeNull();
  });

  it("shows the summary when it says a matched word, else the episode's matching messages", () => {
    const text = 'Sam and Lena talked on Saturday.\nSam: The robotics startup in Zurich invited me.\nLena: That is huge!';
    const zurich = termPattern(['zurich']);
    expect(snippet('Lena: That is huge!', text, zurich)).toBe('Sam: The robotics startup in Zurich invited me.');
    expect(snippet('Sam goes to Zurich.', text, zurich)).toBe('Sam goes to Zurich.');
    expect(snippet('Lena: That is huge!', text, termPattern(['kayak']))).toBe('Lena: That is huge!');
    expect(snippet('', 'x'.repeat(500), null)).toHaveLength(280);
  });

  it('says a result is from the period the query named, and which days that was, in both languages', () => {
    const tr = (locale: Locale) => (key: keyof typeof en, params?: Record<string, string | number>) => translate(locale, key, params);
    // It names the words as the query has them, not the index's stems.
    const reason = { matchedBy: ['bm25' as const], terms: ['dinner'], words: ['dinners'], explanation: '', during: 'last week' };
    const scores = { bm25: 1.18, vector: null };
    expect(describeMatch({ reason, scores }, tr('en'))).toBe('matched by the words “dinners” (BM25 1.18), and around “last week”');
    const none = { matchedBy: [], terms: [], words: [] };
    expect(describeMatch({ reason: { ...reason, ...none }, scores }, tr('en'))).toBe('around “last week”');
    expect(describeMatch({ reason: { ...reason, ...none, during: '上周' }, scores }, tr('zh'))).toBe('在“上周”前后');
    expect(formatDays('2026-11-16', '2026-11-22', 'en')).toMatch(/^Monday, \D*16\D*Sunday, \D*22\D*2026$/);
    expect(formatDays('2026-11-21', '2026-11-21', 'en')).toBe(formatDay('2026-11-21', 'en'));
    expect(formatDays('2024-03-01', '2024-03-31', 'en')).toBe('March 2024');
    expect(formatDays('2024-02-01', '2024-02-29', 'zh')).toBe('2024年2月');
    expect(formatDays('2023-01-01', '2023-12-31', 'zh')).toBe('2023年');
  });
});

describe('the two UI languages', () => {
  it('have the same keys, none empty, with the same placeholders', () => {
    expect(Object.keys(zh).sort()).toEqual(Object.keys(en).sort());
    const placeholders = (s: string) => [...s.matchAll(/\{(\w+)(?::[^}]*)?\}/g)].map((m) => m[1]).sort();
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect(zh[key].trim(), key).not.toBe('');
      expect(placeholders(zh[key]), key).toEqual(placeholders(en[key]));
    }
  });

  it('follow the system language: Chinese for any zh-*, English otherwise', () => {
    expect(localeFor(['zh-CN', 'en'])).toBe('zh');
    expect(localeFor(['zh-TW'])).toBe('zh');
    expect(localeFor(['en-GB', 'zh-CN'])).toBe('en');
    expect(localeFor(['fr-FR'])).toBe('en');
    expect(localeFor([])).toBe('en');
    expect(translate('zh', 'journal.episodes', { n: 3 })).toBe('3 个片段');
    expect(translate('en', 'journal.episodes', { n: 1 })).toBe('1 episode');
    expect(translate('en', 'journal.episodes', { n: '1,234' })).toBe('1,234 episodes');
    expect(translate('en', 'import.summary', { messages: 1, files: 1, episodes: 2 })).toBe(
      'Imported 1 new message from 1 file into 2 new episodes.',
    );
    expect(translate('zh', 'import.summary', { messages: 1, files: 1, episodes: 2 })).toBe(
      '从 1 个文件导入了 1 条新消息，生成 2 个新片段。',
    );
  });
});

describe('where conversations came from', () => {
  const inEnglish = (source: string) => sourceName(source, (key) => translate('en', key));
  const inChinese = (source: string) => sourceName(source, (key) => translate('zh', key));

  it('is named as a person reads it for every importer and the API, in both languages', () => {
    // The `source` each importer in core/ingest writes on its conversations, and ingestConversation's default.
    const known = [
      'whatsapp',
      'wechat',
      'qq',
      'line',
      'telegram',
      'messenger',
      'discord',
      'slack',
      'chatgpt',
      'claude',
      'markdown',
      'nemori-json',
      'nemori-jsonl',
      'api',
    ];
    for (const source of known) expect(inEnglish(source), source).not.toBe(source);
    expect(inEnglish('whatsapp')).toBe('WhatsApp');
    expect(inEnglish('nemori-json')).toBe('Nemori JSON');
    expect(inEnglish('api')).toBe('Companion app (API)');
    expect(inChinese('wechat')).toBe('微信');
    expect(inChinese('telegram')).toBe('Telegram');
  });

  it('shows any other source (a companion’s own name) as written', () => {
    expect(inEnglish('companion')).toBe('companion');
    expect(inChinese('my-agent')).toBe('my-agent');
  });
});

describe("the search model's first download", () => {
  const empty: EventsState = { running: {}, last: null, model: null };
  const MB = 1024 ** 2;

  it('turns model events into the bar a window shows: downloading with bytes, loading, then nothing', () => {
    let s = applyEvent(empty, {
      type: 'model',
      state: 'downloading',
      modelId: 'Xenova/multilingual-e5-small',
      loaded: 45 * MB,
      total: 118 * MB,
      file: 'onnx/model_quantized.onnx',
    });
    expect(modelNotice(s.model)).toEqual({ kind: 'downloading', loaded: 45 * MB, total: 118 * MB });
    expect(translate('en', 'model.downloading', formatByteProgress(45 * MB, 118 * MB))).toBe(
      'Downloading the search model: 45 of 118\u00a0MB',
    );
    expect(translate('zh', 'model.downloading', formatByteProgress(45 * MB, 118 * MB))).toBe('正在下载搜索模型：45 / 118\u00a0MB');
    // A call's events leave the model's state alone.
    s = applyEvent(s, { type: 'call', callId: 'c1', operation: 'importFiles', state: 'started' });
    expect(Object.keys(s.running)).toEqual(['c1']);
    expect(modelNotice(s.model)?.kind).toBe('downloading');
    s = applyEvent(s, { type: 'model', state: 'loading', modelId: 'Xenova/multilingual-e5-small' });
    expect(modelNotice(s.model)).toEqual({ kind: 'loading' });
    s = applyEvent(s, { type: 'model', state: 'ready', modelId: 'Xenova/multilingual-e5-small' });
    expect(modelNotice(s.model)).toBeNull();
    expect(modelNotice(applyEvent(empty, { type: 'model', state: 'unavailable', modelId: 'm', reason: 'offline' }).model)).toBeNull();
    expect(modelNotice(empty.model)).toBeNull();
  });

  it("keeps each phase of a call's progress, and finds the one the others wait on", () => {
    const progress = (phase: string, done: number, total: number) => ({
      type: 'progress' as const,
      callId: 'c1',
      operation: 'importFiles' as const,
      phase,
      done,
      total,
    });
    let s = applyEvent(empty, { type: 'call', callId: 'c1', operation: 'importFiles', state: 'started' });
    for (const e of [
      progress('import', 0, 10),
      progress('episodes', 0, 10),
      progress('embeddings', 0, 0),
      progress('import', 5, 10),
      progress('episodes', 5, 10),
      progress('embeddings', 2, 2),
    ])
      s = applyEvent(s, e);
    const { stages } = s.running.c1!;
    expect(Object.values(stages).map((p) => [p.phase, p.done, p.total])).toEqual([
      ['import', 5, 10],
      ['episodes', 5, 10],
      ['embeddings', 2, 2],
    ]);
    // The latest event (embeddings, complete) is not where the import stands: messages are still being stored.
    expect(currentStage(stages, Object.keys(stages))).toBe('import');
    s = applyEvent(s, progress('import', 10, 10));
    expect(currentStage(s.running.c1!.stages, ['import', 'episodes', 'embeddings'])).toBe('episodes');
    s = applyEvent(s, progress('episodes', 10, 10));
    expect(currentStage(s.running.c1!.stages, ['import', 'episodes', 'embeddings'])).toBeNull();
    // A stage not heard of yet has not begun.
    expect(currentStage(s.running.c1!.stages, ['import', 'episodes', 'embeddings', 'discovery'])).toBe('discovery');
  });

  it("counts bytes in the whole's unit", () => {
    expect(formatByteProgress(0, 118 * MB)).toEqual({ loaded: '0', total: '118\u00a0MB' });
    expect(formatByteProgress(118 * MB, 118 * MB)).toEqual({ loaded: '118', total: '118\u00a0MB' });
    expect(formatByteProgress(2.5 * MB, 4 * MB)).toEqual({ loaded: '2.5', total: '4.0\u00a0MB' });
    expect(formatByteProgress(362 * 1024, 995 * 1024)).toEqual({ loaded: '362', total: '995\u00a0KB' });
    expect(formatByteProgress(1.2 * 1024 ** 3, 2 * 1024 ** 3)).toEqual({ loaded: '1.2', total: '2.0\u00a0GB' });
  });
});

describe('why a memory was forgotten, and what went wrong, in the reader’s language', () => {
  const tr = (locale: Locale) => (key: keyof typeof en, params?: Record<string, string | number>) => translate(locale, key, params);
  const decay: ForgettingReason = { kind: 'decay', threshold: 'trash', limit: 500, score: 1234.5, days: 120, importance: 0.2, recalls: 0 };
  const reasons: ForgettingReason[] = [
    decay,
    { ...decay, threshold: 'archive', limit: 100, score: 42.25 },
    { kind: 'recovered', score: 12.3, limit: 100 },
    { kind: 'retention', days: 31, retentionDays: 30 },
    { kind: 'important' },
    { kind: 'restored', from: 'archive' },
    { kind: 'restored', from: 'trash' },
    { kind: 'emptied' },
    { kind: 'forgotten', request: { by: 'oldest' } },
    { kind: 'forgotten', request: { by: 'leastImportant' } },
    { kind: 'forgotten', request: { by: 'before', before: '2024-01-31T00:00:00.000Z' } },
  ];

  it('words every forgetting reason in Chinese, numbers as the locale writes them', () => {
    expect(describeReason(decay, tr('zh'), 'zh')).toBe(
      '衰减分数 1,235 ≥ 500（移入回收站的阈值）：已 120 天未被回忆，重要度 0.20，回忆过 0 次',
    );
    expect(describeReason(reasons[1]!, tr('zh'), 'zh')).toMatch(/^衰减分数 42\.3 ≥ 100（归档的阈值）/);
    for (const r of reasons) expect(describeReason(r, tr('zh'), 'zh'), r.kind).not.toMatch(/[A-Za-z]/);
    expect(describeReason({ kind: 'forgotten', request: { by: 'key', key: 'person:alice' } }, tr('zh'), 'zh')).toBe(
      '你要求遗忘它（person:alice）',
    );
  });

  it('and in English; a reason stored before reasons were data stays the sentence it was', () => {
    expect(describeReason(decay, tr('en'), 'en')).toBe(
      'Decay score 1,235 ≥ 500 (the trash threshold): 120 days without being recalled, importance 0.20, recalled 0×',
    );
    expect(new Set(reasons.map((r) => describeReason(r, tr('en'), 'en'))).size).toBe(reasons.length);
    const old = 'decay score 512 after 300 days without recall ≥ 500 (trash threshold)';
    expect(describeReason({ kind: 'text', text: old }, tr('zh'), 'zh')).toBe(old);
  });

  it('heads an engine error with what went wrong, then the engine’s detail', () => {
    expect(describeError({ code: 'NOT_FOUND', message: 'no memory 42' }, tr('zh'))).toBe('找不到这条记忆：no memory 42');
    expect(describeError({ code: 'INVALID_INPUT', message: 'the trash threshold must be above the archive threshold' }, tr('en'))).toBe(
      'Check what you entered: the trash threshold must be above the archive threshold',
    );
    expect(describeError({ code: 'ENGINE_UNAVAILABLE', message: 'Nemori is closing' }, tr('zh'))).toBe(
      '无法连接到记忆引擎：Nemori is closing',
    );
    expect(describeError({ code: 'LLM_TIMEOUT', message: 'connection-test: timed out' }, tr('zh'))).toMatch(/^语言模型响应超时：/);
    // A code the window does not know, or an error with none, still says something went wrong.
    expect(describeError({ code: 'SOMETHING_NEW', message: 'x' }, tr('zh'))).toBe('出了点问题：x');
    expect(describeError(new TypeError('Failed to fetch'), tr('en'))).toBe('Something went wrong: Failed to fetch');
  });
});
