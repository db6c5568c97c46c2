"""Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe).

Chromium reads commands from file descriptor 3 and writes replies and events to file
descriptor 4, one JSON message per NUL-terminated chunk. Only the standard library is used.
"""

import json
import os
import select
import signal
import tempfile
import time

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
    "--disable-dev-shm-usage",  # containers often give /dev/shm 64 MB, too little for Chromium
    "--remote-debugging-pipe",
]


class BrowserError(Exception):
    pass


class Browser:
    """One Chromium process with one page; events are kept in self.events as they arrive."""

    def __init__(self, binary, log_path, width=1280, height=900):
        self._profile = tempfile.TemporaryDirectory(prefix="kscope-chromium-")
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        argv = [binary, *FLAGS, f"--user-data-dir={self._profile.name}",
                f"--window-size={width},{height}", "about:blank"]
        actions = [(os.POSIX_SPAWN_DUP2, to_child_r, 3), (os.POSIX_SPAWN_DUP2, from_child_w, 4),
                   (os.POSIX_SPAWN_DUP2, log_fd, 1), (os.POSIX_SPAWN_DUP2, log_fd, 2)]
        try:
            self._pid = os.posix_spawnp(binary, argv, os.environ, file_actions=actions,
                                        setsid=True)
        except OSError as e:
            raise BrowserError(f"cannot start {binary}: {e}; install Debian's chromium") from e
        finally:
            for fd in (to_child_r, from_child_w, log_fd):
                os.close(fd)
        self._next_id = 0
        self._buffer = b""
        self.events = []
        self.session = None
        self._target = None

    def close(self):
        try:
            self.call("Browser.close", timeout=5)
        except BrowserError:
            pass
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline:
            pid, _ = os.waitpid(self._pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.05)
        else:
            os.killpg(self._pid, signal.SIGKILL)  # the process group started for this browser
            os.waitpid(self._pid, 0)
        os.close(self._to_child)
        os.close(self._from_child)
        self._profile.cleanup()

    def _read_message(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("no answer from chromium in time")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise BrowserError("chromium closed its DevTools pipe (it exited)")
                self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, timeout=30, session=True):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params or {}}
        if session and self.session:
            message["sessionId"] = self.session
        os.write(self._to_child, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise BrowserError(f"{method}: {reply['error'].get('message')}")
                return reply.get("result", {})
            if "method" in reply:
                self.events.append(reply)

    def wait_for_event(self, method, timeout):
        deadline = time.monotonic() + timeout
        while not any(e["method"] == method for e in self.events):
            message = self._read_message(deadline)
            if "method" in message:
                self.events.append(message)

    def open_page(self):
        """A fresh page (tab), replacing the one opened before; events start anew."""
        if self.session:
            self.call("Target.closeTarget", {"targetId": self._target}, session=False)
        self._target = self.call("Target.createTarget", {"url": "about:blank"}, session=False)["targetId"]
        attached = self.call("Target.attachToTarget", {"targetId": self._target, "flatten": True}, session=False)
        self.session = attached["sessionId"]
        self.events = []
        for domain in ("Page", "Runtime", "Log", "Network"):
            self.call(f"{domain}.enable")

    def evaluate(self, expression, timeout=30):
        result = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True}, timeout=timeout)
        if "exceptionDetails" in result:
            raise BrowserError(f"page script failed: {result['exceptionDetails'].get('text')}")
        return result["result"].get("value")
