import { InMemoryTaskStore, ownsTask, type StoredTask } from './task.store';

const task = (
  taskId: string,
  expiresAt: number,
  principal = 'alice',
  session: string | undefined = undefined,
): StoredTask => ({
  taskId,
  status: 'completed',
  ttl: 1_000,
  createdAt: new Date(0).toISOString(),
  lastUpdatedAt: new Date(0).toISOString(),
  pollInterval: 500,
  owner: { principal, session },
  expiresAt,
  result: { content: [{ type: 'text', text: 'x'.repeat(1_000) }] },
});

describe('InMemoryTaskStore', () => {
  afterEach(() => jest.useRealTimers());

  it('sweeps expired tasks on a timer, without anyone touching them', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const store = new InMemoryTaskStore();
    for (let i = 0; i < 1_000; i++) await store.save(task(`t${i}`, Date.now() + 1_000));
    await store.save(task('kept', Date.now() + 3_600_000));
    expect(store.size).toBe(1_001);
    jest.advanceTimersByTime(31_000);
    expect(store.size).toBe(1);
    expect(await store.get('kept')).toBeDefined();
    store.onModuleDestroy();
  });

  it('stops its timer once nothing is left, and starts it again with the next task', async () => {
    jest.useFakeTimers({ now: 1_000_000 });
    const store = new InMemoryTaskStore();
    await store.save(task('a', Date.now() + 1_000));
    jest.advanceTimersByTime(31_000);
    expect(store.size).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
    await store.save(task('b', Date.now() + 1_000));
    expect(jest.getTimerCount()).toBe(1);
    store.onModuleDestroy();
    expect(jest.getTimerCount()).toBe(0);
  });

  it('lists only the tasks of one owner: the same principal and the same session', async () => {
    const store = new InMemoryTaskStore();
    const later = Date.now() + 60_000;
    await store.save(task('mine', later, 'alice', 's1'));
    await store.save(task('other-session', later, 'alice', 's2'));
    await store.save(task('other-principal', later, 'bob', 's1'));
    await store.save(task('stateless', later, 'alice', undefined));
    expect((await store.list({ principal: 'alice', session: 's1' }, 0, 10)).tasks.map((t) => t.taskId)).toEqual([
      'mine',
    ]);
    expect((await store.list({ principal: 'alice', session: undefined }, 0, 10)).tasks.map((t) => t.taskId)).toEqual([
      'stateless',
    ]);
    expect(ownsTask({ principal: 'bob', session: undefined }, task('x', later, 'alice'))).toBe(false);
    store.onModuleDestroy();
  });
});
