// Process entry for `npm start`.
import { runServer } from './server.js';

await runServer();
