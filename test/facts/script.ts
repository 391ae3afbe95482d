import type { LlmServer } from '../helpers/llm-server.js';
import { task } from '../llm/script.js';

/** A worked example: John's research moves from prompt engineering to agent planning. */
export const johnConversations = [
  {
    id: 'john-2024-01',
    title: 'John',
    messages: [
      {
        id: 'j1',
        speaker: 'John',
        role: 'user' as const,
        text: '我最近在研究大语言模型的提示工程',
        timestamp: '2024-01-15T10:00:00+08:00',
      },
      {
        id: 'j2',
        speaker: 'Assistant',
        role: 'assistant' as const,
        text: '很有趣的方向！你主要关注哪些方面？',
        timestamp: '2024-01-15T10:01:00+08:00',
      },
      {
        id: 'j3',
        speaker: 'John',
        role: 'user' as const,
        text: '主要是如何让LLM更好地理解复杂指令',
        timestamp: '2024-01-15T10:02:00+08:00',
      },
    ],
  },
  {
    id: 'john-2024-04',
    title: 'John',
    messages: [
      { id: 'j4', speaker: 'John', role: 'user' as const, text: '我现在转向AI Agent的行为规划了', timestamp: '2024-04-20T14:30:00+08:00' },
      { id: 'j5', speaker: 'Assistant', role: 'assistant' as const, text: '从LLM转向Agent了？', timestamp: '2024-04-20T14:31:00+08:00' },
      {
        id: 'j6',
        speaker: 'John',
        role: 'user' as const,
        text: '对，发现Agent的决策机制更有挑战性',
        timestamp: '2024-04-20T14:32:00+08:00',
      },
    ],
  },
];

const narrative = (title: string, content: string) => ({
  title,
  content,
  summary: content,
  level: 1,
  episodeType: 'conversational',
  entities: [{ name: 'John', type: 'PERSON', role: 'speaker' }],
  relationships: [],
  topics: ['研究'],
  keywords: ['研究'],
  importance: 0.6,
});

export function scriptJohn(server: LlmServer): void {
  server
    .on(task('episode-boundaries'), { json: { boundaries: [] } })
    .on(task('episode-narrative', '提示工程'), {
      json: narrative(
        'John讨论大语言模型提示工程研究',
        '2024年1月15日上午10点，John表示最近在研究大语言模型的提示工程，特别关注如何让LLM更好地理解复杂指令。',
      ),
    })
    .on(task('episode-narrative', '行为规划'), {
      json: narrative(
        'John转向AI Agent行为规划研究',
        '2024年4月20日下午2点半，John表示已从之前的LLM研究转向AI Agent行为规划，认为Agent的决策机制更有挑战性。',
      ),
    })
    // The reconstruction knows only the world: "some AI technique".
    .on(task('semantic-reconstruct'), { content: 'John: 我最近在研究一种AI技术，可能和机器学习有关。\nAssistant: 很有意思！' })
    .on(task('semantic-gaps', 'AI Agent的行为规划'), {
      json: {
        knowledge_gaps: [
          {
            key: 'person:John的研究方向',
            value: 'AI Agent行为规划',
            context: '专注于Agent决策机制',
            gap_type: 'personal_fact',
            confidence: 0.8,
            messages: [1],
            keywords: ['Agent', '行为规划'],
          },
          {
            key: 'concept:Agent决策机制',
            value: 'John认为Agent的决策机制更有挑战性',
            context: '专注于Agent决策机制',
            gap_type: 'contextual_meaning',
            confidence: 0.7,
            messages: [3],
          },
        ],
        relationships: [{ source: 'concept:Agent决策机制', target: 'person:John的研究方向', type: 'part_of', description: '研究重点' }],
      },
    })
    .on(task('semantic-gaps'), {
      json: {
        knowledge_gaps: [
          {
            key: 'person:John的研究方向',
            value: '大语言模型提示工程',
            context: '专注于让LLM理解复杂指令',
            gap_type: 'personal_fact',
            confidence: 0.9,
            messages: [1, 3],
            keywords: ['提示工程'],
          },
          {
            key: 'concept:复杂指令理解',
            value: 'John关注如何让LLM更好地理解复杂指令',
            context: '专注于让LLM理解复杂指令',
            gap_type: 'specific_detail',
            confidence: 0.9,
            messages: [3],
          },
        ],
        relationships: [],
      },
    });
}
