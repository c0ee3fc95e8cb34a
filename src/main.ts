// Process entry for `npm start`, and for each worker when WORKERS is more than 1.
import { settleNextTickFeedback } from './tickFeedback.js';

// Before the server's modules are loaded (tickFeedback.ts says why): so they are imported, not named above.
settleNextTickFeedback();
const { runServers } = await import('./workers.js');
await runServers();
