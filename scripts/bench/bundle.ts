// `npm run bench:bundle`: every function's bundle exactly as deployed (`serverless package --stage prod`), and
// what each esbuild setting buys, built with serverless.yml's options for get-item and create-item.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBundle, deployedEsbuildOptions, kb, writeResult } from './common.ts';
import { packageFunctions } from './service.ts';

const BUDGET = 400_000;
const ITEM_HANDLERS = ['listItems', 'getItem', 'createItem', 'replaceItem', 'patchItem', 'deleteItem'];
const started = Date.now();
const dir = mkdtempSync(join(tmpdir(), 'bench-bundle-'));
try {
  const deployed = packageFunctions(dir);
  const rows = deployed.map((fn) => {
    const budget = ITEM_HANDLERS.includes(fn.name) ? (fn.bundleBytes <= BUDGET ? 'met' : '**over**') : 'n/a';
    return `| ${fn.name} | \`${fn.handler}\` | ${fn.bundleBytes.toLocaleString('en')} | ${kb(fn.bundleBytes)} | ${kb(fn.zipBytes)} | ${budget} |`;
  });

  const base = { alias: {}, legalComments: 'eof' } as const;
  const credentials = '@aws-sdk/credential-provider-node';
  const variants = [
    ['ESM, minified, `mainFields: module,main` (the starting point)', base],
    [
      '+ env-only credentials (`alias` `@aws-sdk/credential-provider-node` → `lib/aws/credentials.ts`)',
      { legalComments: 'eof', alias: { [credentials]: deployedEsbuildOptions().alias?.[credentials] ?? '' } },
    ],
    [
      '+ no DynamoDB endpoint discovery (`alias` `@aws-sdk/middleware-endpoint-discovery` → `lib/aws/endpoint-discovery.ts`)',
      { legalComments: 'eof' },
    ],
    ['+ `legalComments: none` (= serverless.yml now)', {}],
    ['+ `splitting: true` (not adopted)', { splitting: true }],
  ] as const;
  const variantRows: string[] = [];
  const data: Record<string, unknown> = { deployed };
  for (const [index, [label, overrides]] of variants.entries()) {
    const sizes = await Promise.all(
      ['functions/get-item.ts', 'functions/create-item.ts'].map((entry) =>
        buildBundle(entry, join(dir, `variant-${index}`, entry), overrides),
      ),
    );
    data[label] = sizes;
    const cell = (s: (typeof sizes)[number]) =>
      s.entryBytes === s.totalBytes
        ? `${kb(s.entryBytes)}`
        : `${kb(s.entryBytes)} entry / ${kb(s.staticBytes)} on the start-up path / ${kb(s.totalBytes)} all files`;
    variantRows.push(`| ${label} | ${sizes.map(cell).join(' | ')} |`);
  }
  const floor = await buildBundle('scripts/bench/floor/get-item.ts', join(dir, 'floor'));
  const floorBase = await buildBundle('scripts/bench/floor/get-item.ts', join(dir, 'floor-base'), base);
  data.floor = { deployedOptions: floor, startingPoint: floorBase };

  const markdown = `| function | handler | bytes | KB | zip KB | budget (≤ 400 KB) |
|---|---|---|---|---|---|
${rows.join('\n')}

What each change buys (KB):

| build | get-item | create-item |
|---|---|---|
${variantRows.join('\n')}
| floor: a 10-line handler doing only \`GetCommand\` (the DynamoDB document client alone), starting point | ${kb(floorBase.entryBytes)} | |
| floor, deployed options | ${kb(floor.entryBytes)} | |`;
  writeResult('bundle', markdown, data, started);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
