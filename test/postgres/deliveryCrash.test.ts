// kill -9 of a server while it delivers, on PostgreSQL: test/support/deliveryCrash.ts.
import { deliveryCrashRounds } from '../support/deliveryCrash.js';
import { storeBackend } from '../support/storeBackends.js';

deliveryCrashRounds(storeBackend('postgres'));
