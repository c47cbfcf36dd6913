// `npm run bench:bundle`: every function's bundle exactly as deployed (`serverless package --stage prod`).
import { table, writeResult } from './common.ts';
import { withDeployed } from './service.ts';

const ITEM_HANDLERS = ['listItems', 'getItem', 'createItem', 'replaceItem', 'patchItem', 'deleteItem'];
await withDeployed((deployed) => {
  const kb = (bytes: number) => (bytes / 1000).toFixed(1);
  const rows = deployed.map((fn) => [
    fn.name,
    `\`${fn.handler}\``,
    fn.bundleBytes.toLocaleString('en'),
    kb(fn.bundleBytes),
    kb(fn.zipBytes),
    ITEM_HANDLERS.includes(fn.name) ? (fn.bundleBytes <= 400_000 ? 'met' : '**over**') : 'n/a',
  ]);
  const head = ['function', 'handler', 'bytes', 'KB', 'zip KB', 'budget (≤ 400 KB)'];
  writeResult('bundle', table(head, rows), deployed);
});
