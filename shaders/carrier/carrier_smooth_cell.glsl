// One cell of one pass of the separable periodic smoothing (docs/MATH.md §1.2), the exact operation
// sequence of core_ref Smooth:
//   s = 0.0;  for d = -r, ..., r:  s = s + w_d · in(line position (q + d) mod len);  out = s / W
// with w_d = 1.0 (box) or double(r + 1 - |d|) (triangle), every product and sum rounded on its own
// (`precise`: no fused multiply-add), then ONE division by W (the host passes W exactly as core_ref
// computes it). axis 0: along each row (index j, stride 1); axis 1: along each column (index i,
// stride C). #included by carrier_smooth.comp and carrier_smooth_max.comp after their `in_values`
// buffer and push constants `p` (CarrierSmoothParams); k < rows · cols is the cell, row-major.
double SmoothCell(uint k) {
  const uint i = k / p.cols;
  const uint j = k - i * p.cols;
  uint len, q, base, stride;
  if (p.axis == 0u) {
    len = p.cols; q = j; base = i * p.cols; stride = 1u;
  } else {
    len = p.rows; q = i; base = j; stride = p.cols;
  }
  const int r = int(p.radius);
  uint t = (q + len - (p.radius % len)) % len;  // (q - r) mod len without negative operands
  precise double s = 0.0;
  for (int d = -r; d <= r; ++d) {
    const double w = (p.triangle != 0u) ? double(r + 1 - abs(d)) : 1.0;
    precise double term = w * in_values[base + t * stride];
    s = s + term;
    t = (t + 1u == len) ? 0u : t + 1u;
  }
  precise double result = s / p.total;
  return result;
}
