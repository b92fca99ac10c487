#!/usr/bin/env python3
# SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
"""
Clients that abuse an HTTP server, for tests/integration/test_export_abuse.sh.
Loopback only, every one bounded in count and time; each mode prints one JSON
object with what it saw.

  http_abuse.py HOST:PORT concurrent N          N scrapes at once
  http_abuse.py HOST:PORT slow N SECONDS        N clients sending a byte a second
                                                (reconnecting when dropped) while
                                                one scrape a second is timed
  http_abuse.py HOST:PORT malformed             garbage, huge heads, HTTP/1.0,
                                                keep-alive, pipelining, other methods
  http_abuse.py HOST:PORT hold N SECONDS        N connections that say nothing
  http_abuse.py HOST:PORT guess FROM SECONDS RATE USER:PASS [AFTER [FROM2 USER2:PASS2]]
                                                wrong passwords for USER from the
                                                address FROM, RATE a second; after
                                                AFTER seconds, one scrape from FROM2
                                                with USER2:PASS2, timed
"""
import base64
import json
import os
import random
import socket
import sys
import threading
import time

HOST, PORT = sys.argv[1].rsplit(':', 1)
PORT = int(PORT)
SCRAPE = b'GET /metrics HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n'


def connect(timeout):
    s = socket.create_connection((HOST, PORT), timeout=timeout)
    s.settimeout(timeout)
    return s


def read_all(s, deadline):
    data = b''
    while time.monotonic() < deadline:
        try:
            b = s.recv(65536)
        except socket.timeout:
            break
        except OSError:
            break
        if not b:
            break
        data += b
    return data


def status(data):
    line = data.split(b'\r\n', 1)[0].decode('latin-1')
    parts = line.split(' ')
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def scrape(timeout=5.0, request=SCRAPE):
    """one request on a new connection: (status, seconds, bytes)"""
    t0 = time.monotonic()
    try:
        s = connect(timeout)
        s.sendall(request)
        data = read_all(s, t0 + timeout)
        s.close()
    except OSError:
        return 0, time.monotonic() - t0, 0
    return status(data), time.monotonic() - t0, len(data)


def auth_scrape(frm, cred, timeout=5.0):
    """one scrape with basic auth from a local address: (status, seconds)"""
    req = ('GET /metrics HTTP/1.1\r\nHost: test\r\nConnection: close\r\n'
           'Authorization: Basic %s\r\n\r\n' % base64.b64encode(cred.encode()).decode())
    t0 = time.monotonic()
    try:
        s = socket.create_connection((HOST, PORT), timeout=timeout, source_address=(frm, 0))
        s.settimeout(timeout)
        s.sendall(req.encode())
        data = read_all(s, t0 + timeout)
        s.close()
    except OSError:
        return 0, time.monotonic() - t0
    return status(data), time.monotonic() - t0


def guess(frm, seconds, rate, cred, after=None, frm2=None, cred2=None):
    """a guesser in threads (one each try, at most 'rate' a second) and one timed scrape"""
    user = cred.split(':', 1)[0]
    seen = {}
    lock = threading.Lock()
    threads = []

    def one(i):
        code, _ = auth_scrape(frm, '%s:guess%d' % (user, i))
        with lock:
            seen[str(code)] = seen.get(str(code), 0) + 1

    scraped = {}

    def timed():
        code, dt = auth_scrape(frm2, cred2)
        scraped.update(status=code, seconds=dt)

    t0 = time.monotonic()
    n = int(seconds * rate)
    late = None
    for i in range(n):
        if after is not None and late is None and time.monotonic() - t0 >= after:
            late = threading.Thread(target=timed)
            late.start()
        t = threading.Thread(target=one, args=(i,))
        t.start()
        threads.append(t)
        time.sleep(max(0, t0 + (i + 1) / rate - time.monotonic()))
    for t in threads:
        t.join()
    if late:
        late.join()
    return {'guesses': n, 'answers': seen, 'scrape': scraped}


def concurrent(n):
    results = [None] * n
    start = threading.Barrier(n)

    def one(i):
        start.wait()
        results[i] = scrape(timeout=15.0)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    codes = {}
    for c, _, _ in results:
        codes[str(c)] = codes.get(str(c), 0) + 1
    return {'clients': n, 'codes': codes,
            'max_s': round(max(r[1] for r in results), 3),
            'complete': sum(1 for c, _, size in results if c == 200 and size > 1000)}


def slow(n, seconds):
    stop = time.monotonic() + seconds
    seen = {}
    lock = threading.Lock()
    request = (b'GET /metrics HTTP/1.1\r\nHost: slow\r\nUser-Agent: slowloris\r\n'
               + b'X-Pad: ' + b'x' * 64 + b'\r\n\r\n')

    def loris():
        while time.monotonic() < stop:
            try:
                s = connect(2.0)
            except OSError:
                time.sleep(0.1)
                continue
            got = b''
            for i in range(len(request)):
                if time.monotonic() >= stop:
                    break
                try:
                    s.sendall(request[i:i + 1])
                except OSError:
                    break
                # a byte a second, watching for the server's answer meanwhile
                s.settimeout(1.0)
                try:
                    b = s.recv(4096)
                    if not b:
                        break
                    got += b
                except socket.timeout:
                    continue
                except OSError:
                    break
            s.close()
            with lock:
                k = str(status(got)) if got else 'closed'
                seen[k] = seen.get(k, 0) + 1

    threads = [threading.Thread(target=loris) for _ in range(n)]
    for t in threads:
        t.start()
    time.sleep(1.5)		# the slow clients are all in
    lat, codes = [], {}
    while time.monotonic() < stop - 1:
        c, s, _ = scrape(timeout=30.0)	# a hang; the latency is logged
        lat.append(round(s, 3))
        codes[str(c)] = codes.get(str(c), 0) + 1
        time.sleep(0.5)
    for t in threads:
        t.join()
    return {'slow_clients': n, 'scrapes': codes, 'latency_s': lat,
            'max_latency_s': max(lat) if lat else None, 'slow_saw': seen}


def exchange(raw, timeout=3.0, close_write=False):
    try:
        s = connect(timeout)
        s.sendall(raw)
        if close_write:
            s.shutdown(socket.SHUT_WR)
        data = read_all(s, time.monotonic() + timeout)
        s.close()
        return data
    except OSError as e:
        return ('<%s>' % e).encode()


def malformed():
    rnd = random.Random(13)
    cases = {
        'garbage': b'garbage\r\n\r\n',
        'random_bytes': bytes(rnd.randrange(1, 256) for _ in range(20000)),
        'huge_head': b'GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: ' + b'a' * 20000 + b'\r\n\r\n',
        'many_headers': b'GET /metrics HTTP/1.1\r\nHost: x\r\n' + b'X: y\r\n' * 5000 + b'\r\n',
        'no_host_11': b'GET /metrics HTTP/1.1\r\n\r\n',
        'http2_preface': b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n',
        'http09': b'GET /metrics\r\n\r\n',
        'folded': b'GET /metrics HTTP/1.1\r\nHost: x\r\n folded\r\n\r\n',
        'nul_in_path': b'GET /met\x00rics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        'post': b'POST /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc',
        'other_path': b'GET /../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        'head': b'HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
        'http10': b'GET /metrics HTTP/1.0\r\n\r\n',
        'http10_keepalive': b'GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n',
        'half_then_close': b'GET /metr',
    }
    out = {}
    for name, raw in cases.items():
        data = exchange(raw, close_write=name in ('half_then_close', 'random_bytes'))
        out[name] = {'status': status(data), 'bytes': len(data),
                     'body': name != 'head' or data.endswith(b'\r\n\r\n')}
    # keep-alive: three requests on one connection, the last asking to close
    s = connect(5.0)
    got = []
    for last in (False, False, True):
        s.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n'
                  + (b'Connection: close\r\n' if last else b'') + b'\r\n')
        head = b''
        while b'\r\n\r\n' not in head:
            b = s.recv(1)
            if not b:
                break
            head += b
        length = 0
        for line in head.split(b'\r\n'):
            if line.lower().startswith(b'content-length:'):
                length = int(line.split(b':')[1])
        body = b''
        while len(body) < length:
            b = s.recv(length - len(body))
            if not b:
                break
            body += b
        got.append(status(head) if len(body) == length else 0)
    closed = s.recv(1) == b''
    s.close()
    out['keepalive_three'] = {'statuses': got, 'closed_after_close': closed}
    # pipelined: two requests in one write
    data = exchange(b'GET / HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n'
                    b'Connection: close\r\n\r\n')
    out['pipelined'] = {'responses': data.count(b'HTTP/1.1 200 OK')}
    return out


def hold(n, seconds):
    socks = []
    for _ in range(n):
        try:
            socks.append(connect(2.0))
        except OSError:
            break
    opened = len(socks)
    time.sleep(seconds)
    seen = {}
    for s in socks:
        s.setblocking(False)
        try:
            b = s.recv(4096)
            k = str(status(b)) if b else 'closed'
        except BlockingIOError:
            k = 'open'
        except OSError:
            k = 'reset'
        seen[k] = seen.get(k, 0) + 1
        s.close()
    return {'opened': opened, 'after': seen}


def main():
    mode = sys.argv[2]
    if mode == 'concurrent':
        r = concurrent(int(sys.argv[3]))
    elif mode == 'slow':
        r = slow(int(sys.argv[3]), float(sys.argv[4]))
    elif mode == 'malformed':
        r = malformed()
    elif mode == 'hold':
        r = hold(int(sys.argv[3]), float(sys.argv[4]))
    elif mode == 'guess':
        a = sys.argv[3:]
        r = guess(a[0], float(a[1]), float(a[2]), a[3],
                  float(a[4]) if len(a) > 4 else None,
                  a[5] if len(a) > 5 else None, a[6] if len(a) > 6 else None)
    elif mode == 'scrape_as':
        code, dt = auth_scrape(sys.argv[3], sys.argv[4])
        r = {'status': code, 'seconds': dt}
    else:
        sys.exit('unknown mode ' + mode)
    print(json.dumps(r))


if __name__ == '__main__':
    main()
