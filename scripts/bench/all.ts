// `npm run bench`: every part in turn (each a fresh process, one after another so they do not compete), then
// `npm run bench:report`, which puts each part's figures into BENCHMARKS.md. BENCH_PARTS chooses the parts.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PARTS = (process.env.BENCH_PARTS ?? 'bundle,cold,warm,http,scale,options,ingest,freshness').split(',');
for (const part of [...PARTS, 'report']) {
  console.log(`\n=== ${part} ===`);
  const script = fileURLToPath(new URL(`./${part}.ts`, import.meta.url));
  const run = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`bench: ${part} failed (exit ${run.status})`);
    process.exit(1);
  }
}
