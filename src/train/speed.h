// speed.h: timing helpers for training -- how many steps per second a model
// trains at (natively or in the learner's browser), and "train for at most
// this many milliseconds", the per-frame budget that keeps a page responsive.
// std::chrono::steady_clock only; nothing is cached between calls.
#pragma once

#include <chrono>

namespace attn::train {

struct StepTiming {
  int steps = 0;
  double seconds = 0.0;
  double steps_per_second = 0.0;  // 0 when no time was measured
  float last_loss = 0.0f;
};

// Runs step() `steps` times (step returns the loss) and times the whole loop.
template <typename StepFn>
StepTiming time_steps(int steps, StepFn&& step) {
  StepTiming t;
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < steps; ++i) t.last_loss = step();
  t.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.steps = steps > 0 ? steps : 0;
  t.steps_per_second = t.seconds > 0.0 ? double(t.steps) / t.seconds : 0.0;
  return t;
}

// Calls step() until budget_ms milliseconds have passed or max_steps steps ran;
// at least one step when max_steps >= 1. Returns the number of steps.
template <typename StepFn>
int run_for_budget(double budget_ms, int max_steps, StepFn&& step) {
  const auto start = std::chrono::steady_clock::now();
  int done = 0;
  while (done < max_steps) {
    step();
    ++done;
    const double used = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (used >= budget_ms) break;
  }
  return done;
}

}  // namespace attn::train
