#!/usr/bin/env python3
"""A small HTTP file server for the download tests (stdlib only).

Unlike `python3 -m http.server` it answers Range requests (206 with
Content-Range, 416 past the end), and it can cut a transfer short on purpose:

  range_server.py ROOT --port-file FILE [--cut-after BYTES] [--log FILE]

Binds 127.0.0.1 on a free port and writes the port to --port-file (written
whole, then renamed, so a reader never sees a part). With --cut-after N, a
GET without a Range header announces the full Content-Length but sends only
N bytes and closes the connection; Range requests are served whole. --log
appends one line per request: "<path> <Range header or ->". Stops on SIGTERM.
"""
import argparse
import http.server
import os
import re
import signal
import sys


def make_handler(root, cut_after, log_path):
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):  # quiet: tests read --log instead
            pass

        def do_GET(self):
            range_header = self.headers.get("Range")
            if log_path:
                with open(log_path, "a") as log:
                    log.write(f"{self.path} {range_header or '-'}\n")
            relative = self.path.split("?", 1)[0].lstrip("/")
            file = os.path.realpath(os.path.join(root, relative))
            if not file.startswith(os.path.realpath(root) + os.sep) or not os.path.isfile(file):
                self.send_error(404, "not found")
                return
            with open(file, "rb") as handle:
                data = handle.read()
            start = 0
            if range_header:
                match = re.fullmatch(r"bytes=(\d+)-(\d*)", range_header.strip())
                if not match:
                    self.send_error(400, "bad range")
                    return
                start = int(match.group(1))
                end = int(match.group(2)) if match.group(2) else len(data) - 1
                if start >= len(data) or end < start:
                    self.send_response(416)
                    self.send_header("Content-Range", f"bytes */{len(data)}")
                    self.send_header("Content-Length", "0")
                    self.end_headers()
                    return
                end = min(end, len(data) - 1)
                body = data[start:end + 1]
                self.send_response(206)
                self.send_header("Content-Range", f"bytes {start}-{end}/{len(data)}")
            else:
                body = data
                self.send_response(200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Accept-Ranges", "bytes")
            self.end_headers()
            if cut_after is not None and not range_header:
                self.wfile.write(body[:cut_after])
                self.wfile.flush()
                self.close_connection = True
                return
            self.wfile.write(body)

    return Handler


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("root")
    parser.add_argument("--port-file", required=True)
    parser.add_argument("--cut-after", type=int, default=None)
    parser.add_argument("--log", default=None)
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0),
                                             make_handler(args.root, args.cut_after, args.log))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    temporary = args.port_file + ".tmp"
    with open(temporary, "w") as out:
        out.write(str(server.server_address[1]))
    os.replace(temporary, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
