import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';

/** True for a single write refused by its condition. */
export const isConditionFailure = (error: unknown): error is ConditionalCheckFailedException =>
  error instanceof ConditionalCheckFailedException ||
  (error instanceof Error && error.name === 'ConditionalCheckFailedException');

export const isCancelled = (error: unknown) =>
  error instanceof TransactionCanceledException ||
  (error instanceof Error && error.name === 'TransactionCanceledException');

/** A test for a transaction cancelled for these reasons only (`None` marks the actions that did not fail). */
const cancelledOnlyFor =
  (...codes: string[]) =>
  (error: unknown): boolean =>
    isCancelled(error) &&
    ((error as TransactionCanceledException).CancellationReasons ?? []).every((reason) =>
      ['None', ...codes].includes(reason.Code ?? ''),
    );

/** True when a transaction was cancelled by its condition checks alone (not by a conflict or throttling). */
export const onlyConditionFailures = cancelledOnlyFor('ConditionalCheckFailed');

/** True when a transaction was cancelled only by conditions or by a concurrent transaction on one of its items. */
export const retryableCancellation = cancelledOnlyFor('ConditionalCheckFailed', 'TransactionConflict');
