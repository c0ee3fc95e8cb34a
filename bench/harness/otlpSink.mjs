// An OTLP/HTTP collector that takes every export and keeps nothing, in a process of its own: in the bench's
// process it would answer late, behind the load generator, and the server's queue would drop spans (which
// cost it less than sent ones). It prints its port once it listens.
import { createServer } from 'node:http';

const server = createServer((request, response) => {
  request.resume();
  request.on('end', () => response.writeHead(200, { 'Content-Type': request.headers['content-type'] }).end());
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`));
// Gone with the bench: its end of the pipe closes when it exits, however it exits.
process.stdin.on('end', () => process.exit(0)).resume();
