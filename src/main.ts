// Process entry for `npm start`, and for each worker when WORKERS is more than 1.
import { runServers } from './workers.js';

await runServers();
