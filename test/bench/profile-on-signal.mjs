// Loaded with `--import` into a process to profile (test/bench/flame-graph.mjs): the first SIGWINCH
// starts V8's CPU profiler, the second stops it and writes the profile to PROFILE_OUT.
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

const session = new Session();
session.connect();
let running = false;
process.on('SIGWINCH', async () => {
  if (!running) {
    running = true;
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: Number(process.env.PROFILE_INTERVAL_US ?? 100) });
    await session.post('Profiler.start');
    return;
  }
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(process.env.PROFILE_OUT, JSON.stringify(profile));
  console.log('PROFILE WRITTEN');
});
