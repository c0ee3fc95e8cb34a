// A crowd of clients asking for the long list, in a process of its own so that its work never delays the
// bench's own probes: `node listCrowd.mjs <url> <key> stall <n>` sends the request on n connections at once
// and never reads; `... loop <n>` reads the list to its end on n kept-alive connections, again and again.
// Run with an IPC channel (fork): it says { ready } once every client has had an answer's head (or, stalled,
// has sent its request), and on 'stop' says what the clients got ({ lists, refused, other }) and exits.
import { Agent, get } from 'node:http';
import { connect } from 'node:net';

const [url, key, mode, count] = process.argv.slice(2);
const clients = Number(count);
const { hostname, port } = new URL(url);
const got = { lists: 0, refused: 0, other: 0 };
let ready = 0;
let running = true;

const readyOne = () => {
  if (++ready === clients) process.send({ ready: true });
};

/** A client that sends the request and never reads: its socket stays paused, with no 'data' listener. */
function stalledClient() {
  const socket = connect(Number(port), hostname, () => {
    socket.write(`GET /v1/store/orders HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${key}\r\n\r\n`);
    readyOne();
  });
  socket.on('error', () => {
    // Reset by the server once it gives up on it; nothing is read anyway.
  });
}

const agent = new Agent({ keepAlive: true, maxSockets: clients });

/** One list asked for and read to its end; resolves with its status. */
const readList = (onHead) =>
  new Promise((resolve) => {
    const request = get(`${url}/v1/store/orders`, { agent, headers: { Authorization: `Bearer ${key}` } }, (answer) => {
      onHead();
      answer.on('data', () => {});
      answer.on('end', () => resolve(answer.statusCode));
      answer.on('error', () => resolve(0));
    });
    request.on('error', () => resolve(0));
  });

/** A client that reads the list again and again, as soon as each answer has ended (a 503's included). */
async function loopingClient() {
  let first = true;
  const onHead = () => {
    if (first) readyOne();
    first = false;
  };
  while (running) {
    const status = await readList(onHead);
    if (!running) break;
    if (status === 200) got.lists++;
    else if (status === 503) got.refused++;
    else got.other++;
  }
}

process.on('message', (message) => {
  if (message !== 'stop') return;
  running = false;
  process.send({ got }, () => process.exit(0));
});

for (let i = 0; i < clients; i++) {
  if (mode === 'stall') stalledClient();
  else void loopingClient();
}
