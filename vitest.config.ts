import { defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that take longest (CPU seconds, most of it in the `nemori` processes they start or in one
 * big import), started first so that the run does not end with one worker on a long file and the
 * other idle. A clean clone has no duration cache to order by; with one, this still wins. The files
 * that need a process of their own go last: between two files of the shared project they would end
 * its workers, and new ones would pay the start-up again.
 */
const LONGEST_FIRST = [
  'test/cli/knowledge.test.ts',
  'test/http/responsive.test.ts',
  'test/cli/cli.test.ts',
  'test/cli/data.test.ts',
  'test/forgetting/cli.test.ts',
  'test/api/app-engine.test.ts',
  'test/electron/engine-host.test.ts',
  'test/e2e/cancel-and-sources.test.ts',
  'test/llm/cli.test.ts',
  'test/http/web-command.test.ts',
];

/** The same among the files that need a process of their own, which run last: the run ended on one of them. */
const OWN_PROCESS_LONGEST_FIRST = [
  'test/embed/transformers-embedder.test.ts',
  'test/embed/model-worker.test.ts',
  'test/embed/renewing-worker.test.ts',
  'test/embed/download.test.ts',
];

class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification) => {
      const at = (list: string[]) => {
        const i = list.findIndex((f) => spec.moduleId.endsWith(f));
        return i >= 0 ? i : list.length;
      };
      return spec.project.config.isolate ? LONGEST_FIRST.length + 1 + at(OWN_PROCESS_LONGEST_FIRST) : at(LONGEST_FIRST);
    };
    const sorted = await super.sort(files);
    return sorted
      .map((spec, i) => ({ spec, i }))
      .sort((a, b) => rank(a.spec) - rank(b.spec) || a.i - b.i)
      .map(({ spec }) => spec);
  }
}

/**
 * Files that need a process of their own: they assert on process-wide state (the embedding pipelines
 * loaded in this process) or replace a module (`vi.mock('electron')`).
 */
const OWN_PROCESS = ['test/embed/**/*.test.ts', 'test/electron/main-process.test.ts'];

export default defineConfig({
  test: {
    // PGlite's initdb and the ONNX runtime are CPU-heavy; two cores → two workers.
    maxWorkers: 2,
    // Times written in UTC are read on this machine's calendar (as a person's are): the tests' days are
    // UTC days on every machine; a test that needs another zone sets TZ itself.
    env: { TZ: 'UTC' },
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // New stores start from a template made once per run instead of running initdb, and the CLI
    // tests run a prebuilt `nemori` (test/global-setup.ts).
    globalSetup: ['test/global-setup.ts'],
    sequence: { sequencer: LongestFirst },
    projects: [
      {
        extends: true,
        test: { name: 'own-process', include: OWN_PROCESS, isolate: true },
      },
      {
        // One worker process runs many files in turn: each file's own process start, module
        // imports (the ONNX runtime, transformers.js, chrono) and PGlite's WebAssembly compile
        // (~1.2 s of CPU a file) are paid once per worker. Every file opens its own stores, servers
        // and browsers and closes them.
        extends: true,
        test: { name: 'shared', include: ['test/**/*.test.ts'], exclude: OWN_PROCESS, isolate: false },
      },
    ],
  },
});
