import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';

const isCancelled = (error: unknown) =>
  error instanceof TransactionCanceledException ||
  (error instanceof Error && error.name === 'TransactionCanceledException');

/** True when a transaction was cancelled by its condition checks alone (not by a conflict or throttling). */
export const onlyConditionFailures = (error: unknown) =>
  isCancelled(error) &&
  ((error as TransactionCanceledException).CancellationReasons ?? []).every(
    (reason) => reason.Code === 'None' || reason.Code === 'ConditionalCheckFailed',
  );

/** True when a transaction was cancelled only by conditions or by a concurrent transaction on one of its items. */
export const retryableCancellation = (error: unknown) =>
  isCancelled(error) &&
  ((error as TransactionCanceledException).CancellationReasons ?? []).every(
    (reason) =>
      reason.Code === 'None' ||
      reason.Code === 'ConditionalCheckFailed' ||
      reason.Code === 'TransactionConflict',
  );
