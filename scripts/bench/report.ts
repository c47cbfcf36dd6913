// `npm run bench:report`: each part's latest figures (.local/bench/results/) into BENCHMARKS.md between its markers
// (`<!-- bench:<part> -->`).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RESULTS_DIR, ROOT } from './common.ts';

type PartResult = { part: string; markdown: string; data: unknown; seconds: number };

const file = join(ROOT, 'BENCHMARKS.md');
let text = readFileSync(file, 'utf8');
const results: PartResult[] = (existsSync(RESULTS_DIR) ? readdirSync(RESULTS_DIR) : [])
  .filter((name) => name.endsWith('.json'))
  .map((name) => JSON.parse(readFileSync(join(RESULTS_DIR, name), 'utf8')));
for (const result of results) {
  const [open, close] = [`<!-- bench:${result.part} -->`, `<!-- /bench:${result.part} -->`];
  const block = `${open}\n${result.markdown.trim()}\n${close}`;
  const [start, end] = [text.indexOf(open), text.indexOf(close)];
  text =
    start >= 0 && end > start
      ? `${text.slice(0, start)}${block}${text.slice(end + close.length)}`
      : `${text.trimEnd()}\n\n## \`npm run bench:${result.part}\`\n\n${block}\n`;
  console.log(`BENCHMARKS.md: ${result.part} (a ${Math.round(result.seconds)} s run)`);
}
writeFileSync(file, text);
