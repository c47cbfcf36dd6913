// `npm run openapi` writes openapi.json from the handlers' valibot schemas;
// `npm run openapi:check` (`--check`) exits 1 when the committed file differs from a fresh build.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { OPENAPI_FILE, renderOpenApiDocument } from '../lib/openapi/render.ts';

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
const file = new URL(`../${OPENAPI_FILE}`, import.meta.url);
const fresh = renderOpenApiDocument();

if (values.check) {
  const committed = existsSync(file) ? readFileSync(file, 'utf8') : '';
  if (committed !== fresh) {
    console.error(`${OPENAPI_FILE} is stale: run \`npm run openapi\` and commit the result.`);
    process.exit(1);
  }
  console.log(`${OPENAPI_FILE} is up to date.`);
} else {
  writeFileSync(file, fresh);
  console.log(`Wrote ${OPENAPI_FILE}.`);
}
