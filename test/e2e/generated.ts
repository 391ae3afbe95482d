import fs from 'node:fs';
import path from 'node:path';

/**
 * A bigger import for the progress test: `conversations` chats of `perConversation` messages,
 * alternating English and Chinese, one per day in April 2024. Deterministic.
 */
export function writeClubExport(dir: string, conversations = 30, perConversation = 20): { file: string; messages: number } {
  const en = [
    'We planted tomatoes by the south fence.',
    'The compost needs turning again.',
    'Bring the seed catalogue on Sunday.',
    'The basil is finally sprouting.',
  ];
  const zh = ['今天在南边篱笆旁种了番茄。', '堆肥又该翻一翻了。', '周日记得带种子目录。', '罗勒终于发芽了。'];
  const out = {
    conversations: Array.from({ length: conversations }, (_, c) => {
      const chinese = c % 2 === 1;
      const day = String((c % 30) + 1).padStart(2, '0');
      return {
        id: `club-${c}`,
        title: chinese ? `社区花园 ${c}` : `Garden club ${c}`,
        messages: Array.from({ length: perConversation }, (_, m) => ({
          id: `club-${c}-${m}`,
          speaker: chinese ? (m % 2 ? '阿梅' : '我') : m % 2 ? 'Ruth' : 'Sam',
          text: (chinese ? zh : en)[m % 4]!,
          timestamp: `2024-04-${day}T${String(8 + Math.floor(m / 4)).padStart(2, '0')}:${String((m % 4) * 10).padStart(2, '0')}:00${chinese ? '+08:00' : '+01:00'}`,
        })),
      };
    }),
  };
  const file = path.join(dir, 'garden-club.json');
  fs.writeFileSync(file, JSON.stringify(out));
  return { file, messages: conversations * perConversation };
}
