import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IncomingConversation } from '../../core/domain/conversation.js';
import type { Engine } from '../../core/engine/open-engine.js';
import { genericJson, genericJsonl, JSONL_WAITING_MESSAGES } from '../../core/ingest/generic.js';
import { PART_MESSAGES } from '../../core/ingest/parts.js';
import { newOwner, openMemoryEngine } from '../helpers/engine.js';
import { writeTemp } from './chat-helpers.js';
import { readAll } from './read-all.js';

/**
 * Nemori's own formats stream like the chat apps' exports: a long conversation comes back in parts that
 * the store joins into what the whole conversation gives, errors keep their exact place in the file,
 * and interleaved JSONL holds at most JSONL_WAITING_MESSAGES messages before handing some back.
 */

let engine: Engine;
beforeAll(async () => {
  engine = await openMemoryEngine();
});
afterAll(async () => {
  await engine.close();
});

interface Written {
  id?: string;
  speaker: string;
  text: string;
  timestamp: string;
}

const start = Date.UTC(2024, 0, 1);
const at = (minute: number) => new Date(start + minute * 60_000).toISOString();
/**
 * Message i's minute: sessions of five messages `step` minutes apart, two hours between sessions. The
 * engine builds episodes a window of messages at a time, and where a topic shift cuts depends on the
 * window's statistics (core/episodes), so a chat without pauses is cut a little differently once its
 * windows start elsewhere; pauses make every cut the same, however the chat arrives.
 */
const sessionMinute = (i: number, step = 1) => Math.floor(i / 5) * 120 + (i % 5) * step;
const total = 2 * PART_MESSAGES + 1;
/** Messages PART_MESSAGES-1 and PART_MESSAGES share a minute: no part may cut between them. */
const long: Written[] = Array.from({ length: total }, (_, i) => ({
  id: `m${i}`,
  speaker: i % 2 ? 'Ana' : '李雷',
  text: `message ${i} about the trip to Lisbon`,
  timestamp: at(sessionMinute(i === PART_MESSAGES ? i - 1 : i)),
}));
const short: Written[] = [
  { speaker: 'Ana', text: 'short one', timestamp: at(sessionMinute(total + 5)) },
  { speaker: 'Bob', text: 'indeed', timestamp: at(sessionMinute(total + 6)) },
  { speaker: 'Ana', text: 'bye', timestamp: at(sessionMinute(total + 7)) },
];

/** One message per line, so a message's line is its index plus the lines before the array. */
function conversationsFile(objects: string[]): string {
  return `{"conversations": [\n${objects.join(',\n')}\n]}\n`;
}
const messageLines = (messages: Written[]) => messages.map((m) => `  ${JSON.stringify(m)}`).join(',\n');
const idFirst = (id: string, messages: Written[]) =>
  `{"id": "${id}", "title": "Long chat", "metadata": {"from": "a script"}, "messages": [\n${messageLines(messages)}\n]}`;
/** The header after the messages: the reader cannot cut parts before it knows the id, so it holds the whole. */
const idLast = (id: string, messages: Written[]) =>
  `{"messages": [\n${messageLines(messages)}\n], "id": "${id}", "title": "Long chat", "metadata": {"from": "a script"}}`;

const shape = (cs: IncomingConversation[]) => cs.map((c) => [c.externalId, c.messages.length, c.metadata.continued]);

/** Rows in an order that does not depend on how the store breaks ties (several conversations in one minute). */
const sorted = <T>(rows: T[]) =>
  rows
    .map((r) => [JSON.stringify(r), r] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([, r]) => r);

/** What a person would find in the store: every message with its number, and every episode with its messages. */
async function snapshot(ownerId: string) {
  const read = engine.context.store.read;
  const episodes = await read.episodes.list(ownerId, { limit: 10_000 });
  const messages = await read.conversations.messagesByIds(
    ownerId,
    episodes.flatMap((e) => e.messageIds),
  );
  const external = new Map(messages.map((m) => [m.id, m.externalId ?? `${m.speaker}: ${m.text}`]));
  return {
    messages: sorted(messages.map((m) => [m.sentAt.toISOString(), m.externalId, m.seq, m.speaker, m.text])),
    episodes: sorted(
      episodes.map((e) => [e.temporal.start, e.temporal.end, e.title, e.content, e.messageIds.map((id) => external.get(id))]),
    ),
  };
}

describe('Nemori JSON in parts', () => {
  const parted = () => writeTemp('parted.json', conversationsFile([idFirst('long', long), idFirst('short', short)]));
  const whole = () => writeTemp('whole.json', conversationsFile([idLast('long', long), idLast('short', short)]));

  it('hands a long conversation back in parts once its id is known, never cutting one instant, each part with the header', async () => {
    const { conversations, warnings } = await readAll(genericJson, parted());
    expect(shape(conversations)).toEqual([
      ['long', PART_MESSAGES + 1, undefined],
      ['long', PART_MESSAGES, true],
      ['short', 3, undefined],
    ]);
    expect(conversations.map((c) => [c.title, c.metadata.from])).toEqual(Array(3).fill(['Long chat', 'a script']));
    expect(warnings).toEqual([]);

    const held = (await readAll(genericJson, whole())).conversations;
    expect(shape(held)).toEqual([
      ['long', total, undefined],
      ['short', 3, undefined],
    ]);
    expect(conversations.slice(0, 2).flatMap((c) => c.messages)).toEqual(held[0]!.messages);
  });

  it('says when metadata written after the messages comes too late for the stored conversation', async () => {
    const file = writeTemp(
      'late.json',
      conversationsFile([`{"id": "long", "messages": [\n${messageLines(long)}\n], "metadata": {"late": true}}`]),
    );
    const { conversations, warnings } = await readAll(genericJson, file);
    expect(shape(conversations)).toEqual([
      ['long', PART_MESSAGES + 1, undefined],
      ['long', PART_MESSAGES, true],
    ]);
    expect(warnings).toEqual([expect.stringMatching(/late\.json: conversation long: "metadata" comes after its first 5000 messages/)]);
  });

  it('imports in parts exactly what the whole conversation gives: same messages, order and episodes; again, nothing added', async () => {
    const inParts = newOwner('json-parts');
    const asWhole = newOwner('json-whole');
    const file = parted();
    expect((await engine.call('importFiles', { ownerId: inParts, paths: [file] })).files[0]).toMatchObject({
      error: null,
      conversations: 2,
      messages: total + 3,
      messagesAdded: total + 3,
    });
    expect((await engine.call('importFiles', { ownerId: asWhole, paths: [whole()] })).files[0]).toMatchObject({
      error: null,
      messagesAdded: total + 3,
    });
    const got = await snapshot(inParts);
    expect(got.messages).toHaveLength(total + 3);
    expect(got).toEqual(await snapshot(asWhole));
    expect((await engine.call('stats', { ownerId: inParts })).owners[0]).toMatchObject({ conversations: 2, messages: total + 3 });

    expect((await engine.call('importFiles', { ownerId: inParts, paths: [file] })).files[0]).toMatchObject({
      error: null,
      messagesAdded: 0,
    });
    expect(await snapshot(inParts)).toEqual(got);
  }, 180_000);
});

describe('Nemori JSON errors keep their place', () => {
  const refused = (name: string, content: string) => readAll(genericJson, writeTemp(name, content));

  it('{"conversations": […]}: a bad message after the first part, a bad header field after the messages, a missing id', async () => {
    const bad = long.map((m, i) => (i === 6000 ? { ...m, timestamp: 'soon' } : m));
    // Line 1 opens the file, line 2 the conversation: message i is on line i + 3.
    await expect(refused('late-error.json', conversationsFile([idFirst('long', bad)]))).rejects.toThrow(
      /late-error\.json: line 6003, column 91: conversations\[0\]\.messages\[6000\]\.timestamp: "soon" is not a time/,
    );
    await expect(
      refused('title.json', conversationsFile([`{"id": "s", "messages": [\n${messageLines(short)}\n], "title": 5}`])),
    ).rejects.toThrow(/title\.json: line 6, column 13: conversations\[0\]\.title: Invalid input: expected string, received number/);
    await expect(refused('no-id.json', '{"conversations": [\n {"title": "x",\n  "messages": []}]}')).rejects.toThrow(
      /no-id\.json: line 2, column 2: conversations\[0\]\.id: Invalid input/,
    );
    await expect(refused('not-a-list.json', '{"conversations": [{"id": "x", "messages": 5}]}')).rejects.toThrow(
      /not-a-list\.json: line 1, column 44: conversations\[0\]\.messages: Invalid input: expected array, received number/,
    );
  });

  it('[…] and one conversation: the field, its line and column', async () => {
    const message = (text: unknown, timestamp = '2024-01-01T00:00:00Z') => JSON.stringify({ speaker: 'A', text, timestamp });
    await expect(refused('list.json', `[{"id":"a","messages":[${message('x')},\n ${message(7)}]}]`)).rejects.toThrow(
      /list\.json: line 2, column 24: \[0\]\.messages\[1\]\.text: Invalid input: expected string, received number/,
    );
    await expect(refused('one.json', `{"id":"a",\n "messages":[${message('x', '2024-13-01T00:00:00Z')}]}`)).rejects.toThrow(
      /one\.json: line 2, column 52: messages\[0\]\.timestamp: "2024-13-01T00:00:00Z" is not a real date and time/,
    );
    await expect(refused('no-messages.json', '{"id": "a", "title": "t"}')).rejects.toThrow(
      /no-messages\.json: line 1, column 1: messages: Invalid input: expected array, received undefined/,
    );
    await expect(refused('both.json', `{"messages": [${message('x')}],\n "conversations": []}`)).rejects.toThrow(
      /both\.json: line 2, column 19: conversations: a file holds "conversations" or one conversation's "messages", not both/,
    );
    await expect(refused('cut.json', `{"id": "a", "messages": [\n${message('x')}`)).rejects.toThrow(
      /cut\.json: line 2, column \d+: invalid JSON: the file ends in the middle of the data/,
    );
    await expect(refused('number.json', '42')).rejects.toThrow(/number\.json: .*expected a JSON object or array at the top of the file/);
    await expect(refused('blank.json', ' \n\n')).rejects.toThrow(/blank\.json: .*the file is empty/);
  });
});

describe('Nemori JSONL', () => {
  const each = 4000;
  const chats = ['a', 'b', 'c'];
  /** Three conversations' lines taken in turn: every one waits below a part when the cap is reached. */
  function interleaved(): { file: string; lines: Array<Written & { conversation: string }> } {
    const lines: Array<Written & { conversation: string }> = [];
    for (let i = 0; i < each; i++)
      for (const [k, conversation] of chats.entries()) {
        // Lines 9997-10005 are one minute, in which a says "ok" three times, without ids, around the cap.
        const minute = i >= 3332 && i <= 3334;
        const ok = minute && conversation === 'a';
        lines.push({
          conversation,
          ...(ok ? {} : { id: `${conversation}${i}` }),
          speaker: i % 2 ? 'Ana' : 'Bob',
          text: ok ? 'ok' : `${conversation} says ${i}`,
          timestamp: at(minute ? sessionMinute(3332, 3) : sessionMinute(i, 3) + k),
        });
      }
    return { file: writeTemp('chat.jsonl', lines.map((l) => JSON.stringify(l)).join('\n')), lines };
  }

  it('hands back the largest waiting conversations when the cap is passed, keeping each one in file order and one instant whole', async () => {
    expect(JSONL_WAITING_MESSAGES).toBe(10_000);
    const { file, lines } = interleaved();
    const { conversations } = await readAll(genericJsonl, file);
    // At line 10,001 a and b hold 3,334 each and c 3,333: a goes back without its last two (two "ok"
    // in the minute being read, which its next line continues), then b without its last two, until no
    // more than 5,000 wait.
    expect(shape(conversations)).toEqual([
      ['a', 3332, undefined],
      ['b', 3332, undefined],
      ['a', 668, true],
      ['b', 668, true],
      ['c', 4000, undefined],
    ]);
    for (const id of chats)
      expect(conversations.filter((c) => c.externalId === id).flatMap((c) => c.messages.map((m) => m.text))).toEqual(
        lines.filter((l) => l.conversation === id).map((l) => l.text),
      );
    expect(conversations[2]!.messages.slice(0, 3).map((m) => m.text)).toEqual(['ok', 'ok', 'ok']);
  });

  it('hands back whole the conversations a file written one after another has left behind', async () => {
    const lines = Array.from({ length: 3 * each }, (_, i) =>
      JSON.stringify({ conversation: `day ${Math.floor(i / 3)}`, speaker: 'Ana', text: `note ${i}`, timestamp: at(sessionMinute(i)) }),
    );
    const { conversations } = await readAll(genericJsonl, writeTemp('days.jsonl', lines.join('\n')));
    expect(conversations).toHaveLength(each);
    expect(conversations.every((c, n) => c.externalId === `day ${n}` && c.messages.length === 3 && !c.metadata.continued)).toBe(true);
  });

  it('imports what the conversations give whole, the three "ok" included; again, nothing added', async () => {
    const { file, lines } = interleaved();
    const inParts = newOwner('jsonl-parts');
    const asWhole = newOwner('jsonl-whole');
    const grouped = chats.map((id) =>
      idFirst(
        id,
        lines.filter((l) => l.conversation === id).map(({ conversation: _, ...m }) => m),
      ),
    );
    expect((await engine.call('importFiles', { ownerId: inParts, paths: [file] })).files[0]).toMatchObject({
      error: null,
      conversations: 3,
      messages: 3 * each,
      messagesAdded: 3 * each,
    });
    await engine.call('importFiles', { ownerId: asWhole, paths: [writeTemp('grouped.json', conversationsFile(grouped))] });
    const got = await snapshot(inParts);
    expect(got.messages.filter((m) => m[4] === 'ok')).toHaveLength(3);
    expect(got).toEqual(await snapshot(asWhole));
    expect((await engine.call('importFiles', { ownerId: inParts, paths: [file] })).files[0]).toMatchObject({
      error: null,
      messagesAdded: 0,
    });
    expect(await snapshot(inParts)).toEqual(got);
  }, 180_000);

  it('names the line of a bad message after parts were handed back', async () => {
    const { lines } = interleaved();
    const bad = lines.map((l, i) => JSON.stringify(i === 11_000 ? { ...l, speaker: '' } : l));
    await expect(readAll(genericJsonl, writeTemp('late.jsonl', bad.join('\n')))).rejects.toThrow(
      /late\.jsonl: line 11001: speaker: Too small: expected string to have >=1 characters/,
    );
  });
});
