// Loaded into a server process with `--import`: once SIGTERM comes, libuv's thread pool (one thread, with
// UV_THREADPOOL_SIZE=1) stays busy for a while, as on a loaded machine, so that any write handed to the
// pool waits behind it. Registered first, so it runs before the server's own handler.
import { pbkdf2 } from 'node:crypto';

process.prependListener('SIGTERM', () => {
  pbkdf2('busy', 'pool', 500_000, 64, 'sha512', () => {});
});
