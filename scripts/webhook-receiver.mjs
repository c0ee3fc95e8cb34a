// A small webhook receiver for trying delivery (the README's walkthrough): it listens on
// http://127.0.0.1:4000/hooks (RECEIVER_PORT picks another port), checks each delivery's Standard Webhooks
// signature with MESSAGE_WEBHOOK_SECRET using the specification's own package, prints what it received,
// and answers 204; a delivery whose signature does not verify gets 401. For trying only: a real receiver
// also drops a webhook-id it has seen before, since a message may come twice.
import { createServer } from 'node:http';
import { Webhook } from 'standardwebhooks';

const secret = process.env.MESSAGE_WEBHOOK_SECRET;
if (!secret) {
  console.error('receiver: set MESSAGE_WEBHOOK_SECRET, the same as the server\'s');
  process.exit(2);
}
const webhook = new Webhook(secret);
const port = Number(process.env.RECEIVER_PORT || 4000);

createServer((request, response) => {
  let body = '';
  request.setEncoding('utf8');
  request.on('data', (chunk) => (body += chunk));
  request.on('end', () => {
    try {
      const message = webhook.verify(body, request.headers);
      console.log(`received ${request.headers['webhook-id']}, signature verified: ${JSON.stringify(message)}`);
      response.writeHead(204).end();
    } catch (error) {
      console.log(`refused a delivery: ${error.message}`);
      response.writeHead(401).end();
    }
  });
}).listen(port, '127.0.0.1', () => console.log(`receiving at http://127.0.0.1:${port}/hooks`));
