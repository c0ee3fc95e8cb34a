// The one failure of reading the configuration: its message names the variable and what it accepts.
export class ConfigError extends Error {
  override name = 'ConfigError';
}
