import { buildOpenApiDocument } from './document.ts';

/** The committed file's name, at the repository root. */
export const OPENAPI_FILE = 'openapi.json';

/** The document as `openapi.json` holds it: pretty-printed JSON with a trailing newline. */
export const renderOpenApiDocument = (): string => `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`;
