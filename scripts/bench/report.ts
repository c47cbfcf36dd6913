// `npm run bench:report`: each part's latest figures (.local/bench/results/) into BENCHMARKS.md between its markers
// (`<!-- bench:<part> -->`), and bench:scale's latency chart to benchmarks/retrieval.svg.
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

type Row = { size: number; p50: number; p99: number };
const scale =
  (results.find((r) => r.part === 'scale')?.data as { results: Row[] } | undefined)?.results ?? [];
if (scale.length > 0) writeFileSync(join(ROOT, 'benchmarks', 'retrieval.svg'), chart(scale));

/** Retrieval p50 and p99 against collection size, log-scaled x axis. */
function chart(rows: Row[]): string {
  const [width, height, left, right, top, bottom] = [640, 360, 64, 24, 36, 52];
  const minLog = Math.floor(Math.log10(Math.min(...rows.map((r) => r.size))));
  const maxLog = Math.max(minLog + 1, Math.ceil(Math.log10(Math.max(...rows.map((r) => r.size)))));
  const maxY = Math.max(...rows.map((r) => r.p99)) * 1.15 || 1;
  const x = (size: number) =>
    (left + ((Math.log10(size) - minLog) / (maxLog - minLog)) * (width - left - right)).toFixed(1);
  const y = (value: number) => (top + (1 - value / maxY) * (height - top - bottom)).toFixed(1);
  const step = 10 ** Math.floor(Math.log10(maxY / 4));
  const tick = Math.ceil(maxY / 4 / step) * step;
  const svg: string[] = [];
  for (let value = 0; value <= maxY; value += tick)
    svg.push(
      `<line x1="${left}" x2="${width - right}" y1="${y(value)}" y2="${y(value)}" stroke="#ddd"/>`,
      `<text x="${left - 6}" y="${Number(y(value)) + 4}" text-anchor="end">${value}</text>`,
    );
  for (let power = minLog; power <= maxLog; power++)
    svg.push(
      `<line x1="${x(10 ** power)}" x2="${x(10 ** power)}" y1="${top}" y2="${height - bottom}" stroke="#ddd"/>`,
      `<text x="${x(10 ** power)}" y="${height - bottom + 18}" text-anchor="middle">${(10 ** power).toLocaleString('en')}</text>`,
    );
  for (const [key, color] of [
    ['p50', '#1f6feb'],
    ['p99', '#d1242f'],
  ] as const) {
    const points = rows.map((r) => `${x(r.size)},${y(r[key])}`).join(' ');
    svg.push(`<polyline points="${points}" fill="none" stroke="${color}" stroke-width="2"/>`);
    for (const r of rows)
      svg.push(
        `<circle cx="${x(r.size)}" cy="${y(r[key])}" r="3.5" fill="${color}"/>`,
        `<text x="${x(r.size)}" y="${Number(y(r[key])) - 8}" text-anchor="middle" fill="${color}">${r[key].toFixed(0)}</text>`,
      );
  }
  const middle = (top + height - bottom) / 2;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12" role="img">
<title>Retrieval latency (p50, p99) against collection size</title>
<rect width="${width}" height="${height}" fill="#fff"/>
<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">POST /retrieve path (retriever on DynamoDB Local): latency against collection size</text>
${svg.join('\n')}
<line x1="${left}" x2="${left}" y1="${top}" y2="${height - bottom}" stroke="#333"/>
<line x1="${left}" x2="${width - right}" y1="${height - bottom}" y2="${height - bottom}" stroke="#333"/>
<text x="${(left + width - right) / 2}" y="${height - 12}" text-anchor="middle">items in the collection (log scale)</text>
<text x="16" y="${middle}" text-anchor="middle" transform="rotate(-90 16 ${middle})">ms</text>
<text x="${width - right - 90}" y="${top + 14}" fill="#1f6feb">● p50</text>
<text x="${width - right - 40}" y="${top + 14}" fill="#d1242f">● p99</text>
</svg>
`;
}
