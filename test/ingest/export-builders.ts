/**
 * Small exports written for this project, in each JSON format's shape, from a list of messages: the
 * time-shape tests and the bad-input corpus build their files with these. Pretty-printed (one field per
 * line) so that an error's line number points at one field.
 */

export interface Said {
  time: string | number;
  text: string;
  speaker?: string;
}

const who = (m: Said, i: number) => m.speaker ?? (i % 2 ? 'Lin Wei' : '王小明');
const json = (v: unknown) => JSON.stringify(v, null, 1);

export const telegramExport = (said: Said[]) =>
  json({
    name: '王小明',
    type: 'personal_chat',
    id: 42,
    messages: said.map((m, i) => ({ id: i + 1, type: 'message', date: m.time, from: who(m, i), text: m.text })),
  });

export const claudeExport = (said: Said[]) =>
  json([
    {
      uuid: 'c1',
      name: '时间',
      chat_messages: said.map((m, i) => ({ uuid: `m${i}`, sender: i % 2 ? 'assistant' : 'human', text: m.text, created_at: m.time })),
    },
  ]);

export function chatgptExport(said: Said[]): string {
  const mapping: Record<string, unknown> = { root: { message: null, parent: null, children: ['m0'] } };
  said.forEach((m, i) => {
    mapping[`m${i}`] = {
      message: {
        id: `m${i}`,
        author: { role: i % 2 ? 'assistant' : 'user' },
        create_time: m.time,
        content: { content_type: 'text', parts: [m.text] },
      },
      parent: i === 0 ? 'root' : `m${i - 1}`,
      children: i + 1 < said.length ? [`m${i + 1}`] : [],
    };
  });
  return json([{ id: 'c1', title: '时间', mapping, current_node: `m${said.length - 1}` }]);
}

export const discordExport = (said: Said[]) =>
  json({
    guild: { id: 'g', name: 'G' },
    channel: { id: 'c', name: 'general' },
    messages: said.map((m, i) => ({
      id: `m${i}`,
      type: 'Default',
      timestamp: m.time,
      content: m.text,
      author: { id: `a${i % 2}`, name: who(m, i) },
    })),
  });

export const messengerExport = (said: Said[]) =>
  json({
    participants: [{ name: '王小明' }, { name: 'Lin Wei' }],
    messages: said.map((m, i) => ({ sender_name: who(m, i), timestamp_ms: m.time, content: m.text })).reverse(),
  });

export const nemoriJsonExport = (said: Said[]) =>
  json({ id: 'c1', messages: said.map((m, i) => ({ id: i, speaker: who(m, i), text: m.text, timestamp: m.time })) });

export const nemoriJsonlExport = (said: Said[]) =>
  said.map((m, i) => JSON.stringify({ conversation: 'c1', id: i, speaker: who(m, i), text: m.text, timestamp: m.time })).join('\n');

export const wechatJsonExport = (said: Said[]) =>
  json({
    session: { wxid: 'wxid_a', displayName: '王小明' },
    messages: said.map((m, i) => ({
      createTime: m.time,
      type: 1,
      content: m.text,
      isSend: i % 2,
      senderUsername: i % 2 ? 'me' : 'wxid_a',
      senderDisplayName: who(m, i),
    })),
  });
