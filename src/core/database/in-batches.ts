/**
 * Runs `batch`, which changes at most `size` rows and answers how many, until a batch is not full
 * or `stop()` is true; answers the total. Short statements, each holding few row locks.
 */
export async function inBatches(
  size: number,
  batch: (size: number) => Promise<number>,
  stop: () => boolean = () => false,
): Promise<number> {
  let total = 0;
  let count: number;
  do {
    if (stop()) {
      return total;
    }
    count = await batch(size);
    total += count;
  } while (count === size);
  return total;
}
