import { describe, expect, it } from 'vitest';
import { addEpisode, NOW, owners, rolledBack, useStore } from './helpers.js';

const at = (minutes: number) => ({
  temporal: { start: new Date(NOW.getTime() + minutes * 60_000), end: new Date(NOW.getTime() + minutes * 60_000), utcOffsetMin: 0 },
});

describe('discovery queue repository', () => {
  const store = useStore();

  it('hands out queued episodes in the order they happened, skipping stand-ins and the trash', async () => {
    const [a] = owners();
    const later = await addEpisode(store(), a, 'Later', at(10));
    const earlier = await addEpisode(store(), a, 'Earlier', at(0));
    const standIn = await addEpisode(store(), a, 'Stand-in', { ...at(5), processingStatus: 'needs_rebuild' });
    const trashed = await addEpisode(store(), a, 'Trashed', at(1));
    await store().transaction(async (r) => {
      await r.discoveryQueue.enqueue(a, [later, earlier, standIn, trashed], NOW);
      await r.forgetting.setEpisodeTier(a, 'trash', [{ id: trashed, reason: { kind: 'emptied' } }], NOW);
    });
    const read = store().read.discoveryQueue;
    expect(await read.next(a, 10, 3)).toEqual([earlier, later]);
    expect(await read.next(a, 1, 3)).toEqual([earlier]);
    expect(await read.size(a)).toEqual({ waiting: 4, failed: 0 });
    expect(await read.ownersWaiting()).toContain(a);

    await store().transaction(async (r) => {
      await r.discoveryQueue.dequeue(a, earlier);
      await r.discoveryQueue.failed(a, later, 'the model said nothing');
    });
    expect(await read.size(a)).toEqual({ waiting: 2, failed: 1 });
    expect(await read.next(a, 10, 2)).toEqual([later]);
    expect(await read.next(a, 10, 1)).toEqual([]);
    // Queuing again starts the attempts afresh.
    await store().transaction((r) => r.discoveryQueue.enqueue(a, [later], NOW));
    expect(await read.size(a)).toEqual({ waiting: 3, failed: 0 });
  });

  it('drops an episode’s place in the queue with the episode', async () => {
    const [a] = owners();
    const id = await addEpisode(store(), a, 'Gone');
    await store().transaction((r) => r.discoveryQueue.enqueue(a, [id], NOW));
    await store().transaction((r) => r.episodes.delete(a, id));
    expect(await store().read.discoveryQueue.size(a)).toEqual({ waiting: 0, failed: 0 });
    expect(await store().read.discoveryQueue.ownersWaiting()).not.toContain(a);
  });

  it('queues only an owner’s own episodes, and never changes another owner’s queue', async () => {
    const [a, b] = owners();
    const id = await addEpisode(store(), a, 'Mine');
    await store().transaction((r) => r.discoveryQueue.enqueue(a, [id], NOW));
    await store().transaction(async (r) => {
      await r.discoveryQueue.enqueue(b, [id], NOW);
      await r.discoveryQueue.failed(b, id, 'not yours');
      await r.discoveryQueue.dequeue(b, id);
    });
    const read = store().read.discoveryQueue;
    expect(await read.size(b)).toEqual({ waiting: 0, failed: 0 });
    expect(await read.next(b, 10, 3)).toEqual([]);
    expect(await read.ownersWaiting()).not.toContain(b);
    expect(await read.size(a)).toEqual({ waiting: 1, failed: 0 });
    expect(await read.next(a, 10, 3)).toEqual([id]);
  });

  it('keeps nothing of a transaction that throws', async () => {
    const [a] = owners();
    const id = await addEpisode(store(), a, 'Queued');
    await rolledBack(store(), (r) => r.discoveryQueue.enqueue(a, [id], NOW));
    expect(await store().read.discoveryQueue.size(a)).toEqual({ waiting: 0, failed: 0 });
    await store().transaction((r) => r.discoveryQueue.enqueue(a, [id], NOW));
    await rolledBack(store(), async (r) => {
      await r.discoveryQueue.failed(a, id, 'boom');
      await r.discoveryQueue.dequeue(a, id);
    });
    expect(await store().read.discoveryQueue.size(a)).toEqual({ waiting: 1, failed: 0 });
  });
});
