// `npm run bench`: every part in turn (each a fresh process, one after another so they do not compete), then
// BENCHMARKS.md. `npm run bench:<part>` runs one part; `node scripts/bench/report.ts` rewrites the report.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const PARTS = (process.env.BENCH_PARTS ?? 'bundle,cold,warm,http,scale,options,ingest,freshness').split(',');
const started = Date.now();
for (const part of PARTS) {
  console.log(`\n=== ${part} ===`);
  const script = fileURLToPath(new URL(`./${part}.ts`, import.meta.url));
  const run = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (run.status !== 0) {
    console.error(`bench: ${part} failed (exit ${run.status})`);
    process.exit(1);
  }
}
const report = spawnSync(
  process.execPath,
  [
    fileURLToPath(new URL('./report.ts', import.meta.url)),
    `--total-seconds=${(Date.now() - started) / 1000}`,
  ],
  { stdio: 'inherit' },
);
process.exit(report.status ?? 1);
