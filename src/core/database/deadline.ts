import { ServiceUnavailableError } from '../errors/domain-error.js';

/**
 * The work's outcome, or 503 once `ms` have passed. A database that stopped answering holds a
 * transaction's `ROLLBACK` behind the statement that timed out, a second wait that the client need
 * not share: the work goes on, and its connection returns to the pool when it ends.
 */
export function withinDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new ServiceUnavailableError('The database did not answer in time; retry later')),
      ms,
    );
  });
  // Its failure after the deadline is the database's, answered already.
  work.catch(() => undefined);
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
