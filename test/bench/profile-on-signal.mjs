// Loaded with `--import` into a process to profile (test/bench/flame-graph.mjs,
// test/bench/allocations.mjs): the first SIGWINCH starts V8's CPU profiler (PROFILE_KIND=cpu, the
// default) or its sampling heap profiler, keeping the objects garbage collection took
// (PROFILE_KIND=heap); the second stops it and writes the profile to PROFILE_OUT.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const session = new Session();
session.connect();
const heap = process.env.PROFILE_KIND === 'heap';
let running = false;
process.on('SIGWINCH', async () => {
  if (!running) {
    running = true;
    if (heap) {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', {
        samplingInterval: 1024,
        includeObjectsCollectedByMajorGC: true,
        includeObjectsCollectedByMinorGC: true,
      });
    } else {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US ?? 100) });
      await session.post('Profiler.start');
    }
    return;
  }
  const { profile } = await session.post(heap ? 'HeapProfiler.stopSampling' : 'Profiler.stop');
  writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
  console.log('PROFILE WRITTEN');
});
