// The items' errors; lib/http/to-http-error.ts says what each answers over HTTP.

/** The base of the items' errors. */
export class ItemError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ItemError';
  }
}

/** The item does not exist (never created, or deleted). */
export class ItemNotFoundError extends ItemError {
  readonly itemId: number;

  constructor(itemId: number) {
    super(`Item ${itemId} not found`);
    this.name = 'ItemNotFoundError';
    this.itemId = itemId;
  }
}

/** The item's current version is not the one the caller expected (`If-Match`). */
export class VersionConflictError extends ItemError {
  readonly itemId: number;
  readonly expected: number;

  constructor(itemId: number, expected: number) {
    super(`Item ${itemId} is not at version ${expected}`);
    this.name = 'VersionConflictError';
    this.itemId = itemId;
    this.expected = expected;
  }
}

/** A list cursor the service did not issue (or that was tampered with). */
export class InvalidCursorError extends ItemError {
  constructor() {
    super('Cursor was not issued by this service');
    this.name = 'InvalidCursorError';
  }
}

/** A write without `If-Match` lost a race to another writer; thrown to the caller once it kept losing. */
export class WriteContentionError extends ItemError {
  readonly itemId: number;

  constructor(itemId: number) {
    super(`Item ${itemId} is being changed too often to apply this write`);
    this.name = 'WriteContentionError';
    this.itemId = itemId;
  }
}
