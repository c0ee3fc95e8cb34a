// kill -9 of a server while it delivers, on SQLite: test/support/deliveryCrash.ts. The rounds on PostgreSQL
// run with its other faults, in test/postgres/ (npm run test:postgres), where its server is.
import { deliveryCrashRounds } from '../support/deliveryCrash.js';
import { storeBackend } from '../support/storeBackends.js';

deliveryCrashRounds(storeBackend('sqlite'));
