#!/usr/bin/env python3
"""The LES step in NumPy, the third column of the issue-16 LES benchmark (docs/PERF.md).

The same scheme as core_ref/les and the FFTW peer (bench/cpu/les_fftw_peer.cc): integrating-
factor RK4, 2/3-rule dealiasing, Smagorinsky eddy viscosity, NumPy's pocketfft rfft2/irfft2
(single thread). The initial state is dashi's (`dashi simulate --steps 0`), and before timing
the state after 3 steps is compared with `dashi simulate --steps 3`: the relative L2 difference
must be at rounding level, or this is not the same scheme and the script stops.

  python3 bench/numpy/les_numpy_peer.py DASHI [--n 128,256,512] [--reps R]
Prints one Markdown row per N: median (min) ms per step and the agreement with dashi.
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

import numpy as np


def read_npy(path):
    return np.load(path)


class NumpyLes:
    def __init__(self, n, dt, nu0, cs, omega0):
        self.n, self.dt, self.cs = n, dt, cs
        self.w = np.fft.rfft2(omega0)
        ky = np.fft.fftfreq(n, 1.0 / n)[:, None]
        kx = np.arange(n // 2 + 1)[None, :].astype(float)
        self.kx, self.ky = kx, ky
        k2 = kx * kx + ky * ky
        self.k2 = k2
        self.inv_k2 = np.where(k2 > 0, 1.0 / np.where(k2 > 0, k2, 1.0), 0.0)
        kmax = n // 3
        self.keep = (np.abs(ky) <= kmax) & (kx <= kmax)
        self.eh = np.exp(-nu0 * k2 * (0.5 * dt))
        self.ef = np.exp(-nu0 * k2 * dt)

    def irfft(self, h):
        return np.fft.irfft2(h, s=(self.n, self.n))

    def rhs(self, w):
        kx, ky = self.kx, self.ky
        psi = w * self.inv_k2
        u_hat = 1j * ky * psi
        v_hat = -1j * kx * psi
        wx_hat = 1j * kx * w
        wy_hat = 1j * ky * w
        u, v = self.irfft(u_hat), self.irfft(v_hat)
        wx, wy = self.irfft(wx_hat), self.irfft(wy_hat)
        rhs = np.fft.rfft2(-(u * wx + v * wy))
        if self.cs > 0:
            ux = self.irfft(1j * kx * u_hat)
            shear = self.irfft(1j * ky * u_hat + 1j * kx * v_hat)
            delta = 2.0 * np.pi / self.n
            c2 = (self.cs * delta) ** 2
            nu_t = c2 * np.sqrt(4.0 * ux * ux + shear * shear)
            rhs = rhs + 1j * kx * np.fft.rfft2(nu_t * wx) + 1j * ky * np.fft.rfft2(nu_t * wy)
        return np.where(self.keep, rhs * self.dt, 0.0)

    def step(self):
        eh, ef, w = self.eh, self.ef, self.w
        a = self.rhs(w)
        b = self.rhs(eh * (w + 0.5 * a))
        c = self.rhs(eh * w + 0.5 * b)
        d = self.rhs(ef * w + eh * c)
        self.w = ef * w + (ef * a + 2.0 * eh * (b + c) + d) / 6.0


def dashi_frames(dashi, n, dt, steps, tmp):
    out = os.path.join(tmp, f"traj_{n}_{steps}.npy")
    subprocess.run([dashi, "simulate", "--n", str(n), "--dt", repr(dt), "--steps", str(steps),
                    "--save-every", str(max(steps, 1)), "--out", out, "--quiet"], check=True,
                   stdout=subprocess.DEVNULL)
    meta = json.load(open(out[:-4] + ".json"))
    return read_npy(out), meta


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dashi")
    ap.add_argument("--n", default="128,256,512")
    ap.add_argument("--reps", type=int, default=0, help="0: 40 / 12 / 5 by N")
    args = ap.parse_args()
    print(f"les_numpy_peer  {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}  "
          f"NumPy {np.__version__}  load average {' '.join('%.2f' % x for x in os.getloadavg())}")
    print("| N | NumPy step ms | rel L2 vs dashi after 3 steps |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for n in [int(x) for x in args.n.split(",")]:
            dt = 0.005 * 128.0 / n  # as //bench/cpu:les_peer_benchmark
            frames0, meta = dashi_frames(args.dashi, n, dt, 0, tmp)
            p = meta.get("params", meta)
            nu0, cs = float(p.get("nu0", 1e-3)), float(p.get("cs", 0.17))
            frames3, _ = dashi_frames(args.dashi, n, dt, 3, tmp)
            les = NumpyLes(n, dt, nu0, cs, frames0[0])
            for _ in range(3):
                les.step()
            got = les.irfft(les.w)
            want = frames3[-1]
            rel = float(np.linalg.norm(got - want) / np.linalg.norm(want))
            if not rel < 1e-10:
                print(f"N={n}: NumPy peer disagrees with dashi after 3 steps (rel L2 {rel:.3g}): "
                      "not the same scheme", file=sys.stderr)
                return 1
            reps = args.reps or (40 if n <= 128 else 12 if n <= 256 else 5)
            les.step()
            les.step()
            ms = []
            for _ in range(reps):
                t0 = time.perf_counter()
                les.step()
                ms.append((time.perf_counter() - t0) * 1e3)
            ms.sort()
            print(f"| {n} | {ms[len(ms) // 2]:.2f} ({ms[0]:.2f}) | {rel:.1e} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
