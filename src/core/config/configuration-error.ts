/** Start-up refuses a configuration it cannot honour, with a message fit for an operator. */
export class InvalidConfigurationError extends Error {
  override readonly name = 'InvalidConfigurationError';

  static listing(problems: readonly string[]): InvalidConfigurationError {
    return new InvalidConfigurationError(
      `Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
  }
}
