// A small webhook receiver for trying delivery (the README's walkthrough): it listens on
// http://127.0.0.1:4000 (RECEIVER_PORT picks another port) and answers 204 to what verifies, 401 to what
// does not, printing each. At /hooks it takes the messages the server delivers to its operator, checked
// with MESSAGE_WEBHOOK_SECRET; at /events the events of an account's own endpoint registered with this URL,
// checked with the secret of that endpoint's registration answer, read from endpoint.json in its working
// folder (ENDPOINT_FILE names another) at each delivery. Both with the Standard Webhooks specification's
// own package. For trying only: a real receiver also drops a webhook-id it has seen before, since a
// delivery may come twice.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.MESSAGE_WEBHOOK_SECRET;
if (!secret) {
  console.error('receiver: set MESSAGE_WEBHOOK_SECRET, the same as the server\'s');
  process.exit(2);
}
const messages = new Webhook(secret);
const endpointFile = process.env.ENDPOINT_FILE || 'endpoint.json';
const port = Number(process.env.RECEIVER_PORT || 4000);

/** The endpoint's secret, as its registration answered it; undefined until it was saved. */
function endpointSecret() {
  try {
    return JSON.parse(readFileSync(endpointFile, 'utf8')).secret;
  } catch {
    return undefined;
  }
}

createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    const id = request.headers['webhook-id'];
    try {
      if (request.url === '/events') {
        const saved = endpointSecret();
        if (!saved) throw new Error(`no endpoint secret in ${endpointFile} yet`);
        const event = new Webhook(saved).verify(body, request.headers);
        console.log(`received ${id}, ${event.type}, signature verified: ${JSON.stringify(event)}`);
      } else {
        const message = messages.verify(body, request.headers);
        console.log(`received ${id}, signature verified: ${JSON.stringify(message)}`);
      }
      response.writeHead(204).end();
    } catch (error) {
      console.log(`refused a delivery: ${error.message}`);
      response.writeHead(401).end();
    }
  });
}).listen(port, '127.0.0.1', () => console.log(`receiving at http://127.0.0.1:${port}/hooks and /events`));
