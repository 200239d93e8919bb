"""CPU per write on loopback TCP by payload size (not a test): ``python bench/loopback_writes.py``.

What one websocket frame's ``send`` system call costs the writing process, as a server's write to
a client on the same machine does: a reader process (on another CPU) receives every payload, and
the writer pauses between writes so the reader is asleep each time (the server's case: every game
frame wakes its client), then writes back to back (the reader mostly awake). The writer's thread
CPU time is taken around the call alone. It answers whether fewer bytes per frame would make the
server's writes cheaper; on loopback the call also carries the receiver's TCP work.
"""

from __future__ import annotations

import argparse
import os
import socket
import time

SIZES = (200, 1000, 1600, 3200)


def measure(size: int, writes: int, pause: float) -> float:
    """Mean CPU microseconds of one ``send`` of ``size`` bytes."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    writer = socket.create_connection(listener.getsockname())
    reader, _ = listener.accept()
    listener.close()
    for sock in (writer, reader):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    pid = os.fork()
    if pid == 0:  # the reader
        writer.close()
        os.sched_setaffinity(0, {os.cpu_count() - 1 if os.cpu_count() else 0})
        got = 0
        while got < size * writes:
            data = reader.recv(1 << 20)
            if not data:
                break
            got += len(data)
        os._exit(0)
    reader.close()
    os.sched_setaffinity(0, {0})
    payload = b"x" * size
    spent = 0
    for _ in range(writes):
        started = time.thread_time_ns()
        writer.send(payload)
        spent += time.thread_time_ns() - started
        if pause:
            time.sleep(pause)
    os.waitpid(pid, 0)
    writer.close()
    return spent / writes / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--writes", type=int, default=5000)
    args = parser.parse_args()
    for pause, label in ((0.0003, "reader asleep"), (0.0, "back to back")):
        row = ", ".join(f"{size} B {measure(size, args.writes, pause):.1f} µs" for size in SIZES)
        print(f"{label}: {row}")


if __name__ == "__main__":
    main()
