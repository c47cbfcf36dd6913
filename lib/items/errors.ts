/** The item does not exist (never created, or deleted). */
export class ItemNotFoundError extends Error {
  readonly itemId: number;

  constructor(itemId: number) {
    super(`Item ${itemId} not found`);
    this.name = 'ItemNotFoundError';
    this.itemId = itemId;
  }
}

/** The item's current version is not the one the caller expected (`If-Match`). */
export class VersionConflictError extends Error {
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
export class InvalidCursorError extends Error {
  constructor() {
    super('Cursor was not issued by this service');
    this.name = 'InvalidCursorError';
  }
}
