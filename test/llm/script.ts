import path from 'node:path';
import type { LlmServer, RecordedRequest } from '../helpers/llm-server.js';

/** The two-session conversation: 8 May 2023 (Emma's new job) and 20 June 2023 (Emma's news, then the dentist). */
export const twoSessions = path.join(import.meta.dirname, 'fixtures', 'two-sessions.json');
export const MESSAGES = 7;

/** Matches a request of one prompt (by its "Task:" marker) whose transcript contains `marker`. */
export const task = (name: string, marker?: string) => (r: RecordedRequest) =>
  r.prompt.includes(`Task: ${name}`) && (marker === undefined || r.prompt.includes(marker));

export const narratives = {
  lisbon: {
    title: 'Emma gets the aquarium job in Lisbon',
    content:
      'On Monday 8 May 2023 at 09:00, Alice told Bob that her sister Emma had been hired by the Lisbon aquarium and would move to Lisbon in June 2023, starting work on 1 June 2023. Alice planned to drive Emma’s belongings down on the weekend of 13–14 May 2023. Bob congratulated Emma.',
    summary: 'Alice shared that her sister Emma was hired by the Lisbon aquarium and moves there in June 2023.',
    level: 1,
    episodeType: 'Social',
    eventType: 'LifeEvent',
    entities: [
      { name: 'Alice', type: 'PERSON', aliases: [], role: 'speaker' },
      { name: 'Emma', type: 'PERSON', aliases: ['Em'], role: 'subject' },
      { name: 'Bob', type: 'PERSON', role: 'speaker' },
      { name: 'Lisbon aquarium', type: 'ORGANIZATION', role: 'employer' },
    ],
    relationships: [
      ['Emma', 'SISTER_OF', 'Alice'],
      ['Emma', 'works at', 'Lisbon aquarium'],
    ],
    topics: ['new job', 'moving'],
    keywords: ['Lisbon', 'aquarium', 'job', 'move'],
    keyPoints: ['Emma starts at the Lisbon aquarium on 1 June 2023'],
    emotion: { sentiment: 'positive', intensity: 0.8, labels: ['proud', 'excited'] },
    importance: 0.8,
  },
  otters: {
    title: 'Emma loves her new job',
    content:
      'On Tuesday 20 June 2023 at 19:30, Alice told Bob that Emma had called her on 19 June 2023 and loved her job at the aquarium, where the otters were her favourite animals. Bob sent his greetings.',
    summary: 'Emma is happy in her new job; she loves the otters.',
    level: 1,
    episodeType: 'conversational',
    eventType: 'LifeUpdate',
    // The model calls her "Em" here: linking finds the Emma of 8 May through the alias it reported then.
    entities: [
      { name: 'Em', type: 'PERSON', role: 'subject' },
      { name: 'ALICE', type: 'PERSON' },
      { name: 'otters', type: 'OTHER' },
    ],
    relationships: [['Em', 'LIKES', 'otters']],
    topics: ['work'],
    keywords: ['otters', 'aquarium'],
    emotion: { sentiment: 'positive', intensity: 0.6, labels: ['happy'] },
    importance: 0.5,
  },
  dentist: {
    title: 'Alice books the dentist',
    content:
      'On 20 June 2023 at 19:35, Alice mentioned that she had booked a dentist appointment for Friday 23 June 2023; Bob, who dislikes dentists, wished her luck.',
    summary: 'Alice has a dentist appointment on 23 June 2023.',
    level: 1,
    episodeType: 'behavioral',
    eventType: 'Appointment',
    entities: [
      { name: ' alice ', type: 'PERSON' },
      { name: 'Bob', type: 'PERSON' },
    ],
    relationships: [],
    topics: ['health'],
    keywords: ['dentist', 'appointment'],
    emotion: { sentiment: 'neutral', intensity: 0.2 },
    importance: 0.4,
  },
};

/** Boundaries: nothing to cut in the first session, a new topic at the dentist in the second. */
export function scriptHappy(server: LlmServer): void {
  server
    .on(task('episode-boundaries', 'otters'), { json: { boundaries: [2], reasons: { '2': 'new topic: the dentist' } } })
    .on(task('episode-boundaries'), { json: { boundaries: [] } })
    .on(task('episode-narrative', 'Lisbon aquarium'), { json: narratives.lisbon, usage: { prompt_tokens: 900, completion_tokens: 300 } })
    .on(task('episode-narrative', 'otters'), { json: narratives.otters, usage: { prompt_tokens: 800, completion_tokens: 250 } })
    .on(task('episode-narrative', 'dentist'), { json: narratives.dentist, usage: { prompt_tokens: 700, completion_tokens: 200 } })
    // Knowledge discovery after the import: one private fact from the first episode, none from the others.
    .on(task('semantic-reconstruct'), { content: 'Alice: My sister got a new job.\nBob: Congratulations!' })
    .on(task('semantic-gaps', 'Lisbon aquarium'), {
      json: {
        knowledge_gaps: [
          {
            key: 'person:Emma',
            value: 'Emma works at the Lisbon aquarium from 1 June 2023',
            context: 'Alice told Bob about her sister',
            confidence: 0.9,
            messages: [1],
          },
        ],
        relationships: [],
      },
    })
    .on(task('semantic-gaps'), { json: { knowledge_gaps: [], relationships: [] } });
}
