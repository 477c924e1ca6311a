#include "bench/cpu/les_fftw_peer.h"

#include <cmath>
#include <cstring>
#include <numbers>

namespace dashi::bench {

namespace {
const std::complex<double> kI(0.0, 1.0);
}

FftwLes::FftwLes(const LesParams& p, int threads, const std::vector<C>& initial)
    : p_(p), n_(static_cast<int>(p.n)), hc_(static_cast<int>(p.n / 2 + 1)), w_(initial) {
  const size_t hs = static_cast<size_t>(n_) * hc_, cells = static_cast<size_t>(n_) * n_;
  cbuf_ = fftw_alloc_complex(hs);
  cout_ = fftw_alloc_complex(hs);
  rbuf_ = fftw_alloc_real(cells);
  fftw_plan_with_nthreads(threads);
  c2r_ = fftw_plan_dft_c2r_2d(n_, n_, cbuf_, rbuf_, FFTW_MEASURE);
  r2c_ = fftw_plan_dft_r2c_2d(n_, n_, rbuf_, cout_, FFTW_MEASURE);
  ky_.resize(n_);
  for (int i = 0; i < n_; ++i) ky_[i] = i < n_ / 2 ? i : i - n_;
  decay_half_.resize(hs);
  decay_full_.resize(hs);
  keep_.resize(hs);
  const int kmax = n_ / 3;
  for (int i = 0; i < n_; ++i) {
    for (int j = 0; j < hc_; ++j) {
      const double k2 = static_cast<double>(ky_[i]) * ky_[i] + static_cast<double>(j) * j;
      decay_half_[i * hc_ + j] = std::exp(-p.nu0 * k2 * (0.5 * p.dt));
      decay_full_[i * hc_ + j] = std::exp(-p.nu0 * k2 * p.dt);
      keep_[i * hc_ + j] = std::abs(ky_[i]) <= kmax && j <= kmax;
    }
  }
}

FftwLes::~FftwLes() {
  fftw_destroy_plan(c2r_);
  fftw_destroy_plan(r2c_);
  fftw_free(cbuf_);
  fftw_free(cout_);
  fftw_free(rbuf_);
}

void FftwLes::Irfft(const std::vector<C>& in, std::vector<double>& out) {
  std::memcpy(cbuf_, in.data(), in.size() * sizeof(C));
  out.resize(static_cast<size_t>(n_) * n_);
  fftw_execute_dft_c2r(c2r_, cbuf_, rbuf_);
  const double scale = 1.0 / (static_cast<double>(n_) * n_);
  for (size_t k = 0; k < out.size(); ++k) out[k] = rbuf_[k] * scale;
}

void FftwLes::Rfft(const std::vector<double>& in, std::vector<C>& out) {
  std::memcpy(rbuf_, in.data(), in.size() * sizeof(double));
  fftw_execute_dft_r2c(r2c_, rbuf_, cout_);
  out.resize(static_cast<size_t>(n_) * hc_);
  std::memcpy(out.data(), cout_, out.size() * sizeof(C));
}

void FftwLes::ForwardOnce(const std::vector<double>& real, std::vector<C>& half) {
  Rfft(real, half);
}
void FftwLes::InverseOnce(const std::vector<C>& half, std::vector<double>& real) {
  Irfft(half, real);
}

std::vector<std::complex<double>> FftwLes::Rhs(const std::vector<C>& w) {
  const size_t hs = w.size();
  std::vector<C> u_hat(hs), v_hat(hs), wx_hat(hs), wy_hat(hs);
  for (int i = 0; i < n_; ++i) {
    const double ky = ky_[i];
    for (int j = 0; j < hc_; ++j) {
      const double kx = j;
      const size_t idx = static_cast<size_t>(i) * hc_ + j;
      const double k2 = kx * kx + ky * ky;
      const C psi = k2 > 0 ? w[idx] / k2 : C(0, 0);
      u_hat[idx] = kI * ky * psi;
      v_hat[idx] = -kI * kx * psi;
      wx_hat[idx] = kI * kx * w[idx];
      wy_hat[idx] = kI * ky * w[idx];
    }
  }
  std::vector<double> u, v, wx, wy;
  Irfft(u_hat, u);
  Irfft(v_hat, v);
  Irfft(wx_hat, wx);
  Irfft(wy_hat, wy);
  std::vector<double> adv(u.size());
  for (size_t k = 0; k < adv.size(); ++k) adv[k] = -(u[k] * wx[k] + v[k] * wy[k]);
  std::vector<C> rhs;
  Rfft(adv, rhs);
  if (p_.cs > 0) {
    std::vector<C> ux_hat(hs), shear_hat(hs);
    for (int i = 0; i < n_; ++i) {
      const double ky = ky_[i];
      for (int j = 0; j < hc_; ++j) {
        const double kx = j;
        const size_t idx = static_cast<size_t>(i) * hc_ + j;
        ux_hat[idx] = kI * kx * u_hat[idx];
        shear_hat[idx] = kI * ky * u_hat[idx] + kI * kx * v_hat[idx];
      }
    }
    std::vector<double> ux, shear;
    Irfft(ux_hat, ux);
    Irfft(shear_hat, shear);
    const double delta = 2.0 * std::numbers::pi / n_;
    const double c2 = (p_.cs * delta) * (p_.cs * delta);
    std::vector<double> fx(u.size()), fy(u.size());
    for (size_t k = 0; k < fx.size(); ++k) {
      const double nu_t = c2 * std::sqrt(4.0 * ux[k] * ux[k] + shear[k] * shear[k]);
      fx[k] = nu_t * wx[k];
      fy[k] = nu_t * wy[k];
    }
    std::vector<C> fx_hat, fy_hat;
    Rfft(fx, fx_hat);
    Rfft(fy, fy_hat);
    for (int i = 0; i < n_; ++i) {
      const double ky = ky_[i];
      for (int j = 0; j < hc_; ++j) {
        const size_t idx = static_cast<size_t>(i) * hc_ + j;
        rhs[idx] += kI * static_cast<double>(j) * fx_hat[idx] + kI * ky * fy_hat[idx];
      }
    }
  }
  for (size_t k = 0; k < hs; ++k) rhs[k] = keep_[k] ? rhs[k] * p_.dt : C(0, 0);
  return rhs;
}

void FftwLes::Step() {
  const size_t hs = w_.size();
  const std::vector<double>& eh = decay_half_;
  const std::vector<double>& ef = decay_full_;
  std::vector<C> tmp(hs);
  const std::vector<C> a = Rhs(w_);
  for (size_t k = 0; k < hs; ++k) tmp[k] = eh[k] * (w_[k] + 0.5 * a[k]);
  const std::vector<C> b = Rhs(tmp);
  for (size_t k = 0; k < hs; ++k) tmp[k] = eh[k] * w_[k] + 0.5 * b[k];
  const std::vector<C> c = Rhs(tmp);
  for (size_t k = 0; k < hs; ++k) tmp[k] = ef[k] * w_[k] + eh[k] * c[k];
  const std::vector<C> d = Rhs(tmp);
  for (size_t k = 0; k < hs; ++k) {
    w_[k] = ef[k] * w_[k] + (ef[k] * a[k] + 2.0 * eh[k] * (b[k] + c[k]) + d[k]) / 6.0;
  }
}

}  // namespace dashi::bench
