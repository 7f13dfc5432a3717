"""Print the first free TCP port on 127.0.0.1 at or above the one given."""

import socket
import sys

start = int(sys.argv[1]) if len(sys.argv) > 1 else 8000
for port in range(start, start + 200):
    with socket.socket() as sock:
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            continue
        print(port)
        break
