"""Crash-isolated worker processes: each runs one program at a time; a worker that dies
(segfault, abort) or runs past the timeout is recorded against its program and replaced."""

from __future__ import annotations

import json
import os
import selectors
import signal
import subprocess
import sys
import time
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).resolve().parent / "fuzz_worker.py"
START_TIMEOUT = 300.0


@dataclass
class Job:
    mode: str
    seed: str | None = None  # generate the program from this seed...
    program: dict[str, Any] | None = None  # ...or run this one
    tag: object = None  # the caller's


@dataclass
class Result:
    job: Job
    outcome: str  # match, mismatch, crash, timeout, error
    program: dict[str, Any] | None = None
    diffs: list[dict[str, Any]] = field(default_factory=list)
    inherent: list[dict[str, Any]] = field(default_factory=list)
    fallbacks: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0  # the worker's time on it
    wall: float = 0.0  # from submitting it to its answer (worker start-up excluded)
    step: int | None = None  # the last tpu step started (for crashes and timeouts)
    detail: str = ""


class Worker:
    def __init__(self, index: int, logdir: Path) -> None:
        self.index = index
        self.log_path = logdir / f"worker{index}.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.buf = b""
        self.job: Job | None = None
        self.job_id = 0
        self.started = 0.0
        self.program: dict[str, Any] | None = None
        self.step: int | None = None
        self.done = 0
        self.log_offset = 0
        self.log_path.write_text("")  # this run's log only

    def start(self, attempts: int = 5, pause: float = 30.0) -> None:
        """Start the process; retried, since another build may be replacing the extension."""
        for attempt in range(attempts):
            try:
                self._start()
                return
            except RuntimeError:
                self.kill()
                if attempt == attempts - 1:
                    raise
                print(
                    f"[fuzz] worker {self.index} did not start; retrying in {pause:.0f} s",
                    file=sys.stderr,
                    flush=True,
                )
                time.sleep(pause)

    def _start(self) -> None:
        env = dict(os.environ)
        env.setdefault("TORCHTPU_CPU_FALLBACK", "1")
        log: IO[str] = open(self.log_path, "a")  # noqa: SIM115 - the child keeps it
        self.proc = subprocess.Popen(
            [sys.executable, "-u", str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log,
            cwd=ROOT,
            env=env,
            start_new_session=True,
        )
        log.close()
        self.done = 0
        self.buf = b""
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            sel = selectors.DefaultSelector()
            assert self.proc.stdout
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            ready = sel.select(deadline - time.monotonic())
            sel.close()
            msgs = self.messages() if ready else None
            if msgs is None:
                break
            if any(m.get("event") == "ready" for m in msgs):
                return
        raise RuntimeError(f"fuzz worker {self.index} did not start; see {self.log_path}")

    def messages(self) -> list[dict[str, Any]] | None:
        """The complete messages that have arrived (call when readable); None at EOF."""
        assert self.proc and self.proc.stdout
        data = os.read(self.proc.stdout.fileno(), 1 << 16)
        if not data:
            return None
        self.buf += data
        *lines, self.buf = self.buf.split(b"\n")
        return [json.loads(ln) for ln in lines if ln.strip()]

    def submit(self, job: Job, job_id: int) -> None:
        assert self.proc and self.proc.stdin
        task: dict[str, Any] = {"id": job_id, "mode": job.mode}
        if job.seed is not None:
            task["seed"] = job.seed
        else:
            task["program"] = job.program
        self.job, self.job_id, self.started = job, job_id, time.monotonic()
        self.program, self.step = job.program, None
        self.log_offset = self.log_path.stat().st_size if self.log_path.exists() else 0
        self.proc.stdin.write((json.dumps(task) + "\n").encode())
        self.proc.stdin.flush()

    def log_tail(self, limit: int = 3000) -> str:
        try:
            with open(self.log_path, errors="replace") as f:
                f.seek(self.log_offset)
                text = f.read()
        except OSError:
            return ""
        lines = [ln for ln in text.splitlines() if not ln.startswith(("I0000", "WARNING: All"))]
        return "\n".join(lines)[-limit:]

    def kill(self) -> None:
        if self.proc and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)  # its own session: the worker and its children
            self.proc.wait()
        self.proc = None


class Pool:
    """`run(jobs)` yields a Result per job as they finish, `workers` at a time."""

    def __init__(self, workers: int, logdir: Path, timeout: float, recycle: int = 400) -> None:
        logdir.mkdir(parents=True, exist_ok=True)
        self.workers = [Worker(i, logdir) for i in range(workers)]
        self.timeout = timeout
        self.recycle = recycle
        self.next_id = 0

    def close(self) -> None:
        for w in self.workers:
            if w.proc and w.proc.stdin:
                w.proc.stdin.close()
            w.kill()

    def _lost(self, w: Worker, outcome: str) -> Result:
        assert w.job is not None
        rc = None
        if w.proc and outcome == "crash":
            try:
                rc = w.proc.wait(timeout=5)  # it closed its pipe: it is exiting
            except subprocess.TimeoutExpired:
                pass
        w.kill()
        how = f"killed by {signal.Signals(-rc).name}" if rc and rc < 0 else f"exit status {rc}"
        if outcome == "timeout":
            how = f"no answer in {self.timeout:.0f} s"
        r = Result(w.job, outcome, w.program, step=w.step, detail=f"{how}\n{w.log_tail()}")
        r.seconds = r.wall = time.monotonic() - w.started
        w.job = None
        return r

    def run(self, jobs: Iterable[Job]) -> Iterator[Result]:
        queue = deque(jobs)
        sel = selectors.DefaultSelector()
        try:
            while queue or any(w.job for w in self.workers):
                for w in self.workers:
                    if w.job is None and queue:
                        if w.proc is None or w.done >= self.recycle:
                            w.kill()
                            w.start()
                        self.next_id += 1
                        w.submit(queue.popleft(), self.next_id)
                        assert w.proc and w.proc.stdout
                        sel.register(w.proc.stdout, selectors.EVENT_READ, w)
                busy = [w for w in self.workers if w.job]
                deadline = min(w.started + self.timeout for w in busy)
                events = sel.select(max(0.0, deadline - time.monotonic()))
                for key, _ in events:
                    w = key.data
                    msgs = w.messages()
                    if msgs is None:
                        sel.unregister(key.fileobj)
                        yield self._lost(w, "crash")
                        continue
                    for msg in msgs:
                        if msg.get("id") != w.job_id or w.job is None:
                            continue
                        if msg["event"] == "start":
                            w.program = msg["program"]
                        elif msg["event"] == "step":
                            w.step = msg["step"]
                        elif msg["event"] == "done":
                            sel.unregister(key.fileobj)
                            job, w.job = w.job, None
                            w.done += 1
                            if msg.get("restart"):  # the worker is exiting: start another
                                w.kill()
                            yield Result(
                                job,
                                msg["outcome"],
                                w.program,
                                msg.get("diffs", []),
                                msg.get("inherent", []),
                                msg.get("fallbacks", {}),
                                msg.get("seconds", 0.0),
                                detail=msg.get("detail", "") + msg.get("restart", ""),
                                wall=time.monotonic() - w.started,
                            )
                now = time.monotonic()
                for w in self.workers:
                    if w.job and now - w.started > self.timeout:
                        assert w.proc and w.proc.stdout
                        sel.unregister(w.proc.stdout)
                        yield self._lost(w, "timeout")
        finally:
            sel.close()
