/**
 * Facts for the knowledge tests, learnt the way a person's facts are: knowledge discovery over the
 * fixture episodes with a scripted OpenAI-compatible server (real HTTP on 127.0.0.1, canned replies),
 * switched on through the API after the import and off again afterwards, then changed through the API.
 */
import type { Engine } from '../../core/engine/open-engine.js';
import { startLlmServer, type RecordedRequest } from '../helpers/llm-server.js';
import { task } from '../llm/script.js';

/** Matches the gap analysis of the episode whose numbered transcript holds `line` ("09:15 Sam: …"). */
const gapsOf = (line: string) => (r: RecordedRequest) => task('semantic-gaps')(r) && r.prompt.includes(line);

export const FACTS = {
  job: { key: "person:Sam's job search", label: "Sam's job search" },
  cousin: { key: "person:Sam's cousin", label: "Sam's cousin" },
  mia: { key: 'person:Mia', label: 'Mia' },
  allergy: { key: "person:Mia's allergy", label: "Mia's allergy" },
  xiaolin: { key: 'person:小林', label: '小林' },
} as const;

export const VALUES = {
  jobFirst: 'Second interview at the robotics startup in Zurich on Thursday 14 March 2024',
  jobNow: 'Accepted the offer from the robotics startup in Zurich; starts on 2 May 2024',
  /** The model's slip (the messages say thirty): the person corrects it in the test. */
  miaWrong: 'Turns forty on Friday 8 March 2024',
  miaRight: 'Turns thirty on Friday 8 March 2024',
};

export async function seedKnowledge(engine: Engine): Promise<void> {
  const server = await startLlmServer();
  try {
    server
      .on(task('semantic-reconstruct'), { content: 'Sam: I have some plans this week.\nFriend: Sounds good!' })
      .on(gapsOf('12:30 Sam: Mia turns thirty'), {
        json: {
          knowledge_gaps: [
            {
              key: FACTS.mia.key,
              value: VALUES.miaWrong,
              context: 'Sam booked a Korean barbecue dinner for her birthday',
              gap_type: 'personal_fact',
              confidence: 0.7,
              messages: [1],
              keywords: ['Mia', 'birthday'],
            },
            {
              key: FACTS.allergy.key,
              value: 'Allergic to peanuts',
              context: 'Sam booked a Korean barbecue dinner for her birthday',
              gap_type: 'personal_fact',
              confidence: 0.9,
              messages: [2],
              keywords: ['peanuts'],
            },
          ],
          relationships: [],
        },
      })
      .on(gapsOf('09:15 Sam: The robotics startup in Zurich'), {
        json: {
          knowledge_gaps: [
            {
              key: FACTS.job.key,
              value: VALUES.jobFirst,
              context: 'Lena told Sam to tell the warehouse drone story',
              gap_type: 'personal_fact',
              confidence: 0.9,
              messages: [1],
              keywords: ['interview', 'Zurich'],
            },
            {
              key: FACTS.cousin.key,
              value: 'Lives in Oerlikon; Sam stays there for the interview',
              context: 'Lena told Sam to tell the warehouse drone story',
              gap_type: 'personal_fact',
              confidence: 0.8,
              messages: [3],
              keywords: ['Oerlikon'],
            },
          ],
          relationships: [{ source: FACTS.job.key, target: FACTS.mia.key, type: 'temporal', description: 'the same week of March 2024' }],
        },
      })
      .on(gapsOf('20:10 小林: 周六我们去杭州西湖'), {
        json: {
          knowledge_gaps: [
            {
              key: FACTS.xiaolin.key,
              value: '约我2024年3月2日早上八点在断桥见，一起去西湖骑自行车',
              context: '小林订好了两辆自行车',
              gap_type: 'personal_fact',
              confidence: 0.9,
              messages: [1, 3],
              keywords: ['西湖', '断桥'],
            },
          ],
          relationships: [],
        },
      })
      .on(task('semantic-gaps'), { json: { knowledge_gaps: [], relationships: [] } });

    await engine.call('setLlmSettings', { enabled: true, model: server.model, baseUrl: server.url, timeoutMs: 10_000, maxRetries: 0 });
    const run = await engine.call('runDiscovery', {});
    if (run.failed || run.errors.length || run.facts.created < 5)
      throw new Error(`discovery for the knowledge tests went wrong: ${JSON.stringify(run)}`);
  } finally {
    await engine.call('setLlmSettings', { enabled: false });
    await server.close();
  }
  // The job search changed since (version 2, no episode behind it): told through the API, as a companion would.
  await engine.call('upsertKnowledge', { key: FACTS.job.key, value: VALUES.jobNow, metadata: { context: 'Sam told the companion' } });
}
