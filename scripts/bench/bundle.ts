// `npm run bench:bundle`: every function's bundle exactly as deployed (`serverless package --stage prod`), and
// what each esbuild setting buys, built with serverless.yml's options for get-item and create-item.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildBundle, deployedEsbuildOptions, kb, packageFunctions, writeResult } from './common.ts';

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
  const { alias = {} } = deployedEsbuildOptions();
  const credentials = '@aws-sdk/credential-provider-node';
  const variants = [
    { label: 'ESM, minified, `mainFields: module,main` (the starting point)', overrides: base },
    {
      label:
        '+ env-only credentials (`alias` `@aws-sdk/credential-provider-node` → `lib/aws/credentials.ts`)',
      overrides: { legalComments: 'eof', alias: { [credentials]: alias[credentials] ?? '' } },
    },
    {
      label:
        '+ no DynamoDB endpoint discovery (`alias` `@aws-sdk/middleware-endpoint-discovery` → `lib/aws/endpoint-discovery.ts`)',
      overrides: { legalComments: 'eof' },
    },
    { label: '+ `legalComments: none` (= serverless.yml now)', overrides: {} },
    { label: '+ `splitting: true` (not adopted, see notes)', overrides: { splitting: true } },
  ] as const;
  const entries = ['functions/get-item.ts', 'functions/create-item.ts'];
  const variantRows: string[] = [];
  const data: Record<string, unknown> = { deployed };
  for (const [index, variant] of variants.entries()) {
    const sizes: Awaited<ReturnType<typeof buildBundle>>[] = [];
    for (const entry of entries) {
      sizes.push(await buildBundle(entry, join(dir, `variant-${index}`, entry), variant.overrides));
    }
    data[variant.label] = sizes;
    const cell = (s: (typeof sizes)[number]) =>
      s.entryBytes === s.totalBytes
        ? `${kb(s.entryBytes)}`
        : `${kb(s.entryBytes)} entry / ${kb(s.staticBytes)} on the start-up path / ${kb(s.totalBytes)} all files`;
    variantRows.push(`| ${variant.label} | ${sizes.map(cell).join(' | ')} |`);
  }
  const floor = await buildBundle('scripts/bench/floor/get-item.ts', join(dir, 'floor'));
  const floorBase = await buildBundle('scripts/bench/floor/get-item.ts', join(dir, 'floor-base'), base);
  data.floor = { deployedOptions: floor, startingPoint: floorBase };

  const markdown = `## Bundle size

Every function built by \`serverless package --stage prod\` (serverless-esbuild, the options in
\`custom.esbuild\`), read back from the zips. KB = 1,000 bytes. Budget: each item handler's entry bundle ≤ 400 KB.

| function | handler | bytes | KB | zip KB | budget (≤ 400 KB) |
|---|---|---|---|---|---|
${rows.join('\n')}

\`generate\` carries the Bedrock Runtime client besides DynamoDB's; it is not an item handler.

### What each change buys (KB; get-item, create-item)

| build | get-item | create-item |
|---|---|---|
${variantRows.join('\n')}
| floor: a 10-line handler doing only \`GetCommand\` (the DynamoDB document client alone), starting point | ${kb(floorBase.entryBytes)} | |
| floor, deployed options | ${kb(floor.entryBytes)} | |

Notes:
- The env-only credential provider is the change that matters: the SDK's default chain pulls in SSO, INI
  files, \`credential_process\`, web identity, ECS/IMDS, the STS, SSO-OIDC and sign-in clients (\`@aws-sdk/nested-clients\`
  alone is ~58 KB). Lambda gives a function its role's credentials in \`AWS_ACCESS_KEY_ID\`,
  \`AWS_SECRET_ACCESS_KEY\` and \`AWS_SESSION_TOKEN\`; locally the client is given fixed credentials for DynamoDB Local.
- DynamoDB endpoint discovery is never enabled and no command of this SDK adds its middleware, but the client builds
  its endpoint cache (an LRU library) at every cold start: \`lib/aws/endpoint-discovery.ts\` turns it off (issue #14,
  to make room for the middy body parser and header normalizer within 300 KB).
- \`splitting\` moves dynamically imported SDK parts (user-agent parsing \`bowser\`, event streams) out of the
  entry file, but serverless-esbuild builds every function into one folder and zips the whole folder's chunks
  into every function (other functions' Bedrock and SSO chunks included), so it makes each zip larger; it is
  not adopted. The start-up path figure is the entry plus the chunks it imports statically.
`;
  writeResult({ part: 'bundle', markdown, data, seconds: (Date.now() - started) / 1000 });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
