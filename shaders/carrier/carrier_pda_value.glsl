// The PDA admissibility threshold P_tau of one value (docs/MATH.md §1.2), the twin of core_ref
// PdaThresholdValue: +1 if x >= tau, -1 if x <= -tau, 0 otherwise. Comparisons only (and an exact
// negation): no rounding. #included by carrier_pda.comp and carrier_scale_threshold.comp.
int PdaValue(double x, double tau) {
  const double neg_tau = -tau;
  int v = 0;
  if (x >= tau) {
    v = 1;
  } else if (x <= neg_tau) {
    v = -1;
  }
  return v;
}
