import type { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { isAwsError } from '../aws/errors.ts';

/** True for a single write refused by its condition. */
export const isConditionFailure = (error: unknown): error is ConditionalCheckFailedException =>
  isAwsError(error, 'ConditionalCheckFailedException');

/** True for a cancelled transaction, whatever the reasons. */
export const isCancelled = (error: unknown): error is TransactionCanceledException =>
  isAwsError(error, 'TransactionCanceledException');

/** The reason codes of a cancelled transaction, one per action (`None` for the actions that did not fail). */
const reasonCodes = (error: TransactionCanceledException): string[] =>
  (error.CancellationReasons ?? []).map((reason) => reason.Code ?? '');

/** The positions of a cancelled transaction's actions that failed for the reason `code`. */
export const actionsCancelledFor = (error: TransactionCanceledException, code: string): number[] =>
  reasonCodes(error).flatMap((reason, i) => (reason === code ? [i] : []));

/** True when a transaction was cancelled, one of its actions for the reason `code`. */
export const cancelledFor = (error: unknown, code: string): boolean =>
  isCancelled(error) && reasonCodes(error).includes(code);

/** A test for a transaction cancelled for these reasons only. */
const cancelledOnlyFor =
  (...codes: string[]) =>
  (error: unknown): boolean =>
    isCancelled(error) && reasonCodes(error).every((code) => ['None', ...codes].includes(code));

/** True when a transaction was cancelled by its condition checks alone (not by a conflict or throttling). */
export const onlyConditionFailures = cancelledOnlyFor('ConditionalCheckFailed');

/** True when a transaction was cancelled only by conditions or by a concurrent transaction on one of its items. */
export const retryableCancellation = cancelledOnlyFor('ConditionalCheckFailed', 'TransactionConflict');
