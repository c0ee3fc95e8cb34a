// The kernel's own table of TCP connections (Linux's /proc/net/tcp), to tell how a connection ended: a
// reset takes both ends out of the table at once, while a close queued behind data the peer does not read
// leaves the closing end there (FIN-WAIT-1) holding that data, and the peer's end established.
import { readFileSync } from 'node:fs';

/** RFC 793's states, as Linux numbers them in /proc/net/tcp. */
const STATES: Record<string, string> = {
  '01': 'ESTABLISHED',
  '02': 'SYN-SENT',
  '03': 'SYN-RECV',
  '04': 'FIN-WAIT-1',
  '05': 'FIN-WAIT-2',
  '06': 'TIME-WAIT',
  '07': 'CLOSE',
  '08': 'CLOSE-WAIT',
  '09': 'LAST-ACK',
  '0A': 'LISTEN',
  '0B': 'CLOSING',
};

export interface TcpEnd {
  localPort: number;
  remotePort: number;
  state: string;
  /** Bytes sent and not yet acknowledged, or not yet sent. */
  sendQueue: number;
}

/** Both ends of the loopback connection between ports `a` and `b`, as far as the kernel still has them. */
export function connectionEnds(a: number, b: number): TcpEnd[] {
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((fields) => fields.length > 4)
    .map(([, local = '', remote = '', state = '', queues = '']) => ({
      localPort: parseInt(local.split(':')[1] ?? '', 16),
      remotePort: parseInt(remote.split(':')[1] ?? '', 16),
      state: STATES[state] ?? state,
      sendQueue: parseInt(queues.split(':')[0] ?? '', 16),
    }))
    .filter(({ localPort, remotePort }) => (localPort === a && remotePort === b) || (localPort === b && remotePort === a));
}
