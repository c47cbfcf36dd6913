// `npm run bench`: every part in turn, each a fresh process, then `bench:report`. BENCH_PARTS chooses the parts.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const EVERY_PART = 'bundle,cold,warm,scale,options,ingest,edits,freshness,load';
const PARTS = (process.env.BENCH_PARTS ?? EVERY_PART).split(',');
for (const part of [...PARTS, 'report']) {
  console.log(`\n=== ${part} ===`);
  const script = fileURLToPath(new URL(`./${part}.ts`, import.meta.url));
  if (spawnSync(process.execPath, [script], { stdio: 'inherit' }).status !== 0) {
    console.error(`bench: ${part} failed`);
    process.exit(1);
  }
}
